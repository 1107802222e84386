"""``mcp.client``: ``Client``, the SDK's in-process client, as servers use it in their own tests.

``async with Client(server) as client:`` talks to a server object in the same process (through the
core's dispatch, as stdio and HTTP do) and returns the SDK's result models (``oxmcp.types``), so
``result.content[0].text``, ``result.structured_content`` and ``(await client.list_tools()).tools``
read as with mcp 2.x. ``mode=`` picks the era as the SDK's does: ``"legacy"`` (the ``initialize``
handshake), ``"auto"`` (``server/discover``, the default) or a pinned modern version (no probe).
The callbacks (``elicitation_callback``, ``sampling_callback``, ``list_roots_callback``) answer the
server's requests for input: a legacy session's server-to-client requests, and a modern request's
``input_required`` rounds (MRTR, retried with the answers as the SDK's client does).
Each callback gets a ``ClientRequestContext`` first; the client declares the capability the SDK's
declares for it (both elicitation modes, sampling, roots). ``ClientSession`` (``mcp.client.session``)
is the SDK's client over message streams; oxmcp has no client transports (SSE, Streamable HTTP,
stdio): drive a server over those with the official client.
"""

from __future__ import annotations

import sys
from typing import Any

import anyio
import pydantic

from . import types
from ._client import PROTOCOL_VERSION
from ._client import Client as _Client
from ._client_claims import ClaimContext, ClientExtension, ResultClaim, UnexpectedClaimedResult, advertise, fold
from ._client_session import ClientRequestContext, ClientSession, IncomingMessage
from ._errors import McpError as _CoreMcpError
from .shared.exceptions import McpError

__all__ = ["ClaimContext", "Client", "ClientExtension", "ClientRequestContext", "ClientSession", "IncomingMessage",
           "ResultClaim", "UnexpectedClaimedResult", "advertise"]

# ``mcp.client`` is a package in the SDK: its submodules (``mcp.client.session``,
# ``mcp.client.streamable_http``) resolve through the import hook (oxmcp._dropin), which needs the
# parent to be importable as a package.
__path__: list[str] = []

#: The SDK's bound on the input_required rounds of one request.
_MAX_ROUNDS = 10
#: Each input request's method, and the callback (with the capability it needs) that answers it.
_INPUT = {"elicitation/create": ("elicitation_callback", "elicitation"),
          "sampling/createMessage": ("sampling_callback", "sampling"),
          "roots/list": ("list_roots_callback", "roots")}
#: The capability the SDK's client declares for each callback it is given.
_DECLARED: dict[str, dict[str, Any]] = {"elicitation": {"form": {}, "url": {}}, "sampling": {},
                                        "roots": {"listChanged": True}}


