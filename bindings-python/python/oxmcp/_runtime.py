"""Glue the native module calls: start a handler coroutine on the asyncio loop and report back.

The native dispatcher thread calls :func:`submit` (holding the GIL only for that call); the task
then runs on ``loop`` and ``done(outcome)`` is called from the loop thread when it ends.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

_log = logging.getLogger("oxmcp")


class Job:
    """Handle for one scheduled handler; ``cancel()`` is thread-safe."""

    __slots__ = ("cancelled", "loop", "task")

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


def settle(fut: asyncio.Future[Any], value: Any) -> None:
    """Set a future's result unless it was cancelled meanwhile (runs on the loop thread)."""
    if not fut.done():
        fut.set_result(value)


def _settle_either(fut: asyncio.Future[Any], ok: bool, value: Any) -> None:
    if not fut.done():
        if ok:
            fut.set_result(value)
        else:
            fut.set_exception(value)


def deliver(loop: asyncio.AbstractEventLoop, fut: asyncio.Future[Any], ok: bool, value: Any) -> None:
    """From a native thread: settle ``fut`` on its loop with a result (``ok``) or an exception."""
    try:
        loop.call_soon_threadsafe(_settle_either, fut, ok, value)
    except RuntimeError:  # the loop is closed: nobody is waiting any more
        pass


#: How long, at interpreter exit, to wait for native threads still running Python (a sync
#: handler that outlived the drain deadline) before finalizing anyway.
EXIT_WAIT_SECONDS = 5.0

_hooks_installed = False


def _at_exit() -> None:
    from . import _oxmcp

    inside = _oxmcp.quiesce(EXIT_WAIT_SECONDS)
    if inside:
        _log.warning("%d handler thread(s) still running Python at exit (a sync handler that ignores "
                     "ctx.cancelled?); finalizing anyway", inside)
    _oxmcp.flush_telemetry()  # spans still queued for OTLP export (OTEL_EXPORTER_OTLP_ENDPOINT)


def _after_fork_in_child() -> None:
    from . import _oxmcp

    _oxmcp.after_fork()


def install_process_hooks() -> None:
    """Called once by the native module at import: the exit barrier and the fork reset."""
    global _hooks_installed
    if _hooks_installed:
        return
    _hooks_installed = True
    import atexit
    import os

    atexit.register(_at_exit)
    if hasattr(os, "register_at_fork"):
        os.register_at_fork(after_in_child=_after_fork_in_child)
