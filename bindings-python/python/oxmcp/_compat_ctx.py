"""The pieces of FastMCP's / the SDK's ``Context`` API that oxmcp's ``Context`` forwards to.

Kept out of ``_context.py`` so the native-facing context stays small: typed elicitation with FastMCP's
scalar wrapping, FastMCP-shaped sampling, and the SDK's ``ctx.request_context`` / ``ctx.session``.
"""

from __future__ import annotations

import asyncio
import enum
import hashlib
import logging
import typing
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar

T = TypeVar("T")

__all__ = ["AcceptedElicitation", "AttrDict", "CancelledElicitation", "DeclinedElicitation", "RequestContext",
           "Session", "elicit_typed", "sample_fastmcp"]


class AttrDict(dict):  # type: ignore[type-arg]
    """A spec object as a dict whose keys also read as attributes (``root.uri``, ``root["uri"]``)."""

    def __getattr__(self, name: str) -> Any:
        key = name
        if key not in self:
            key = "".join(p if i == 0 else p[:1].upper() + p[1:] for i, p in enumerate(name.split("_")))
            if key not in self:
                raise AttributeError(name)
        value = self[key]
        if type(value) is dict:
            # Kept in place, so a change made through the attribute (``message.arguments["a"] = 1``)
            # is a change of this object, as on the framework's model.
            value = self[key] = AttrDict(value)
        return value


@dataclass
class AcceptedElicitation(Generic[T]):
    data: T
    action: Literal["accept"] = "accept"

    @property
    def content(self) -> Any:
        return self.data


@dataclass
class DeclinedElicitation:
    action: Literal["decline"] = "decline"
    data: None = None


@dataclass
class CancelledElicitation:
    action: Literal["cancel"] = "cancel"
    data: None = None


def _is_scalar(tp: Any) -> bool:
    return tp in (bool, int, float, str) or typing.get_origin(tp) is Literal or (
        isinstance(tp, type) and issubclass(tp, enum.Enum))


def _schema_of(tp: Any) -> dict[str, Any]:
    from ._schema import schema_for_type

    schema = schema_for_type(tp, mode="validation")
    schema.pop("title", None)
    return schema


def elicit_config(response_type: Any) -> tuple[dict[str, Any], Any, bool]:
    """``(requestedSchema, type to validate accepted content with, wrapped in {"value": ...})``."""
    if response_type is None:
        raise TypeError("elicit() needs a response_type (a type, a list of choices, or a dict of titled choices)")
    if isinstance(response_type, dict):
        if not response_type:
            raise ValueError("Dict response_type cannot be empty.")
        enum_schema = {"type": "string", "oneOf": [{"const": k, **({"title": v["title"]} if isinstance(v, dict)
                                                                   and "title" in v else {})}
                                                   for k, v in response_type.items()]}
        return ({"type": "object", "properties": {"value": enum_schema}, "required": ["value"]},
                Literal[tuple(response_type)], True)  # type: ignore[misc]
    if isinstance(response_type, list):
        if len(response_type) == 1 and isinstance(response_type[0], list) and response_type[0]:
            choices = response_type[0]
            return ({"type": "object", "properties": {"value": {"type": "array", "items": {
                "type": "string", "enum": choices}}}, "required": ["value"]},
                list[Literal[tuple(choices)]], True)  # type: ignore[misc]
        if response_type and all(isinstance(c, str) for c in response_type):
            tp: Any = Literal[tuple(response_type)]  # type: ignore[misc]
            return ({"type": "object", "properties": {"value": _schema_of(tp)}, "required": ["value"]}, tp, True)
        raise ValueError(f"Invalid list response_type format. Received: {response_type}")
    if typing.get_origin(response_type) is list or _is_scalar(response_type):
        return ({"type": "object", "properties": {"value": _schema_of(response_type)}, "required": ["value"]},
                response_type, True)
    return _schema_of(response_type), response_type, False


