"""Registry-scale benchmark server, Python: N generated tools on oxmcp or FastMCP, over stdio.

    python py_server.py oxmcp N
    python py_server.py fastmcp N      # FastMCP 4.x from $BENCH_VENV (bench/setup.sh peers)

Every tool is `tool_i(a: int, b: int, note: str = "") -> int` with a docstring, registered with the
library's ordinary decorator, as a generated server (OpenAPI, one tool per table) would.
`BENCH_TRACEMALLOC=1`: print the Python heap the tools hold (tracemalloc) to stderr when ready.
"""

from __future__ import annotations

import os
import sys

if os.environ.get("BENCH_TRACEMALLOC") == "1":
    import tracemalloc

    tracemalloc.start()


def make(i: int):
    def tool(a: int, b: int, note: str = "") -> int:
        """Add a and b.

        Args:
            a: the first number
            b: the second number
            note: a free-form note
        """
        return a + b

    tool.__name__ = f"tool_{i}"
    tool.__qualname__ = tool.__name__
    return tool


def main() -> None:
    which, n = sys.argv[1], int(sys.argv[2])
    if which == "oxmcp":
        from oxmcp import Server

        server = Server("bench-registry-oxmcp", version="0.1.0")
    else:
        from fastmcp import FastMCP

        server = FastMCP("bench-registry-fastmcp")
    if os.environ.get("BENCH_TRACEMALLOC") == "1":
        before = tracemalloc.take_snapshot()
    for i in range(n):
        server.tool(make(i))
    if os.environ.get("BENCH_TRACEMALLOC") == "1":
        after = tracemalloc.take_snapshot()
        stats = after.compare_to(before, "filename")
        total = sum(s.size_diff for s in stats)
        print(f"tracemalloc: {total} B for {n} tools ({total / max(n, 1):.0f} B/tool)", file=sys.stderr)
        for s in stats[:12]:
            print(f"  {s.size_diff:>10} B  {s.traceback}", file=sys.stderr)
    if which == "oxmcp":
        server.run("stdio")
    else:
        server.run("stdio", show_banner=False)


if __name__ == "__main__":
    main()
