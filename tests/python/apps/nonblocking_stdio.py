"""A server that puts its stdin and stdout in non-blocking mode before serving stdio, as asyncio's
pipes (``loop.connect_read_pipe``) and other host code leave them. The stdio transport must keep
serving until stdin ends (tests/python/test_nonblocking_stdio.py)."""

import os
import sys

from oxmcp import Server

server = Server("nonblocking-stdio")


@server.tool
def add(a: int, b: int) -> int:
    return a + b


@server.tool
def big(kb: int) -> str:
    """An answer larger than a pipe holds."""
    return "x" * (kb * 1024)


if __name__ == "__main__":
    os.set_blocking(sys.stdin.fileno(), False)
    os.set_blocking(sys.stdout.fileno(), False)
    server.run()