async def elicit_typed(ctx: Any, message: str, response_type: Any, requested: dict[str, Any] | None = None) -> Any:
    """Ask for ``response_type`` (``requested``: the schema to send in place of oxmcp's rendering)."""
    import pydantic

    schema, target, wrapped = elicit_config(response_type)
    if requested is not None:
        schema = requested
    # The MRTR key must be the same on every round of one request: derive it from the question.
    key = "elicit-" + hashlib.sha256(message.encode()).hexdigest()[:16]
    raw = await ctx._ask("elicit", key, {"mode": "form", "message": message, "requestedSchema": schema})
    action = raw.get("action", "cancel") if isinstance(raw, dict) else "cancel"
    if action == "decline":
        return DeclinedElicitation()
    if action != "accept":
        return CancelledElicitation()
    content = (raw.get("content") if isinstance(raw, dict) else None) or {}
    if wrapped:
        if "value" not in content:
            from ._errors import ToolError

            raise ToolError("Elicitation response is missing the 'value' field")
        content = content["value"]
    return AcceptedElicitation(data=pydantic.TypeAdapter(target).validate_python(content))


class SamplingResult(AttrDict):
    """FastMCP's sampling result: ``.text`` (None for non-text content) plus the spec fields."""

    @property
    def text(self) -> str | None:
        content = self.get("content")
        if isinstance(content, list):
            content = next((c for c in content if isinstance(c, dict) and c.get("type") == "text"), None)
        return content.get("text") if isinstance(content, dict) else None

    @property
    def result(self) -> Any:
        return self.text


async def sample_fastmcp(ctx: Any, messages: Any, *, max_tokens: int | None = None,
                         system_prompt: str | None = None, temperature: float | None = None,
                         model_preferences: Any = None, **extra: Any) -> Any:
    if isinstance(messages, str):
        messages = [{"role": "user", "content": {"type": "text", "text": messages}}]
    else:
        messages = [m if isinstance(m, dict) else {"role": "user", "content": {"type": "text", "text": str(m)}}
                    for m in messages]
    body: dict[str, Any] = {"messages": messages, "maxTokens": max_tokens or 512}
    if system_prompt is not None:
        body["systemPrompt"] = system_prompt
    if temperature is not None:
        body["temperature"] = temperature
    if model_preferences is not None:
        if isinstance(model_preferences, str):
            model_preferences = {"hints": [{"name": model_preferences}]}
        elif isinstance(model_preferences, list):
            model_preferences = {"hints": [{"name": m} for m in model_preferences]}
        body["modelPreferences"] = model_preferences
    for k in ("tools", "result_type", "tool_concurrency"):
        if extra.get(k) is not None:
            raise TypeError(f"sample({k}=...): sampling with tools or typed results is not supported by oxmcp")
        extra.pop(k, None)
    body.update(extra)
    key = "sample-" + hashlib.sha256(repr(body).encode()).hexdigest()[:16]
    result = await ctx._ask("sample", key, body)
    return SamplingResult(result if isinstance(result, dict) else {})


class _ExitCallbacks:
    """A connection's ``exit_stack`` as far as a handler uses it: async callbacks, run last-in first-out
    when the session ends."""

    def __init__(self) -> None:
        self._callbacks: list[tuple[Any, tuple[Any, ...], dict[str, Any]]] = []

    def push_async_callback(self, callback: Any, /, *args: Any, **kwargs: Any) -> Any:
        self._callbacks.append((callback, args, kwargs))
        return callback

    async def _run(self) -> None:
        while self._callbacks:
            callback, args, kwargs = self._callbacks.pop()
            try:
                await callback(*args, **kwargs)
            except Exception:
                logging.getLogger("oxmcp").exception("a session's exit callback failed")


class Connection:
    """The SDK's per-connection object behind a legacy session (``session._connection``): one per
    session while it lives, whose ``exit_stack`` callbacks run when the core reports the session
    ended (DELETE, expiry, end of stdin, server shutdown)."""

    def __init__(self, session_id: str | None) -> None:
        self.session_id = session_id
        self.exit_stack = _ExitCallbacks()


#: The live sessions' connections, by the core's session key.
_CONNECTIONS: dict[int, Connection] = {}
_CLOSING: set[asyncio.Task[None]] = set()


def connection_of(native_session: Any) -> Connection:
    key = native_session.key
    conn = _CONNECTIONS.get(key)
    if conn is not None:
        return conn
    conn = _CONNECTIONS[key] = Connection(native_session.id)
    loop = asyncio.get_running_loop()

    def run_exit_callbacks() -> None:
        task = loop.create_task(conn.exit_stack._run())
        _CLOSING.add(task)
        task.add_done_callback(_CLOSING.discard)

    def closed() -> None:  # on the core's dispatcher thread
        _CONNECTIONS.pop(key, None)
        if not loop.is_closed():
            loop.call_soon_threadsafe(run_exit_callbacks)

    native_session.on_closed(closed)
    return conn


