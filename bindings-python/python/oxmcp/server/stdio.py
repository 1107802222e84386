"""``mcp.server.stdio.stdio_server()``: stdin/stdout as a low-level server's streams.

On the process's own stdin/stdout the Rust core owns stdio (a reader thread, one writer), so the
streams yielded are tokens: ``await server.run(read, write, options)`` with them serves stdio natively.

With ``stdin``/``stdout`` given (``anyio.AsyncFile``s of text, as the SDK takes them), or with ``sys.stdin``
and ``sys.stdout`` both replaced by in-memory files, the streams are
message streams: each line read becomes a ``SessionMessage`` (or the exception its parsing raised),
each message written one line. ``Server.run`` serves them through the core like any message streams.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import AsyncIterator
from io import TextIOWrapper
from typing import Any

from ..shared.message import encode, session_message

__all__ = ["StdioStream", "stdio_server"]


class StdioStream:
    """A token standing for the process's stdin or stdout; only ``Server.run`` consumes it."""

    def __init__(self, kind: str) -> None:
        self.kind = kind

    def __repr__(self) -> str:
        return f"<oxmcp stdio {self.kind}>"


@contextlib.asynccontextmanager
async def stdio_server(stdin: Any = None, stdout: Any = None) -> AsyncIterator[tuple[Any, Any]]:
    if stdin is None and stdout is None:
        if _on_process_descriptors():
            yield StdioStream("read"), StdioStream("write")
            return
        # sys.stdin/sys.stdout replaced by in-memory files: read and write those,
        # as the SDK does (UTF-8, undecodable input replaced, so that it fails as a parse error).
        import anyio

        stdin = anyio.wrap_file(TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace"))
        stdout = anyio.wrap_file(TextIOWrapper(sys.stdout.buffer, encoding="utf-8"))
    if stdin is None or stdout is None:
        raise TypeError("stdio_server(stdin=, stdout=): give both streams, or neither for the process's own")
    async with _injected(stdin, stdout) as streams:
        yield streams


def _on_process_descriptors() -> bool:
    """Whether ``sys.stdin`` or ``sys.stdout`` is a file of the operating system (the core then serves
    descriptors 0 and 1 itself), rather than both being in-memory files the program put there."""

    def os_file(f: Any) -> bool:
        try:
            f.fileno()
        except (OSError, ValueError):  # io.UnsupportedOperation: an in-memory file
            return False
        except AttributeError:  # no such stream at all
            return True
        return True

    return os_file(sys.stdin) or os_file(sys.stdout) or not hasattr(sys.stdin, "buffer")


@contextlib.asynccontextmanager
async def _injected(stdin: Any, stdout: Any) -> AsyncIterator[tuple[Any, Any]]:
    import anyio

    read_writer, read_stream = anyio.create_memory_object_stream[Any](0)
    write_stream, write_reader = anyio.create_memory_object_stream[Any](0)

    async def reader() -> None:
        try:
            async with read_writer:
                async for line in stdin:
                    if not line.strip():
                        continue
                    try:
                        message: Any = session_message(line)
                    except Exception as exc:  # noqa: BLE001  handed on, as the SDK does
                        message = exc
                    await read_writer.send(message)
        except anyio.ClosedResourceError:
            await anyio.lowlevel.checkpoint()

    async def writer() -> None:
        try:
            async with write_reader:
                async for item in write_reader:
                    await stdout.write(encode(item.message).decode() + "\n")
                    await stdout.flush()
        except anyio.ClosedResourceError:
            await anyio.lowlevel.checkpoint()

    async with anyio.create_task_group() as tg:
        tg.start_soon(reader)
        tg.start_soon(writer)
        yield read_stream, write_stream