class Client(_Client):
    """``Client(server)``: a server object in this process; results as ``oxmcp.types`` models."""

    #: As the SDK's in-memory client: no HTTP auth (the server's own process calls it, with no token).
    _in_process = True

    def __init__(self, server: Any, **kwargs: Any) -> None:
        core = getattr(server, "_core", server)  # the low-level Server serves through its core Server
        if not hasattr(core, "_build_native"):
            raise TypeError("oxmcp.client.Client(server): give a server object (FastMCP, MCPServer, Server); "
                            "oxmcp has no client for URLs or transports")
        mode = kwargs.pop("mode", "auto")
        if mode not in ("legacy", "auto", PROTOCOL_VERSION):
            raise ValueError(f"mode must be 'legacy', 'auto', or one of {[PROTOCOL_VERSION]}; got {mode!r}")
        self.mode = mode
        # The callbacks answer input requests; each declares the capability the server asks it by.
        given = {key: kwargs.pop(key, None) for key, _ in _INPUT.values()}
        self._callbacks = {key: fn for key, fn in given.items() if fn is not None}
        caps = dict(kwargs.pop("capabilities", None) or {})
        self._extensions = fold(kwargs.pop("extensions", None))
        #: The claimed result shapes this connection resolves (none on a legacy one), by resultType.
        self._claims = self._extensions.active(None if mode == "legacy" else PROTOCOL_VERSION)
        declared = self._extensions.declared(None if mode == "legacy" else PROTOCOL_VERSION)
        if declared:
            caps["extensions"] = {**(caps.get("extensions") or {}), **declared}
        for key, cap in _INPUT.values():
            if key in self._callbacks:
                caps.setdefault(cap, dict(_DECLARED[cap]))
        self._logging_callback = kwargs.pop("logging_callback", None)
        self._message_handler = kwargs.pop("message_handler", None)
        self._progress: dict[Any, Any] = {}
        #: The ids of this client's requests it cancelled (notifications/cancelled): never answered.
        self._cancelled: set[Any] = set()
        for key in ("raise_exceptions", "read_timeout_seconds", "cache"):
            kwargs.pop(key, None)  # the SDK's options for a remote session; nothing to do in process
        super().__init__(core, capabilities=caps, **kwargs)
        self._on_request = self._answer_request
        self._on_notification = self._notified

    async def __aenter__(self) -> Any:
        # The SDK's in-memory transport runs an MCPServer's lifespan while a client is connected
        # (entered once for overlapping clients, left with the last one), on the loop its handlers
        # run on (the client's own asyncio loop when it is awaited from trio).
        self._lifespan_cm = None
        await super().__aenter__()
        running = getattr(self.server, "_lifespan_running", None)
        if running is not None:
            cm = running()
            try:
                await self._on_server_loop(cm.__aenter__())
            except BaseException:
                await super().__aexit__(*sys.exc_info())
                raise
            self._lifespan_cm = cm
        if self.mode == "legacy" and self.init_result is None:
            await self._handshake()
        if self.mode == PROTOCOL_VERSION and self.init_result is None:
            # A pinned version is adopted without a probe: the SDK then knows no server identity.
            self.init_result = {"protocolVersion": PROTOCOL_VERSION, "capabilities": {}}
        if self.init_result is None:
            # The modern era has no handshake: what the SDK's client learns at connect, it learns here
            # from server/discover (the server's info, capabilities and instructions).
            found = await self.request("server/discover")
            self.init_result = {"protocolVersion": found.get("supportedVersions", ["2026-07-28"])[0],
                                "capabilities": found.get("capabilities", {}),
                                "serverInfo": found.get("_meta", {}).get("io.modelcontextprotocol/serverInfo", {}),
                                **({"instructions": found["instructions"]} if "instructions" in found else {})}
        return self

    async def __aexit__(self, *exc: object) -> None:
        cm, self._lifespan_cm = self._lifespan_cm, None
        try:
            if cm is not None:
                await self._on_server_loop(cm.__aexit__(*exc))
        finally:
            await super().__aexit__(*exc)

    async def _on_server_loop(self, coro: Any) -> Any:
        return await (coro if self._loop_thread is None else self._loop_thread.run(coro))

    async def initialize(self) -> Any:
        """The SDK session's handshake, which this client did when it was entered: its answer."""
        return types.InitializeResult.model_validate(self.init_result)

    @property
    def protocol_version(self) -> str:
        """The negotiated protocol version (``initialize``'s, ``server/discover``'s or the pinned one)."""
        return str((self.init_result or {}).get("protocolVersion"))

    @property
    def server_info(self) -> Any:
        """The server's ``Implementation`` (name, title, version ...), as the SDK's client has it;
        ``None`` when the server did not say (a pinned version, which skips ``server/discover``)."""
        info = (self.init_result or {}).get("serverInfo")
        return None if info is None else types.Implementation.model_validate(info)

    async def _input(self, method: str, params: Any, request_id: Any) -> tuple[bool, Any]:
        """Answer one input request with its callback: ``(True, result)`` or ``(False, error)``."""
        from ._client_session import ClientRequestContext, elicit_params

        key = _INPUT.get(method, (None, None))[0]
        callback = self._callbacks.get(key) if key else None
        if callback is None:
            return False, {"code": types.METHOD_NOT_FOUND, "message": "Method not found", "data": method}
        context = ClientRequestContext(session=self, request_id=request_id)
        if method == "roots/list":
            answer = await callback(context)
        else:
            typed = elicit_params(params or {}) if method == "elicitation/create" else \
                types.CreateMessageRequestParams.model_validate(params or {})
            answer = await callback(context, typed)
        dumped = answer.model_dump(by_alias=True, exclude_none=True, mode="json") if hasattr(answer, "model_dump") \
            else dict(answer)
        return (False, dumped) if isinstance(answer, types.ErrorData) else (True, dumped)

    async def _notified(self, message: dict[str, Any]) -> None:
        """A server notification: to the request's progress callback, the logging callback, and the
        message handler (as the notification's own model), as the SDK's client dispatches them."""
        params = message.get("params") or {}
        if message["method"] == "notifications/progress" and params.get("progressToken") in self._progress:
            await self._progress[params["progressToken"]](params.get("progress"), params.get("total"),
                                                          params.get("message"))
        if message["method"] == "notifications/message" and self._logging_callback is not None:
            await self._logging_callback(types.LoggingMessageNotificationParams.model_validate(params))
        if self._message_handler is not None:
            try:
                notification = types.ServerNotification.model_validate(message).root
            except pydantic.ValidationError:
                return
            await self._message_handler(notification)

    @property
    def session(self) -> Any:
        """The SDK's ``client.session``: raw ``send_request(request, result_type)`` and
        ``send_notification(notification)`` through this client."""
        return _SessionView(self)

    async def _answer_request(self, message: dict[str, Any]) -> dict[str, Any]:
        """A legacy session's server-to-client request, answered by its callback."""
        ok, value = await self._input(message["method"], message.get("params"), message["id"])
        return {"jsonrpc": "2.0", "id": message["id"], ("result" if ok else "error"): value}

    @property
    def server_capabilities(self) -> Any:
        """The capabilities the server declared (``ServerCapabilities``), as the SDK's client has them."""
        return types.ServerCapabilities.model_validate((self.init_result or {}).get("capabilities") or {})

    async def request(self, method: str, params: dict[str, Any] | None = None, **kwargs: Any) -> Any:
        """As ``oxmcp.Client.request``; an error answer raises the SDK's ``McpError`` (``MCPError``)."""
        try:
            result = await super().request(method, params, **kwargs)
            for _ in range(_MAX_ROUNDS):
                if not isinstance(result, dict) or result.get("resultType") != "input_required":
                    return result
                # MRTR: the same request again, with the answers and the server's state.
                answers = {}
                for key, req in (result.get("inputRequests") or {}).items():
                    ok, value = await self._input(req.get("method"), req.get("params"), key)
                    if not ok:
                        raise McpError(value.get("code", -32603), value.get("message", ""), value.get("data"))
                    answers[key] = value
                retry = {k: v for k, v in (params or {}).items() if k not in ("inputResponses", "requestState")}
                if answers:
                    retry["inputResponses"] = answers
                if result.get("requestState") is not None:
                    retry["requestState"] = result["requestState"]
                result = await super().request(method, retry, **kwargs)
            raise RuntimeError(f"Server returned InputRequiredResult for more than {_MAX_ROUNDS} rounds")
        except _CoreMcpError as exc:
            if isinstance(exc.data, dict) and exc.data.get("requestId") in self._cancelled:
                # A request this client cancelled gets no answer, as with the SDK: the call waits
                # until its caller gives up on it.
                await anyio.sleep_forever()
            if isinstance(exc, McpError):
                raise
            raise McpError(exc.code, exc.message, exc.data) from exc

    async def list_tools(self, cursor: str | None = None) -> Any:  # type: ignore[override]
        return types.ListToolsResult.model_validate(await self.request("tools/list", _cursor(cursor)))

    async def call_tool(self, name: str, arguments: dict[str, Any] | None = None,  # type: ignore[override]
                        read_timeout_seconds: Any = None, progress_callback: Any = None, *,
                        meta: dict[str, Any] | None = None, **kwargs: Any) -> Any:
        params: dict[str, Any] = {"name": name, "arguments": arguments or {}}
        if meta is not None:
            params["_meta"] = dict(meta)
        token = None
        if progress_callback is not None:
            token = f"progress-{next(self._ids)}"
            self._progress[token] = progress_callback
        try:
            raw = await self.request("tools/call", params, progress_token=token)
        finally:
            self._progress.pop(token, None)
        claimed = self._claimed(raw)
        if claimed is None:
            return types.CallToolResult.model_validate(raw)
        # A claimed shape is finished by its extension's resolver, whose result is the call's.
        context = ClaimContext(session=self.session, tool_name=name, read_timeout_seconds=read_timeout_seconds)
        return await self._claims[claimed.result_type].resolve(claimed, context)

    def _claimed(self, raw: Any) -> Any:
        """A result whose ``resultType`` an active claim names, parsed as that claim's model."""
        tag = raw.get("resultType") if isinstance(raw, dict) else None
        claim = self._claims.get(tag) if isinstance(tag, str) else None
        return None if claim is None else claim.model.model_validate(raw)  # type: ignore[attr-defined]

    async def list_resources(self, cursor: str | None = None) -> Any:  # type: ignore[override]
        return types.ListResourcesResult.model_validate(await self.request("resources/list", _cursor(cursor)))

    async def list_resource_templates(self, cursor: str | None = None) -> Any:  # type: ignore[override]
        return types.ListResourceTemplatesResult.model_validate(
            await self.request("resources/templates/list", _cursor(cursor)))

    async def read_resource(self, uri: Any) -> Any:  # type: ignore[override]
        return types.ReadResourceResult.model_validate(await self.request("resources/read", {"uri": str(uri)}))

    async def list_prompts(self, cursor: str | None = None) -> Any:  # type: ignore[override]
        return types.ListPromptsResult.model_validate(await self.request("prompts/list", _cursor(cursor)))

    async def get_prompt(self, name: str, arguments: dict[str, str] | None = None) -> Any:  # type: ignore[override]
        params: dict[str, Any] = {"name": name}
        if arguments is not None:
            params["arguments"] = arguments
        return types.GetPromptResult.model_validate(await self.request("prompts/get", params))

    async def complete(self, ref: Any, argument: dict[str, str],  # type: ignore[override]
                       context_arguments: dict[str, str] | None = None) -> Any:
        """``completion/complete`` for ``ref`` (a prompt or resource template reference) and the
        ``{"name", "value"}`` argument; its ``CompleteResult``."""
        params: dict[str, Any] = {"ref": ref.model_dump(by_alias=True, exclude_none=True)
                                  if hasattr(ref, "model_dump") else ref, "argument": argument}
        if context_arguments is not None:
            params["context"] = {"arguments": context_arguments}
        return types.CompleteResult.model_validate(await self.request("completion/complete", params))


