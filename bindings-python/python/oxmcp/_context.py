"""``Context``: what a handler that annotates a parameter with it can ask of the request."""

from __future__ import annotations

import asyncio
import contextvars
import json
import logging
import time
import weakref
from collections import OrderedDict
from collections.abc import Callable, Generator, Mapping
from typing import Any

from typing_extensions import Self

from ._errors import InputRequired, McpError, RequestCancelled

__all__ = ["Context", "ElicitResult"]

LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")

_log = logging.getLogger("oxmcp")


class _Sent:
    """Returned by ``progress``/``log``: the notification is already queued, so awaiting is optional.

    Sync handlers call ``ctx.progress(...)``; async handlers may ``await ctx.progress(...)``.
    """

    __slots__ = ()

    def __await__(self) -> Generator[Any, None, None]:
        return
        yield  # pragma: no cover  (makes this a generator)


#: The transport FastMCP's ``set_transport`` names for the code that runs in this context.
TRANSPORT: contextvars.ContextVar[str | None] = contextvars.ContextVar("oxmcp_transport", default=None)

_SENT = _Sent()
_UNSET: Any = object()
_STDIO_SESSION = __import__("uuid").uuid4().hex
# Session state (ctx.set_state) per legacy session id, least recently used first. Bounded: sessions
# end without telling Python, so the oldest stores are dropped past this many sessions, and a
# session's state is dropped after a day unused (FastMCP 4 keeps it for a day too).
_SESSION_STORES: OrderedDict[str, tuple[float, dict[str, Any]]] = OrderedDict()
_MAX_SESSION_STORES = 10_000
_SESSION_STATE_TTL_S = 86_400.0


def _session_store(ctx: Context) -> dict[str, Any]:
    # A context made outside a request for a given session object (FastMCP's
    # ``Context(fastmcp=server, session=s)``) shares that session's state.
    own = ctx._native is None and ctx._session is not None
    sid = f"object:{id(ctx._session)}" if own else ctx.session_id or ""
    if ctx.era != "legacy" and not own:
        store = ctx._request_state.get("_oxmcp_store")
        if store is None:
            store = ctx._request_state["_oxmcp_store"] = {}
        return store
    now = time.monotonic()
    # A session object's finalizer (below) may drop an entry at any allocation, so the store may
    # empty between any two steps here.
    while (first := next(iter(_SESSION_STORES.items()), None)) is not None:
        oldest, (seen, _) = first
        if len(_SESSION_STORES) < _MAX_SESSION_STORES and now - seen < _SESSION_STATE_TTL_S:
            break
        _SESSION_STORES.pop(oldest, None)
    known = sid in _SESSION_STORES
    _, store = _SESSION_STORES.pop(sid, (now, {}))
    _SESSION_STORES[sid] = (now, store)
    if own and not known:
        # Keyed by the object's id, which a later object may reuse: its state ends with it.
        try:
            weakref.finalize(ctx._session, _SESSION_STORES.pop, sid, None)
        except TypeError:  # an object without weak references keeps its state until dropped
            pass
    return store


class ElicitResult:
    """The client's answer to an elicitation: ``action`` is accept, decline or cancel."""

    def __init__(self, action: str, content: Any = None, raw: Mapping[str, Any] | None = None) -> None:
        self.action = action
        self.content = content
        self.raw = dict(raw or {})

    @property
    def accepted(self) -> bool:
        return self.action == "accept"

    def __repr__(self) -> str:
        return f"ElicitResult(action={self.action!r}, content={self.content!r})"


