"""Sync tools for the one-CPU tests (test_one_cpu.py): the server runs under `taskset -c 0`.

    python one_cpu.py --http HOST:PORT

On one CPU the binding holds sync calls until a tokio worker parks and hands them to one pool
thread as a batch (bindings-python/src/engine.rs); these tools check that every call still gets
its own answer, that blocked calls still run side by side up to the pool size, and that a call
that blocks past its timeout does not hold up the others.
"""

import threading
import time

from oxmcp import Server, ToolError

server = Server("one-cpu", max_workers=4)
meeting = threading.Barrier(4, timeout=5)


@server.tool
def add(a: int, b: int) -> int:
    return a + b


@server.tool
def fails(n: int) -> int:
    raise ToolError(f"failure {n}")


@server.tool
async def async_add(a: int, b: int) -> int:
    return a + b


@server.tool
def meet() -> str:
    """Returns only once four calls run at the same time (the pool has four threads)."""
    meeting.wait()
    return "met"


@server.tool(timeout=0.5)
def stuck() -> str:
    time.sleep(3)  # the GIL is released while it sleeps
    return "too late"


if __name__ == "__main__":
    server.main()
