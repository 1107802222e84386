"""``mcp.client.session``: ``ClientSession``, the SDK's client over a pair of message streams.

``ClientSession(read_stream, write_stream, ...)`` speaks JSON-RPC over the streams a transport gives
(``SessionMessage`` items): ``mcp.shared.memory.create_connected_server_and_client_session(server)``
connects it to a server object in this process, whose core answers as over stdio or HTTP. The session
keeps the SDK's calls (``initialize``, ``list_tools``, ``call_tool`` ...), result models, callbacks
(sampling, elicitation, roots, logging, message handler) and errors (``McpError`` with the SDK's
``ErrorData``). It is a caller like any other: every answer is the server core's.

``ClientRequestContext`` is the first argument of a client callback (``mcp.client.Client``'s too).
"""

from __future__ import annotations

import itertools
import logging
from dataclasses import dataclass
from datetime import timedelta
from types import TracebackType
from typing import Any

import anyio
import pydantic
from typing_extensions import Self

from . import types
from .shared.exceptions import McpError

__all__ = ["ClientRequestContext", "ClientSession", "ElicitationFnT", "IncomingMessage", "ListRootsFnT", "LoggingFnT",
           "MessageHandlerFnT", "SamplingFnT"]

logger = logging.getLogger("client")

#: The SDK's client identity when none is given.
DEFAULT_CLIENT_INFO = types.Implementation.model_validate({"name": "mcp", "version": "0.1.0"})
#: The SDK's code for a request that timed out (HTTP's 408), and for a closed connection.
_TIMEOUT, _CLOSED = 408, -32000

#: What a message handler is given: a server request (``RequestResponder``), a notification, or a
#: transport's exception.
IncomingMessage = Any
ElicitationFnT = Any
SamplingFnT = Any
ListRootsFnT = Any
LoggingFnT = Any
MessageHandlerFnT = Any


@dataclass(kw_only=True)
class ClientRequestContext:
    """The client answering, and the id of the server's request (or the input request's key)."""

    session: Any
    request_id: Any
    meta: Any = None
    lifespan_context: Any = None

    def __class_getitem__(cls, _params: Any) -> type:
        return cls  # the SDK's ``RequestContext[ClientSession, Any]`` in annotations


class ElicitRequestFormParams(types.ElicitRequestFormParams):
    """A form elicitation's parameters as the SDK's client reads them: ``requestedSchema`` a plain dict
    (the server's JSON Schema as sent, defaults and ``anyOf`` included)."""

    requestedSchema: dict[str, Any]  # type: ignore[assignment]


class ElicitRequestURLParams(types.ElicitRequestURLParams):
    """A URL elicitation's parameters as the SDK's client reads them: ``url`` the string sent."""

    url: str  # type: ignore[assignment]


def elicit_params(params: Any) -> Any:
    """``ElicitRequestParams`` (URL or form) from the wire's params."""
    if (params or {}).get("mode") == "url":
        return ElicitRequestURLParams.model_validate(params)
    return ElicitRequestFormParams.model_validate(params)


def _dump(value: Any) -> Any:
    if hasattr(value, "model_dump"):
        return value.model_dump(by_alias=True, exclude_none=True, mode="json")
    return value


def _error(code: int, message: str) -> types.ErrorData:
    return types.ErrorData.model_validate({"code": code, "message": message})


async def _not_supported(what: str) -> types.ErrorData:
    return _error(types.INVALID_REQUEST, f"{what} not supported")


