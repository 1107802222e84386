"""``fastmcp.server.middleware.error_handling``: ``ErrorHandlingMiddleware`` (log, count and map the
exceptions a request raises to JSON-RPC errors) and ``RetryMiddleware`` (retry transient failures).

They see what the chain below them raises. On oxmcp a tool's own exception has already become its
``isError`` result when it reaches the chain (the core's rule for ``tools/call``), so these see the
errors a middleware below them, or a resource, prompt or the core, raise.
"""

from __future__ import annotations

import asyncio
import logging
import traceback
from collections.abc import Callable
from typing import Any

from ..._errors import McpError
from ...exceptions import NotFoundError, ValidationError
from ...shared.exceptions import MCPError
from . import CallNext, Middleware, MiddlewareContext

__all__ = ["ErrorHandlingMiddleware", "RetryMiddleware"]

#: The distinct ``Type:method`` keys counted; the rest share one key, so the map stays bounded.
MAX_ERROR_KEYS = 1000
OTHER_KEY = "<other>"


class ErrorHandlingMiddleware(Middleware):
    """Logs every error a request raises (``fastmcp.errors``), counts them by type and method, calls
    ``error_callback(error, context)``, and (``transform_errors``) raises an error that is not already
    an ``MCPError`` as one with the JSON-RPC code its kind implies."""

    def __init__(self, logger: logging.Logger | None = None, include_traceback: bool = False,
                 error_callback: Callable[[Exception, MiddlewareContext], None] | None = None,
                 transform_errors: bool = True) -> None:
        self.logger = logger or logging.getLogger("fastmcp.errors")
        self.include_traceback = include_traceback
        self.error_callback = error_callback
        self.transform_errors = transform_errors
        self.error_counts: dict[str, int] = {}

    def _count(self, key: str) -> None:
        if key in self.error_counts:
            self.error_counts[key] += 1
        elif len(self.error_counts) < MAX_ERROR_KEYS - 1:
            self.error_counts[key] = 1
        else:
            self.error_counts[OTHER_KEY] = self.error_counts.get(OTHER_KEY, 0) + 1

    def _log_error(self, error: Exception, context: MiddlewareContext) -> None:
        method = context.method or "unknown"
        kind = type(error).__name__
        self._count(f"{kind}:{method}")
        message = f"Error in {method}: {kind}: {error}"
        self.logger.error(f"{message}\n{traceback.format_exc()}" if self.include_traceback else message)
        if self.error_callback is not None:
            try:
                self.error_callback(error, context)
            except Exception as callback_error:  # noqa: BLE001  a broken callback must not hide the error
                self.logger.error(f"Error in error callback: {callback_error}")

    def _transform_error(self, error: Exception, context: MiddlewareContext) -> Exception:
        # Every JSON-RPC error passes as it is: a middleware's MCPError, and the core's own errors
        # (an unknown name, invalid params), which reach the chain as oxmcp's McpError.
        if isinstance(error, McpError) or not self.transform_errors:
            return error
        # A wrapped error (``raise ToolError(...) from original``) is judged by what it wraps.
        kind = type(error.__cause__) if error.__cause__ is not None else type(error)
        if issubclass(kind, (ValueError, TypeError, ValidationError)):
            return MCPError(code=-32602, message=f"Invalid params: {error}")
        if issubclass(kind, (FileNotFoundError, KeyError, NotFoundError)):
            if (context.method or "").startswith("resources/"):
                return MCPError(code=-32002, message=f"Resource not found: {error}")
            return MCPError(code=-32001, message=f"Not found: {error}")
        if issubclass(kind, PermissionError):
            return MCPError(code=-32000, message=f"Permission denied: {error}")
        if issubclass(kind, TimeoutError):
            return MCPError(code=-32000, message=f"Request timeout: {error}")
        return MCPError(code=-32603, message=f"Internal error: {error}")

    async def on_message(self, context: MiddlewareContext, call_next: CallNext) -> Any:
        try:
            return await call_next(context)
        except Exception as error:
            self._log_error(error, context)
            transformed = self._transform_error(error, context)
            if transformed is error:
                raise
            raise transformed from error

    def get_error_stats(self) -> dict[str, int]:
        """Errors seen, by ``Type:method`` (at most 1000 keys; the rest under ``<other>``)."""
        return dict(self.error_counts)


class RetryMiddleware(Middleware):
    """Retries a request that failed with one of ``retry_exceptions`` (also as the error's direct
    cause), up to ``max_retries`` times, waiting ``base_delay * backoff_multiplier**attempt`` seconds
    (at most ``max_delay``) between tries."""

    def __init__(self, max_retries: int = 3, base_delay: float = 1.0, max_delay: float = 60.0,
                 backoff_multiplier: float = 2.0,
                 retry_exceptions: tuple[type[Exception], ...] = (ConnectionError, TimeoutError),
                 logger: logging.Logger | None = None) -> None:
        self.max_retries = max_retries
        self.base_delay = base_delay
        self.max_delay = max_delay
        self.backoff_multiplier = backoff_multiplier
        self.retry_exceptions = retry_exceptions
        self.logger = logger or logging.getLogger("fastmcp.retry")

    def _should_retry(self, error: Exception) -> bool:
        return isinstance(error, self.retry_exceptions) or isinstance(error.__cause__, self.retry_exceptions)

    def _calculate_delay(self, attempt: int) -> float:
        return min(self.base_delay * self.backoff_multiplier ** attempt, self.max_delay)

    async def on_request(self, context: MiddlewareContext, call_next: CallNext) -> Any:
        attempt = 0
        while True:
            try:
                return await call_next(context)
            except Exception as error:
                if attempt >= self.max_retries or not self._should_retry(error):
                    raise
                delay = self._calculate_delay(attempt)
                self.logger.warning(f"Request {context.method} failed (attempt {attempt + 1}/"
                                    f"{self.max_retries + 1}): {type(error).__name__}: {error}. "
                                    f"Retrying in {delay:.1f}s...")
                await asyncio.sleep(delay)
                attempt += 1