def _cursor(cursor: str | None) -> dict[str, Any]:
    return {} if cursor is None else {"cursor": cursor}




class _SessionView:
    """``client.session`` of the SDK's ``Client``: requests and notifications given as models."""

    def __init__(self, client: Client) -> None:
        self._client = client

    async def send_request(self, request: Any, result_type: Any, request_read_timeout_seconds: Any = None,
                           metadata: Any = None, progress_callback: Any = None) -> Any:
        body = _wire(request)
        return result_type.model_validate(await self._client.request(body["method"], body.get("params")))

    async def _one_round(self, method: str, params: dict[str, Any], result_type: Any, allow_input_required: bool,
                         input_responses: dict[str, Any] | None, request_state: Any,
                         allow_claimed: bool = False) -> Any:
        """One request as the SDK's session sends it: with the given answers and state; an
        ``input_required`` answer returned as ``InputRequiredResult`` when allowed (else the client's
        rounds answer it with its callbacks)."""
        if input_responses is not None:
            params["inputResponses"] = {k: _dumped(v) for k, v in input_responses.items()}
        if request_state is not None:
            params["requestState"] = request_state
        if not allow_input_required:
            raw = await self._client.request(method, params)
            return self._result(method, raw, result_type, allow_claimed)
        try:
            raw = await _Client.request(self._client, method, params)
        except _CoreMcpError as exc:
            raise McpError(exc.code, exc.message, exc.data) from exc
        if isinstance(raw, dict) and raw.get("resultType") == "input_required":
            return types.InputRequiredResult.model_validate(raw)
        return self._result(method, raw, result_type, allow_claimed)

    def _result(self, method: str, raw: Any, result_type: Any, allow_claimed: bool) -> Any:
        """The answer as ``result_type``, or the parsed claim of an extension's result (refused
        unless ``allow_claimed``)."""
        claimed = self._client._claimed(raw) if method == "tools/call" else None
        if claimed is None:
            return result_type.model_validate(raw)
        if not allow_claimed:
            raise UnexpectedClaimedResult(claimed)
        return claimed

    async def call_tool(self, name: str, arguments: dict[str, Any] | None = None, *,
                        allow_input_required: bool = False, input_responses: dict[str, Any] | None = None,
                        request_state: Any = None, allow_claimed: bool = False, **kwargs: Any) -> Any:
        """One ``tools/call``: a claimed shape is returned parsed with ``allow_claimed=True``, and
        raises ``UnexpectedClaimedResult`` without it."""
        return await self._one_round("tools/call", {"name": name, "arguments": arguments or {}},
                                     types.CallToolResult, allow_input_required, input_responses, request_state,
                                     allow_claimed)

    async def get_prompt(self, name: str, arguments: dict[str, str] | None = None, *,
                         allow_input_required: bool = False, input_responses: dict[str, Any] | None = None,
                         request_state: Any = None) -> Any:
        params: dict[str, Any] = {"name": name, **({"arguments": arguments} if arguments is not None else {})}
        return await self._one_round("prompts/get", params, types.GetPromptResult, allow_input_required,
                                     input_responses, request_state)

    async def read_resource(self, uri: Any, *, allow_input_required: bool = False,
                            input_responses: dict[str, Any] | None = None, request_state: Any = None) -> Any:
        return await self._one_round("resources/read", {"uri": str(uri)}, types.ReadResourceResult,
                                     allow_input_required, input_responses, request_state)

    async def send_notification(self, notification: Any, related_request_id: Any = None) -> None:
        body = _wire(notification)
        if body.get("method") == "notifications/cancelled":
            self._client._cancelled.add((body.get("params") or {}).get("requestId"))
        await self._client._post({"jsonrpc": "2.0", **body})


def _wire(model: Any) -> dict[str, Any]:
    """A request or notification model (or its RootModel wrapper) as its wire body."""
    model = getattr(model, "root", model)
    body = model.model_dump(by_alias=True, exclude_none=True, mode="json") if hasattr(model, "model_dump") \
        else dict(model)
    return {k: v for k, v in body.items() if k in ("method", "params")}


def _dumped(value: Any) -> Any:
    return value.model_dump(by_alias=True, exclude_none=True, mode="json") if hasattr(value, "model_dump") else value