class ClientSession:
    """A client session over ``read_stream``/``write_stream`` (the SDK's ``ClientSession``)."""

    def __class_getitem__(cls, _params: Any) -> type:
        return cls

    def __init__(self, read_stream: Any, write_stream: Any, read_timeout_seconds: timedelta | None = None,
                 sampling_callback: Any = None, elicitation_callback: Any = None, list_roots_callback: Any = None,
                 logging_callback: Any = None, message_handler: Any = None, client_info: Any = None, *,
                 sampling_capabilities: Any = None, experimental_task_handlers: Any = None) -> None:
        if experimental_task_handlers is not None:
            raise TypeError("ClientSession(experimental_task_handlers=...): oxmcp's client does not run "
                            "client-side tasks")
        self._read, self._write = read_stream, write_stream
        self._read_timeout = read_timeout_seconds
        self._sampling = sampling_callback
        self._sampling_capabilities = sampling_capabilities
        self._elicitation = elicitation_callback
        self._list_roots = list_roots_callback
        self._logging = logging_callback
        self._message_handler = message_handler
        self._client_info = client_info or DEFAULT_CLIENT_INFO
        self._ids = itertools.count()
        self._pending: dict[Any, Any] = {}
        self._progress: dict[Any, Any] = {}
        self._tool_output_schemas: dict[str, Any] = {}
        self._server_capabilities: Any = None
        self._tg: Any = None

    async def __aenter__(self) -> Self:
        self._tg = anyio.create_task_group()
        await self._tg.__aenter__()
        self._tg.start_soon(self._receive_loop)
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> bool | None:
        self._tg.cancel_scope.cancel()
        return await self._tg.__aexit__(exc_type, exc, tb)  # type: ignore[no-any-return]

    # -- sending ---------------------------------------------------------------------------------------
    async def _send(self, message: dict[str, Any], metadata: Any = None) -> None:
        from .shared.message import SessionMessage

        await self._write.send(SessionMessage(types.JSONRPCMessage.model_validate(message), metadata=metadata))

    async def send_request(self, request: Any, result_type: Any, request_read_timeout_seconds: Any = None,
                           metadata: Any = None, progress_callback: Any = None) -> Any:
        """Send ``request`` (a request model, or ``{"method", "params"}``); its result as ``result_type``.
        An error answer raises ``McpError`` with the answer's ``ErrorData``."""
        body = _dump(getattr(request, "root", request))
        request_id = next(self._ids)
        params = dict(body.get("params") or {})
        if progress_callback is not None:
            params["_meta"] = {**params.get("_meta", {}), "progressToken": request_id}
            self._progress[request_id] = progress_callback
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": body["method"]}
        if params or "params" in body:
            message["params"] = params
        send, receive = anyio.create_memory_object_stream[dict[str, Any]](1)
        self._pending[request_id] = send
        timeout = request_read_timeout_seconds or self._read_timeout
        seconds = timeout.total_seconds() if isinstance(timeout, timedelta) else timeout
        try:
            await self._send(message, metadata)
            try:
                with anyio.fail_after(seconds):
                    reply = await receive.receive()
            except TimeoutError:
                raise McpError(_error(_TIMEOUT, f"Timed out while waiting for response to "
                                                f"{type(request).__name__}. Waited {seconds} seconds.")) from None
        finally:
            self._pending.pop(request_id, None)
            self._progress.pop(request_id, None)
            send.close()
            receive.close()
        if "error" in reply:
            raise McpError(types.ErrorData.model_validate(reply["error"]))
        return result_type.model_validate(reply.get("result") or {})

    async def send_notification(self, notification: Any, related_request_id: Any = None) -> None:
        body = _dump(getattr(notification, "root", notification))
        message = {"jsonrpc": "2.0", "method": body["method"],
                   **({"params": body["params"]} if body.get("params") is not None else {})}
        await self._send(message)

    async def _request(self, method: str, params: Any, result_type: Any, **kwargs: Any) -> Any:
        body: dict[str, Any] = {"method": method}
        if params is not None:
            body["params"] = {k: v for k, v in _dump(params).items() if v is not None}
        return await self.send_request(_Request(body), result_type, **kwargs)

    # -- receiving -------------------------------------------------------------------------------------
    async def _receive_loop(self) -> None:
        try:
            async for item in self._read:
                if isinstance(item, Exception):
                    await self._handle_incoming(item)
                    continue
                message = _dump(getattr(item, "message", item))
                message = _dump(getattr(message, "root", message))
                if "method" in message and "id" in message:
                    self._tg.start_soon(self._received_request, message)
                elif "method" in message:
                    await self._received_notification(message)
                elif message.get("id") in self._pending:
                    await self._pending[message["id"]].send(message)
                else:
                    logger.warning("Received response with an unknown request ID: %s", message)
        except anyio.ClosedResourceError:
            pass
        finally:
            closed = {"error": {"code": _CLOSED, "message": "Connection closed"}}
            for send in list(self._pending.values()):
                try:
                    send.send_nowait(closed)
                except (anyio.WouldBlock, anyio.ClosedResourceError, anyio.BrokenResourceError):
                    pass

    async def _handle_incoming(self, message: Any) -> None:
        if self._message_handler is not None:
            await self._message_handler(message)
        else:
            await anyio.lowlevel.checkpoint()

    async def _received_request(self, message: dict[str, Any]) -> None:
        from .shared.session import RequestResponder

        params = message.get("params") or {}
        context = ClientRequestContext(session=self, request_id=message["id"], meta=params.get("_meta"))
        try:
            answer = await self._answer(message["method"], params, context)
        except pydantic.ValidationError:
            await self._respond(message["id"], _error(types.INVALID_PARAMS, "Invalid request parameters"))
            return
        if answer is not None:
            await self._respond(message["id"], answer)
            return
        try:
            request = types.ServerRequest.model_validate(message)
        except pydantic.ValidationError:
            await self._respond(message["id"], _error(types.INVALID_PARAMS, "Invalid request parameters"))
            return
        # A request no callback answers is the message handler's, to answer with the responder.
        await self._handle_incoming(RequestResponder(message["id"], context.meta, request, self))

    async def _answer(self, method: str, params: dict[str, Any], context: ClientRequestContext) -> Any:
        """A server request's answer from its callback (``None``: left to the message handler)."""
        if method == "sampling/createMessage":
            if self._sampling is None:
                return await _not_supported("Sampling")
            return await self._sampling(context, types.CreateMessageRequestParams.model_validate(params))
        if method == "elicitation/create":
            if self._elicitation is None:
                return await _not_supported("Elicitation")
            return await self._elicitation(context, elicit_params(params))
        if method == "roots/list":
            if self._list_roots is None:
                return await _not_supported("List roots")
            return await self._list_roots(context)
        if method == "ping":
            return types.EmptyResult.model_validate({})
        return None

    async def _respond(self, request_id: Any, answer: Any) -> None:
        body = _dump(getattr(answer, "root", answer))
        if isinstance(answer, types.ErrorData):
            await self._send({"jsonrpc": "2.0", "id": request_id, "error": body})
        else:
            await self._send({"jsonrpc": "2.0", "id": request_id, "result": body or {}})

    async def _received_notification(self, message: dict[str, Any]) -> None:
        params = message.get("params") or {}
        method = message["method"]
        if method == "notifications/progress" and params.get("progressToken") in self._progress:
            await self._progress[params["progressToken"]](params.get("progress"), params.get("total"),
                                                          params.get("message"))
        try:
            notification = types.ServerNotification.model_validate(message)
        except pydantic.ValidationError:
            logger.warning("Failed to validate notification: %s", message)
            return
        if method == "notifications/message" and self._logging is not None:
            await self._logging(notification.root.params)
        await self._handle_incoming(notification)

    # -- the SDK's calls -------------------------------------------------------------------------------
    async def initialize(self) -> Any:
        caps: dict[str, Any] = {}
        if self._sampling is not None:
            caps["sampling"] = _dump(self._sampling_capabilities) or {}
        if self._elicitation is not None:
            caps["elicitation"] = {"form": {}, "url": {}}
        if self._list_roots is not None:
            caps["roots"] = {"listChanged": True}
        result = await self._request("initialize", {"protocolVersion": types.LATEST_PROTOCOL_VERSION,
                                                    "capabilities": caps,
                                                    "clientInfo": _dump(self._client_info)},
                                     types.InitializeResult)
        from .types.version import KNOWN_PROTOCOL_VERSIONS

        if result.protocol_version not in KNOWN_PROTOCOL_VERSIONS:
            raise RuntimeError(f"Unsupported protocol version from the server: {result.protocol_version}")
        self._server_capabilities = result.capabilities
        await self.send_notification({"method": "notifications/initialized"})
        return result

    def get_server_capabilities(self) -> Any:
        return self._server_capabilities

    async def send_ping(self) -> Any:
        return await self._request("ping", None, types.EmptyResult)

    async def send_progress_notification(self, progress_token: str | int, progress: float,
                                         total: float | None = None, message: str | None = None) -> None:
        params = {"progressToken": progress_token, "progress": progress, "total": total, "message": message}
        await self.send_notification({"method": "notifications/progress",
                                      "params": {k: v for k, v in params.items() if v is not None}})

    async def send_roots_list_changed(self) -> None:
        await self.send_notification({"method": "notifications/roots/list_changed"})

    async def set_logging_level(self, level: str) -> Any:
        return await self._request("logging/setLevel", {"level": level}, types.EmptyResult)

    async def _list(self, method: str, result_type: Any, cursor: str | None, params: Any) -> Any:
        if params is not None and cursor is not None:
            raise ValueError("Cannot specify both cursor and params")
        given = params if params is not None else ({"cursor": cursor} if cursor is not None else None)
        return await self._request(method, given, result_type)

    async def list_resources(self, cursor: str | None = None, *, params: Any = None) -> Any:
        return await self._list("resources/list", types.ListResourcesResult, cursor, params)

    async def list_resource_templates(self, cursor: str | None = None, *, params: Any = None) -> Any:
        return await self._list("resources/templates/list", types.ListResourceTemplatesResult, cursor, params)

    async def list_prompts(self, cursor: str | None = None, *, params: Any = None) -> Any:
        return await self._list("prompts/list", types.ListPromptsResult, cursor, params)

    async def list_tools(self, cursor: str | None = None, *, params: Any = None) -> Any:
        result = await self._list("tools/list", types.ListToolsResult, cursor, params)
        for tool in result.tools:
            self._tool_output_schemas[tool.name] = tool.output_schema
        return result

    async def read_resource(self, uri: Any) -> Any:
        return await self._request("resources/read", {"uri": str(uri)}, types.ReadResourceResult)

    async def subscribe_resource(self, uri: Any) -> Any:
        return await self._request("resources/subscribe", {"uri": str(uri)}, types.EmptyResult)

    async def unsubscribe_resource(self, uri: Any) -> Any:
        return await self._request("resources/unsubscribe", {"uri": str(uri)}, types.EmptyResult)

    async def get_prompt(self, name: str, arguments: dict[str, str] | None = None) -> Any:
        return await self._request("prompts/get", {"name": name, "arguments": arguments}, types.GetPromptResult)

    async def complete(self, ref: Any, argument: dict[str, str], context_arguments: dict[str, str] | None = None) -> Any:
        params: dict[str, Any] = {"ref": _dump(ref), "argument": argument}
        if context_arguments is not None:
            params["context"] = {"arguments": context_arguments}
        return await self._request("completion/complete", params, types.CompleteResult)

    async def call_tool(self, name: str, arguments: dict[str, Any] | None = None,
                        read_timeout_seconds: timedelta | None = None, progress_callback: Any = None, *,
                        meta: dict[str, Any] | None = None) -> Any:
        params: dict[str, Any] = {"name": name, "arguments": arguments}
        if meta is not None:
            params["_meta"] = meta
        result = await self._request("tools/call", params, types.CallToolResult,
                                     request_read_timeout_seconds=read_timeout_seconds,
                                     progress_callback=progress_callback)
        if not result.is_error:
            await self._validate_tool_result(name, result)
        return result

    async def _validate_tool_result(self, name: str, result: Any) -> None:
        """The structured content checked against the tool's output schema, as the SDK's client does."""
        if name not in self._tool_output_schemas:
            await self.list_tools()
        if name not in self._tool_output_schemas:
            logger.warning(f"Tool {name} not listed by server, cannot validate any structured content")
        schema = self._tool_output_schemas.get(name)
        if schema is None:
            return
        if result.structured_content is None:
            raise RuntimeError(f"Tool {name} has an output schema but did not return structured content")
        from ._oxmcp import schema_violation

        violation = schema_violation(schema, result.structured_content)
        if violation is not None:
            raise RuntimeError(f"Invalid structured content returned by tool {name}: {violation}")


class _Request:
    """A request given as its wire body (``{"method", "params"}``)."""

    def __init__(self, body: dict[str, Any]) -> None:
        self.body = body

    def model_dump(self, **_kwargs: Any) -> dict[str, Any]:
        return self.body
