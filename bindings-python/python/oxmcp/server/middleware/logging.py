"""``fastmcp.server.middleware.logging``: middleware that logs each message (start, success with its
duration, or error), as ``key=value`` text (``LoggingMiddleware``) or JSON
(``StructuredLoggingMiddleware``), optionally with the payload, its length and a token estimate."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from typing import Any

from . import CallNext, Middleware, MiddlewareContext

__all__ = ["LoggingMiddleware", "StructuredLoggingMiddleware", "default_serializer"]

Fields = dict[str, str | int | float]


def default_serializer(data: Any) -> str:
    """A payload as compact JSON (values JSON cannot hold as their ``str``)."""
    import pydantic_core

    return pydantic_core.to_json(data, fallback=str).decode()


class _MessageLogging(Middleware):
    logger: logging.Logger
    log_level: int
    include_payloads: bool
    include_payload_length: bool
    estimate_payload_tokens: bool
    max_payload_length: int | None
    methods: list[str] | None
    payload_serializer: Callable[[Any], str] | None
    structured_logging: bool

    def _serialize_payload(self, context: MiddlewareContext) -> str:
        if self.payload_serializer is None:
            return default_serializer(context.message)
        try:
            return self.payload_serializer(context.message)
        except Exception as exc:  # noqa: BLE001  a broken serializer must not fail the request
            self.logger.warning(f"Failed to serialize payload due to {exc}: {context.type} {context.method} "
                                f"{context.source}.")
            return default_serializer(context.message)

    def _fields(self, context: MiddlewareContext, event: str) -> Fields:
        return {"event": f"{context.type}_{event}", "method": context.method or "unknown", "source": context.source}

    def _create_before_message(self, context: MiddlewareContext) -> Fields:
        """The start record: the event, method and source, and what was asked of the payload."""
        fields = self._fields(context, "start")
        if self.include_payloads or self.include_payload_length or self.estimate_payload_tokens:
            payload = self._serialize_payload(context)
            if self.estimate_payload_tokens:
                fields["payload_tokens"] = len(payload) // 4  # a rough estimate: 4 characters a token
            if self.include_payload_length:
                fields["payload_length"] = len(payload)
            if self.max_payload_length and len(payload) > self.max_payload_length:
                payload = payload[:self.max_payload_length] + "..."
            if self.include_payloads:
                fields["payload"] = payload
                fields["payload_type"] = type(context.message).__name__
        return fields

    def _create_after_message(self, context: MiddlewareContext, start_time: float) -> Fields:
        fields = self._fields(context, "success")
        fields["duration_ms"] = _get_duration_ms(start_time)
        return fields

    def _create_error_message(self, context: MiddlewareContext, start_time: float, error: Exception) -> Fields:
        fields = self._fields(context, "error")
        fields["duration_ms"] = _get_duration_ms(start_time)
        fields["error"] = str(error)
        return fields

    def _format_message(self, message: Fields) -> str:
        return json.dumps(message) if self.structured_logging else " ".join(f"{k}={v}" for k, v in message.items())

    def _log_message(self, message: Fields, log_level: int | None = None) -> None:
        self.logger.log(log_level or self.log_level, self._format_message(message))

    async def on_message(self, context: MiddlewareContext, call_next: CallNext) -> Any:
        if self.methods is not None and context.method not in self.methods:
            return await call_next(context)
        self._log_message(self._create_before_message(context))
        start = time.perf_counter()
        try:
            result = await call_next(context)
        except Exception as exc:
            self._log_message(self._create_error_message(context, start, exc), logging.ERROR)
            raise
        self._log_message(self._create_after_message(context, start))
        return result


def _get_duration_ms(start: float, /) -> float:
    return round((time.perf_counter() - start) * 1000, 2)


class LoggingMiddleware(_MessageLogging):
    """Logs every message as ``key=value`` text on ``fastmcp.middleware.logging``."""

    def __init__(self, *, logger: logging.Logger | None = None, log_level: int = logging.INFO,
                 include_payloads: bool = False, include_payload_length: bool = False,
                 estimate_payload_tokens: bool = False, max_payload_length: int = 1000,
                 methods: list[str] | None = None, payload_serializer: Callable[[Any], str] | None = None) -> None:
        self.logger = logger or logging.getLogger("fastmcp.middleware.logging")
        self.log_level = log_level
        self.include_payloads = include_payloads
        self.include_payload_length = include_payload_length
        self.estimate_payload_tokens = estimate_payload_tokens
        self.max_payload_length = max_payload_length
        self.methods = methods
        self.payload_serializer = payload_serializer
        self.structured_logging = False


class StructuredLoggingMiddleware(_MessageLogging):
    """Logs every message as one JSON object on ``fastmcp.middleware.structured_logging``."""

    def __init__(self, *, logger: logging.Logger | None = None, log_level: int = logging.INFO,
                 include_payloads: bool = False, include_payload_length: bool = False,
                 estimate_payload_tokens: bool = False, methods: list[str] | None = None,
                 payload_serializer: Callable[[Any], str] | None = None) -> None:
        self.logger = logger or logging.getLogger("fastmcp.middleware.structured_logging")
        self.log_level = log_level
        self.include_payloads = include_payloads
        self.include_payload_length = include_payload_length
        self.estimate_payload_tokens = estimate_payload_tokens
        self.max_payload_length = None
        self.methods = methods
        self.payload_serializer = payload_serializer
        self.structured_logging = True