class Context:
    """Per-request view of the core's context; injected into handlers that annotate a parameter with it.

    Outside a request (calling the decorated function directly) every accessor returns an empty value,
    ``progress``/``log`` do nothing, and the client-input methods raise :class:`McpError`.
    """

    def __init__(self, native: Any = None, server: Any = None, *, fastmcp: Any = None, session: Any = None) -> None:
        self._native = native
        self._server = server if server is not None else fastmcp
        #: FastMCP's ``Context(fastmcp=server, session=s)`` outside a request: the session whose
        #: state ``get_state``/``set_state`` share.
        self._session = session
        self._request_state: dict[str, Any] = {}

    async def __aenter__(self) -> Self:
        """``async with Context(fastmcp=server) as ctx:`` (FastMCP's spelling of a context outside a
        request): inside the block it is the current context (``get_context()``, a ``Context``
        parameter of a component called there), as in FastMCP."""
        from .server.dependencies import current_context

        self.__dict__.setdefault("_entered", []).append(current_context.set(self))
        return self

    async def __aexit__(self, *exc: object) -> None:
        from .server.dependencies import current_context

        current_context.reset(self.__dict__["_entered"].pop())

    def __class_getitem__(cls, params: Any) -> Any:
        """``Context[ServerSession, AppState]`` (the SDKs' generic spelling) is ``Context``."""
        return cls

    # -- FastMCP / SDK names -----------------------------------------------------------------------
    @property
    def fastmcp(self) -> Any:
        return self._server

    @property
    def lifespan_context(self) -> Any:
        """What the server's ``lifespan=`` context manager yielded (``{}`` without one)."""
        return getattr(self._server, "lifespan_context", None) if self._server is not None else None

    @property
    def request_context(self) -> Any:
        """The SDK's ``RequestContext``: ``request_id``, ``meta``, ``lifespan_context``, ``session``."""
        from ._compat_ctx import RequestContext

        return RequestContext(self)

    @property
    def session(self) -> Any:
        from ._compat_ctx import Session

        return Session(self)

    @property
    def session_id(self) -> str | None:
        """The legacy session's id (``Mcp-Session-Id`` on HTTP, one per process on stdio); on modern
        requests, which have no session, a fresh id per request (as FastMCP 4 does)."""
        if self._native is None:
            return None
        sid = getattr(self._native, "session_id", None)
        if sid:
            return str(sid)
        if self.era == "legacy" and self.transport == "stdio":
            return _STDIO_SESSION
        key = "_oxmcp_request_session_id"
        if key not in self._request_state:
            import uuid

            self._request_state[key] = uuid.uuid4().hex
        return self._request_state[key]

    @property
    def client_id(self) -> str | None:
        cid = self.meta.get("client_id") if isinstance(self.meta, dict) else None
        return None if cid is None else str(cid)

    @property
    def transport(self) -> str | None:
        """``"stdio"`` or ``"streamable-http"`` (None outside a request); what ``set_transport`` set,
        where it was."""
        override = TRANSPORT.get()
        if override is not None:
            return override
        if self._native is None:
            return None
        t: str | None = getattr(self._native, "transport", None)
        if t is None:
            return None
        return {"http": "streamable-http", "stdio": "stdio"}.get(t, t)

    # -- state (FastMCP 4's scope: the legacy session, or this one request on modern) ----------------
    async def set_state(self, key: str, value: Any, *, serializable: bool = True) -> None:
        """Store ``value`` for later calls in this session (legacy era); on modern requests, which have
        no session, state lives for this request only. ``serializable=False``: this request only."""
        if not serializable:
            self._request_state[key] = value
            return
        import json

        try:
            json.dumps(value)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"Value for state key {key!r} is not serializable. Use set_state({key!r}, value, "
                            "serializable=False) to store non-serializable values (request-scoped).") from exc
        self._request_state.pop(key, None)
        _session_store(self)[key] = value

    async def get_state(self, key: str) -> Any:
        if key in self._request_state:
            return self._request_state[key]
        return _session_store(self).get(key)

    async def delete_state(self, key: str) -> None:
        self._request_state.pop(key, None)
        _session_store(self).pop(key, None)

    # -- this server's own lists (FastMCP's ctx.list_tools/list_resources/list_prompts) -----------------
    async def list_tools(self) -> list[Any]:
        return await self._list("list_tools", "tools")

    async def list_resources(self) -> list[Any]:
        return await self._list("list_resources", "resources")

    async def list_prompts(self) -> list[Any]:
        return await self._list("list_prompts", "prompts")

    async def _list(self, method: str, field: str) -> list[Any]:
        """Every page of a list as a client of this server gets it (the SDK's models): asked through
        the core, which decides what may be listed."""
        from .client import Client

        if self._server is None:
            raise McpError(-32603, f"no server: {method} needs a request context or Context(fastmcp=server)")
        out: list[Any] = []
        async with Client(self._server) as client:
            cursor = None
            while True:
                page = await getattr(client, method)(cursor)
                out.extend(getattr(page, field))
                cursor = page.next_cursor
                if not cursor:
                    return out

    # -- reading this server's own resources ------------------------------------------------------------
    async def read_resource(self, uri: Any) -> Any:
        """Read one of this server's resources in-process (templates included)."""
        from ._inproc import read_resource

        return await read_resource(self._server, str(uri), self)

    def get_http_request(self) -> Any:
        """The HTTP request that carried this message (a Starlette ``Request``); ``RuntimeError`` on
        stdio, as FastMCP."""
        from .server.dependencies import http_request_of

        request = http_request_of(self)
        if request is None:
            raise RuntimeError("No active HTTP request found.")
        return request

    def get_access_token(self) -> Any:
        from .server.dependencies import get_access_token

        return get_access_token()

    # -- identity of the request --------------------------------------------------------------
    @property
    def request_id(self) -> Any:
        if self._native is None:
            return None
        rid = self._native.request_id
        return str(rid) if getattr(self._server, "_str_request_id", False) else rid

    @property
    def protocol_version(self) -> str | None:
        return self._native.protocol_version if self._native is not None else None

    @property
    def era(self) -> str | None:
        """``"modern"`` (2026-07-28, stateless) or ``"legacy"`` (an ``initialize`` session)."""
        return self._native.era if self._native is not None else None

    @property
    def client_info(self) -> dict[str, Any] | None:
        return self._native.client_info if self._native is not None else None

    @property
    def client_capabilities(self) -> dict[str, Any]:
        return self._native.client_capabilities if self._native is not None else {}

    @property
    def caller(self) -> dict[str, Any] | None:
        """The authenticated caller, when the transport carries one."""
        return self._native.caller if self._native is not None else None

    @property
    def meta(self) -> dict[str, Any]:
        return self._native.meta if self._native is not None else {}

    @property
    def traceparent(self) -> str | None:
        return self._native.traceparent if self._native is not None else None

    @property
    def cancelled(self) -> bool:
        """True once the client cancelled this request; long sync handlers should poll it."""
        return bool(self._native.cancelled) if self._native is not None else False

    @property
    def request_state(self) -> Any:
        """State carried across MRTR rounds (sealed by the core, so the client cannot alter it)."""
        from . import _rounds

        return _rounds.request_state(self._native)

    @request_state.setter
    def request_state(self, value: Any) -> None:
        if self._native is not None:
            self._native.request_state = value

    @property
    def input_responses(self) -> dict[str, Any] | None:
        """The client's answers to the requests of the ``InputRequiredResult`` the function returned
        on the last round (mcp 2.x), by key; None on a first round."""
        from . import _rounds

        return _rounds.input_responses(self._native)

    def supports(self, capability: str) -> bool:
        """Whether the client declared ``elicitation``, ``sampling``, ``roots`` or ``elicitation.url``."""
        return bool(self._native.supports(capability)) if self._native is not None else False

    @property
    def server(self) -> Any:
        return self._server

    # -- notifications ----------------------------------------------------------------------------
    def progress(self, progress: float, total: float | None = None, message: str | None = None) -> _Sent:
        """Send ``notifications/progress`` (nothing happens when the request carried no progressToken)."""
        if self._native is not None:
            self._native.progress(float(progress), None if total is None else float(total), message)
        return _SENT

    report_progress = progress

    def log(self, *args: Any, **kwargs: Any) -> _Sent:
        """Send ``notifications/message`` if the request opted in at this level or lower.

        ``log(level, data, logger=None)``, or FastMCP's ``log(message, level=None, logger_name=None, extra=None)``.
        """
        extra = kwargs.pop("extra", None)
        logger = kwargs.pop("logger", None) or kwargs.pop("logger_name", None)
        if "message" in kwargs or "level" in kwargs or len(args) < 2 or (
                isinstance(args[1], str) and args[1].lower() in LOG_LEVELS):
            data = kwargs.pop("message", args[0] if args else None)
            level = kwargs.pop("level", args[1] if len(args) > 1 else None) or "info"
            if len(args) > 2 and logger is None:
                logger = args[2]
        else:
            level, data = args[0], args[1]
            if len(args) > 2 and logger is None:
                logger = args[2]
        if kwargs:
            raise TypeError(f"log() got unexpected keyword argument(s): {', '.join(kwargs)}")
        if getattr(self._server, "_fastmcp_log_data", False):
            data = {"msg": data, "extra": dict(extra) if extra else None}  # FastMCP 4's LogData
        elif extra:
            data = {"msg": data, "extra": dict(extra)}
        if not isinstance(level, str):
            raise TypeError("log level must be a string")
        level = level.lower()
        if level not in LOG_LEVELS:
            raise ValueError(f"unknown log level {level!r}; one of {', '.join(LOG_LEVELS)}")
        if getattr(self._server, "_fastmcp_log_data", False):
            # FastMCP's server-side copy of what is sent, on the logger it names for it.
            logging.getLogger("fastmcp.server.context.to_client").debug(
                "Sending %s to client: %s", level.upper(), data["msg"])
        if self._native is not None:
            self._native.log(level, data, logger)
        return _SENT

    def debug(self, data: Any, logger: str | None = None, *, logger_name: str | None = None,
              extra: Mapping[str, Any] | None = None) -> _Sent:
        return self.log("debug", data, logger or logger_name, extra=extra)

    def info(self, data: Any, logger: str | None = None, *, logger_name: str | None = None,
              extra: Mapping[str, Any] | None = None) -> _Sent:
        return self.log("info", data, logger or logger_name, extra=extra)

    def warning(self, data: Any, logger: str | None = None, *, logger_name: str | None = None,
              extra: Mapping[str, Any] | None = None) -> _Sent:
        return self.log("warning", data, logger or logger_name, extra=extra)

    def error(self, data: Any, logger: str | None = None, *, logger_name: str | None = None,
              extra: Mapping[str, Any] | None = None) -> _Sent:
        return self.log("error", data, logger or logger_name, extra=extra)

    # -- input from the client (MRTR on modern requests, real requests on legacy sessions) ------------
    async def elicit(self, key: Any = _UNSET, message: Any = _UNSET, schema: Any = None, *, mode: str = "form",
                     url: str | None = None, response_type: Any = _UNSET) -> Any:
        """Ask the user for input. ``schema`` is a JSON Schema dict or a type (pydantic model, dataclass, TypedDict).

        ``key`` names this question across MRTR rounds: ask with the same key on every round.
        With a type as schema, accepted content is converted into that type.

        FastMCP's form, ``elicit(message, response_type=T)``, is accepted too: it returns an object with
        ``.action`` and ``.data``; a scalar ``T`` (``str``, ``int``, ``list[str]`` of choices, a Literal,
        an Enum) is asked as ``{"value": T}`` and ``.data`` is the bare value.
        """
        if key is _UNSET or (message is _UNSET and schema is not None and response_type is _UNSET):
            # The SDK's form, ``elicit(message, schema=Model)``: its rule for the model (primitive
            # fields), then typed as FastMCP's, keyed by the question.
            from ._compat_ctx import elicit_typed
            from .server.elicitation import render_form_schema, validate_elicitation_schema

            if key is not _UNSET:
                message = key
            # mcp 2.x refuses a field its rendering cannot write as a primitive schema (TypeError
            # naming the rendering); mcp 1.x by the field's type, and writes Optional as pydantic does.
            if getattr(self._server, "_sdk2", False):
                requested = render_form_schema(schema)
            else:
                validate_elicitation_schema(schema)
                requested = None
            return await elicit_typed(self, message, schema, requested)
        if response_type is not _UNSET or message is _UNSET or not isinstance(message, str):
            from ._compat_ctx import elicit_typed

            if message is not _UNSET and response_type is _UNSET:
                response_type = message
            return await elicit_typed(self, key, None if response_type is _UNSET else response_type)
        params: dict[str, Any] = {"mode": mode, "message": message}
        target: Any = None
        if mode == "url":
            if url is None:
                raise ValueError("url-mode elicitation needs url=")
            params["url"] = url
        else:
            if schema is None:
                schema = {"type": "object", "properties": {}}
            if not isinstance(schema, dict):
                from ._schema import schema_for_type

                target = schema
                schema = schema_for_type(schema, mode="validation")
                schema.pop("title", None)
            params["requestedSchema"] = schema
        raw = await self._ask("elicit", key, params)
        action = raw.get("action", "cancel") if isinstance(raw, dict) else "cancel"
        content = raw.get("content") if isinstance(raw, dict) else None
        if target is not None and action == "accept" and content is not None:
            import pydantic

            content = pydantic.TypeAdapter(target).validate_python(content)
        return ElicitResult(action, content, raw if isinstance(raw, dict) else None)

    async def elicit_url(self, message: str, url: str, elicitation_id: str) -> Any:
        """The SDK's URL-mode elicitation: whether the user accepted to visit ``url``."""
        from .server.elicitation import elicit_url

        return await elicit_url(self.session, message, url, elicitation_id)

    async def sample(self, key: Any, messages: Any = _UNSET, *, max_tokens: int | None = None,
                     system_prompt: str | None = None, **params: Any) -> Any:
        """Ask the client's model (``sampling/createMessage``); ``messages`` may be a plain ``str``.

        FastMCP's form, ``sample(messages, system_prompt=..., temperature=..., max_tokens=...)``, returns
        an object with ``.text`` (and the result's fields).
        """
        if messages is _UNSET:
            from ._compat_ctx import sample_fastmcp

            return await sample_fastmcp(self, key, max_tokens=max_tokens, system_prompt=system_prompt, **params)
        if max_tokens is None:
            max_tokens = 512
        if isinstance(messages, str):
            messages = [{"role": "user", "content": {"type": "text", "text": messages}}]
        body: dict[str, Any] = {"messages": messages, "maxTokens": max_tokens}
        if system_prompt is not None:
            body["systemPrompt"] = system_prompt
        body.update(params)
        result = await self._ask("sample", key, body)
        return result if isinstance(result, dict) else {}

    async def roots(self, key: str = "roots") -> list[dict[str, Any]]:
        """The client's roots (``roots/list``)."""
        result = await self._ask("roots", key, None)
        return list(result.get("roots", [])) if isinstance(result, dict) else []

    async def list_roots(self) -> list[Any]:
        """The client's roots, as objects with ``.uri`` and ``.name`` (they are dicts too)."""
        from ._compat_ctx import AttrDict

        return [AttrDict(r) for r in await self.roots()]

    async def inputs(self, requests: Mapping[str, tuple[str, Any]]) -> dict[str, Any]:
        """Ask several things in one MRTR round: ``{"key": ("elicit" | "sample" | "roots", params)}``.

        Returns ``{key: answer}`` once all are answered (the raw ``ElicitResult``/``CreateMessageResult``/
        ``ListRootsResult`` dicts). Prefer this to ``asyncio.gather`` of single asks: it puts every
        request into the same ``input_required`` result.
        """
        items = [[key, kind, params] for key, (kind, params) in requests.items()]
        answers = await self._ask("many", "", items)
        return dict(zip(requests.keys(), answers))

    async def _ask(self, kind: str, key: str, params: Any) -> Any:
        if self._native is None:
            raise McpError(-32603, "no request in progress: client input is unavailable")
        native = self._native
        value = await settled_by_core(lambda settle: native.ask(kind, key, params, settle), key)
        if kind == "many":
            return [_as_written(native, item[0], v) for item, v in zip(params, value, strict=False)]
        return _as_written(native, key, value)


def _as_written(native: Any, key: str, value: Any) -> Any:
    """Input ``key``'s answer as the client wrote it, where a legacy transport kept its text: the
    core's parsed objects have their keys sorted, a dict keeps the client's order."""
    text = native.answer_text(key)
    return value if text is None else json.loads(text)


async def settled_by_core(start: Callable[[Callable[[str, Any], None]], None], key: str | None) -> Any:
    """Start a core operation that answers through a ``settle(outcome, value)`` callback (called
    from a core thread) and wait for it on this request's loop: the value, or its outcome raised
    (``input_required`` for ``key``, ``cancelled``, or an MCP error)."""
    loop = asyncio.get_running_loop()
    fut: asyncio.Future[tuple[str, Any]] = loop.create_future()

    def settle(outcome: str, value: Any) -> None:
        loop.call_soon_threadsafe(_set, fut, (outcome, value))

    start(settle)
    outcome, value = await fut
    if outcome == "ok":
        return value
    if outcome == "input_required":
        raise InputRequired(key)
    if outcome == "cancelled":
        raise RequestCancelled()
    code, message, data = value
    raise McpError(code, message, data)


def _set(fut: asyncio.Future[Any], value: Any) -> None:
    if not fut.done():
        fut.set_result(value)
