"""``fastmcp.server.middleware.timing``: middleware that logs how long requests take."""

from __future__ import annotations

import logging
import time
from typing import Any

from . import CallNext, Middleware, MiddlewareContext

__all__ = ["DetailedTimingMiddleware", "TimingMiddleware"]


async def _timed(logger: logging.Logger, level: int, what: str, context: MiddlewareContext,
                 call_next: CallNext) -> Any:
    start = time.perf_counter()
    try:
        result = await call_next(context)
    except Exception as exc:
        logger.log(level, f"{what} failed after {(time.perf_counter() - start) * 1000:.2f}ms: {exc}")
        raise
    logger.log(level, f"{what} completed in {(time.perf_counter() - start) * 1000:.2f}ms")
    return result


class TimingMiddleware(Middleware):
    """Logs each request's duration (``Request tools/call completed in 1.23ms``) on ``fastmcp.timing``."""

    def __init__(self, logger: logging.Logger | None = None, log_level: int = logging.INFO) -> None:
        self.logger = logger or logging.getLogger("fastmcp.timing")
        self.log_level = log_level

    async def on_request(self, context: MiddlewareContext, call_next: CallNext) -> Any:
        return await _timed(self.logger, self.log_level, f"Request {context.method or 'unknown'}", context,
                            call_next)


class DetailedTimingMiddleware(Middleware):
    """Logs the duration of each operation by what it is on (``Tool 'add' completed in ...``) on
    ``fastmcp.timing.detailed``."""

    def __init__(self, logger: logging.Logger | None = None, log_level: int = logging.INFO) -> None:
        self.logger = logger or logging.getLogger("fastmcp.timing.detailed")
        self.log_level = log_level

    async def _time(self, what: str, context: MiddlewareContext, call_next: CallNext) -> Any:
        return await _timed(self.logger, self.log_level, what, context, call_next)

    async def on_call_tool(self, context: MiddlewareContext, call_next: CallNext) -> Any:
        return await self._time(f"Tool '{getattr(context.message, 'name', 'unknown')}'", context, call_next)

    async def on_read_resource(self, context: MiddlewareContext, call_next: CallNext) -> Any:
        return await self._time(f"Resource '{getattr(context.message, 'uri', 'unknown')}'", context, call_next)

    async def on_get_prompt(self, context: MiddlewareContext, call_next: CallNext) -> Any:
        return await self._time(f"Prompt '{getattr(context.message, 'name', 'unknown')}'", context, call_next)

    async def on_list_tools(self, context: MiddlewareContext, call_next: CallNext) -> Any:
        return await self._time("List tools", context, call_next)

    async def on_list_resources(self, context: MiddlewareContext, call_next: CallNext) -> Any:
        return await self._time("List resources", context, call_next)

    async def on_list_resource_templates(self, context: MiddlewareContext, call_next: CallNext) -> Any:
        return await self._time("List resource templates", context, call_next)

    async def on_list_prompts(self, context: MiddlewareContext, call_next: CallNext) -> Any:
        return await self._time("List prompts", context, call_next)
