"""Glue the native module calls: start a handler coroutine on the asyncio loop and report back.

The native dispatcher thread calls :func:`submit` (holding the GIL only for that call); the task
then runs on ``loop`` and ``done(outcome)`` is called from the loop thread when it ends.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Callable

_log = logging.getLogger("oxmcp")


class Job:
    """Handle for one scheduled handler; ``cancel()`` is thread-safe."""

    __slots__ = ("loop", "task", "cancelled")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.task: asyncio.Task[Any] | None = None
        self.cancelled = False

    def cancel(self) -> None:
        try:
            self.loop.call_soon_threadsafe(self._cancel)
        except RuntimeError:  # loop closed
            pass

    def _cancel(self) -> None:
        self.cancelled = True
        if self.task is not None:
            self.task.cancel()


def submit(loop: asyncio.AbstractEventLoop, fn: Callable[..., Any], payload: Any, native_ctx: Any,
           done: Callable[[Any], None]) -> Job:
    job = Job(loop)

    def start() -> None:
        if job.cancelled:
            done(("cancelled", None))
            return
        task = loop.create_task(fn(payload, native_ctx))
        job.task = task
        task.add_done_callback(lambda t: done(_outcome(t)))

    try:
        loop.call_soon_threadsafe(start)
    except RuntimeError:
        done(("mcp_error", (-32603, "The server is shutting down", None)))
    return job


def _outcome(task: asyncio.Task[Any]) -> Any:
    if task.cancelled():
        return ("cancelled", None)
    exc = task.exception()
    if exc is not None:
        _log.error("handler failed", exc_info=exc)
        return ("mcp_error", (-32603, "Internal error", None))
    return task.result()


def settle(fut: "asyncio.Future[Any]", value: Any) -> None:
    """Set a future's result unless it was cancelled meanwhile (runs on the loop thread)."""
    if not fut.done():
        fut.set_result(value)