async def native_answer(start: Any) -> Any:
    """Await a native call that answers ``callback(kind, value)`` on the dispatcher thread."""
    from .shared.exceptions import McpError

    loop = asyncio.get_running_loop()
    fut: asyncio.Future[Any] = loop.create_future()

    def done(kind: str, value: Any) -> None:
        def settle() -> None:
            if fut.done():
                return
            if kind == "ok":
                fut.set_result(value)
            else:
                fut.set_exception(McpError(value.get("code", -32603), value.get("message", ""), value.get("data")))
        loop.call_soon_threadsafe(settle)

    start(done)
    return await fut


_log = logging.getLogger("oxmcp")

#: The notifications a handler sends to its session's client through ``ServerSession``.
_SESSION_NOTIFICATIONS = frozenset({
    "notifications/resources/list_changed", "notifications/tools/list_changed",
    "notifications/prompts/list_changed", "notifications/elicitation/complete"})


class Session:
    """The SDK's ``ServerSession`` as far as a handler uses it: notifications and requests to the client."""

    def __init__(self, ctx: Any) -> None:
        self._ctx = ctx

    def _native_session(self) -> Any:
        native = getattr(self._ctx, "_native", None)
        return native.session if native is not None else None

    @property
    def _connection(self) -> Connection | None:
        """The legacy session's connection (the same object for all its requests); None without one."""
        native = self._native_session()
        return connection_of(native) if native is not None else None

    async def send_ping(self) -> Any:
        """``ping`` the client through the request's legacy session; ``NoBackChannelError`` when the
        request has none (the 2026-07-28 era, stateless HTTP)."""
        from .shared.exceptions import NoBackChannelError
        from .types import EmptyResult

        native = self._native_session()
        if native is None:
            raise NoBackChannelError("ping")
        try:
            await native_answer(native.ping)
        except Exception:
            if not native.is_open():  # the session ended: nothing carries requests to its client any more
                raise NoBackChannelError("ping") from None
            raise
        return EmptyResult.model_validate({})

    @property
    def client_params(self) -> Any:
        """The client's ``initialize`` params; ``None`` for a 2026-07-28 request whose ``_meta`` names no
        ``clientInfo`` (it is optional there), as in the SDK."""
        c = self._ctx
        if c.client_info is None and getattr(c, "era", None) == "modern":
            return None
        return AttrDict({"clientInfo": c.client_info or {}, "capabilities": c.client_capabilities,
                         "protocolVersion": c.protocol_version})

    @property
    def client_capabilities(self) -> Any:
        """The capabilities the client declared (mcp 2.x), as the SDK's model; ``None`` if none were."""
        caps = self._ctx.client_capabilities
        if caps is None:
            return None
        from .types import ClientCapabilities

        return ClientCapabilities.model_validate(caps)

    async def report_progress(self, progress: float, total: float | None = None, message: str | None = None) -> None:
        """Progress of the request being handled (mcp 2.x): sent only if the client asked for it."""
        self._ctx.progress(progress, total, message)

    async def send_notification(self, notification: Any, related_request_id: Any = None) -> None:
        """A typed notification to the client. Log messages and progress go through the request (the
        core applies the log level and the progress token); a list change and an elicitation's
        completion go to the client of the request's session, a resource update to its subscribers. Other notifications
        (cancellation, the client's own) are the core's to send, and are refused here."""
        body = notification.model_dump(by_alias=True, mode="json", exclude_none=True) \
            if hasattr(notification, "model_dump") else dict(notification)
        method, params = body.get("method"), body.get("params") or {}
        if method == "notifications/message":
            self._ctx.log(params.get("level"), params.get("data"), params.get("logger"))
        elif method == "notifications/progress":
            self._ctx.progress(params.get("progress"), params.get("total"), params.get("message"))
        elif method == "notifications/resources/updated":
            await self.send_resource_updated(params.get("uri"))  # to the URI's subscribers
        elif method in _SESSION_NOTIFICATIONS:
            self._notify(method, params or None)
        else:
            raise NotImplementedError(f"send_notification({method!r}): oxmcp's core sends this notification "
                                      "itself (cancellation)")

    def _notify(self, method: str, params: Any) -> None:
        """Send to the request's session. A request without one (2026-07-28, stateless HTTP) has no
        channel for it: the notification is dropped, as the SDK drops it."""
        native = self._native_session()
        if native is not None and native.is_open():
            native.notify(method, params)
        else:
            _log.debug("dropped %s: the request has no session to carry it", method)

    async def send_resource_list_changed(self) -> None:
        self._notify("notifications/resources/list_changed", None)

    async def send_tool_list_changed(self) -> None:
        self._notify("notifications/tools/list_changed", None)

    async def send_prompt_list_changed(self) -> None:
        self._notify("notifications/prompts/list_changed", None)

    async def send_elicit_complete(self, elicitation_id: str, related_request_id: Any = None) -> None:
        """``notifications/elicitation/complete`` for a URL-mode elicitation completed out of band."""
        self._notify("notifications/elicitation/complete", {"elicitationId": elicitation_id})

    def check_client_capability(self, capability: Any) -> bool:
        caps = capability.model_dump(by_alias=True, exclude_none=True) if hasattr(capability, "model_dump") else dict(capability)
        return all(self._ctx.supports(k) for k in caps)

    async def send_log_message(self, level: str, data: Any, logger: str | None = None,
                               related_request_id: Any = None) -> None:
        self._ctx.log(level, data, logger)

    async def send_progress_notification(self, progress_token: Any, progress: float, total: float | None = None,
                                         message: str | None = None, related_request_id: Any = None) -> None:
        self._ctx.progress(progress, total, message)

    async def list_roots(self) -> Any:
        roots = await self._ctx.roots()
        return AttrDict({"roots": [AttrDict(r) for r in roots]})

    async def create_message(self, messages: Any, *, max_tokens: int, system_prompt: str | None = None,
                             **kwargs: Any) -> Any:
        msgs = [m.model_dump(by_alias=True, exclude_none=True, mode="json") if hasattr(m, "model_dump") else m
                for m in messages]
        return await sample_fastmcp(self._ctx, msgs, max_tokens=max_tokens, system_prompt=system_prompt,
                                    **{k: v for k, v in kwargs.items() if v is not None})

    async def elicit(self, message: str, requestedSchema: Any = None, related_request_id: Any = None, *,
                     requested_schema: Any = None) -> Any:
        requestedSchema = requestedSchema if requestedSchema is not None else requested_schema  # mcp 2.x's name
        key = "elicit-" + hashlib.sha256(message.encode()).hexdigest()[:16]
        raw = await self._ctx._ask("elicit", key, {"mode": "form", "message": message,
                                                   "requestedSchema": requestedSchema})
        return AttrDict(raw if isinstance(raw, dict) else {"action": "cancel"})

    elicit_form = elicit

    async def elicit_url(self, message: str, url: str, elicitation_id: str, related_request_id: Any = None) -> Any:
        """A URL-mode elicitation (``mode: "url"``): the client's answer (``action``; no ``content``)."""
        raw = await self._ctx._ask("elicit", f"elicit-url-{elicitation_id}", {
            "mode": "url", "message": message, "url": url, "elicitationId": elicitation_id})
        return AttrDict({"content": None, **(raw if isinstance(raw, dict) else {"action": "cancel"})})

    async def send_resource_updated(self, uri: Any) -> None:
        server = self._ctx.server
        if server is not None and server._native is not None:
            server._native.notify_resource_updated(str(uri))


class RequestContext:
    """The SDK's ``RequestContext``: ``request_id``, ``meta``, ``session``, ``lifespan_context``."""

    def __class_getitem__(cls, _params: Any) -> type:
        return cls  # the SDK's class is generic: `RequestContext[ServerSession, Any, Any]` in annotations

    def __init__(self, ctx: Any) -> None:
        self._ctx = ctx

    @property
    def request_id(self) -> Any:
        return self._ctx.request_id

    @property
    def meta(self) -> Any:
        return AttrDict(self._ctx.meta or {})

    @property
    def session(self) -> Session:
        return Session(self._ctx)

    @property
    def lifespan_context(self) -> Any:
        return self._ctx.lifespan_context

    @property
    def request(self) -> Any:
        from .server.dependencies import http_request_of

        return http_request_of(self._ctx)
