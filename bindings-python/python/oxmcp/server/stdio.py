"""``mcp.server.stdio.stdio_server()``: the process's stdin/stdout as a low-level server's streams.

On oxmcp the Rust core owns stdio (a reader thread, one writer), so the streams yielded here are
tokens: ``await server.run(read, write, options)`` with them serves stdio natively.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

__all__ = ["StdioStream", "stdio_server"]


class StdioStream:
    """A token standing for the process's stdin or stdout; only ``Server.run`` consumes it."""

    def __init__(self, kind: str) -> None:
        self.kind = kind

    def __repr__(self) -> str:
        return f"<oxmcp stdio {self.kind}>"


@contextlib.asynccontextmanager
async def stdio_server(stdin: Any = None, stdout: Any = None) -> AsyncIterator[tuple[StdioStream, StdioStream]]:
    if stdin is not None or stdout is not None:
        raise TypeError("stdio_server(stdin=, stdout=): oxmcp serves the process's own stdin/stdout only")
    yield StdioStream("read"), StdioStream("write")
