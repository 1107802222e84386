"""``Context``: what a handler that annotates a parameter with it can ask of the request."""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Generator, Mapping

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


_SENT = _Sent()


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

    def __init__(self, native: Any = None, server: Any = None) -> None:
        self._native = native
        self._server = server

    # -- identity of the request --------------------------------------------------------------
    @property
    def request_id(self) -> Any:
        return self._native.request_id if self._native is not None else None

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
        return self._native.request_state if self._native is not None else None

    @request_state.setter
    def request_state(self, value: Any) -> None:
        if self._native is not None:
            self._native.request_state = value

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

    def log(self, level: str, data: Any, logger: str | None = None) -> _Sent:
        """Send ``notifications/message`` if the request opted in at this level or lower."""
        level = level.lower()
        if level not in LOG_LEVELS:
            raise ValueError(f"unknown log level {level!r}; one of {', '.join(LOG_LEVELS)}")
        if self._native is not None:
            self._native.log(level, data, logger)
        return _SENT

    def debug(self, data: Any, logger: str | None = None) -> _Sent:
        return self.log("debug", data, logger)

    def info(self, data: Any, logger: str | None = None) -> _Sent:
        return self.log("info", data, logger)

    def warning(self, data: Any, logger: str | None = None) -> _Sent:
        return self.log("warning", data, logger)

    def error(self, data: Any, logger: str | None = None) -> _Sent:
        return self.log("error", data, logger)

    # -- input from the client (MRTR on modern requests, real requests on legacy sessions) ------------
    async def elicit(self, key: str, message: str, schema: Any = None, *, mode: str = "form",
                     url: str | None = None) -> ElicitResult:
        """Ask the user for input. ``schema`` is a JSON Schema dict or a type (pydantic model, dataclass, TypedDict).

        ``key`` names this question across MRTR rounds: ask with the same key on every round.
        With a type as schema, accepted content is converted into that type.
        """
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

    async def sample(self, key: str, messages: Any, *, max_tokens: int = 512, system_prompt: str | None = None,
                     **params: Any) -> dict[str, Any]:
        """Ask the client's model (``sampling/createMessage``); ``messages`` may be a plain ``str``."""
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

    list_roots = roots

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
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[tuple[str, Any]] = loop.create_future()

        def settle(outcome: str, value: Any) -> None:
            # Called from a core thread; hand the answer to this request's loop.
            loop.call_soon_threadsafe(_set, fut, (outcome, value))

        self._native.ask(kind, key, params, settle)
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
