"""Sync tools for the one-CPU tests (test_one_cpu.py): the server runs under `taskset -c 0`.

    python one_cpu.py --http HOST:PORT

On one CPU the binding holds sync calls until the tokio worker has read every request that came
in, and one pool thread runs every call queued, in order, under one GIL hold
(bindings-python/src/engine.rs); these tools check that every call still gets its own answer,
that blocked calls still run side by side up to the pool size, that a call that blocks past its
timeout does not hold up the others, and that one that blocks does not hold back the answers of
the calls run before it.
"""

import random
import threading
import time

from oxmcp import Server, ToolError

server = Server("one-cpu", max_workers=4)
meeting = threading.Barrier(4, timeout=5)
released = threading.Event()
# Sorting these holds the GIL for a while in one C call (no bytecode, so no switch to another
# thread): the calls that come in meanwhile queue up behind it, in the order they came.
UNSORTED = [random.random() for _ in range(1_000_000)]


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


@server.tool
def wait_released() -> str:
    """Blocks (GIL released) until `release` is called, 10 s at most."""
    return "released" if released.wait(10) else "never released"


@server.tool
def hog() -> int:
    return len(sorted(UNSORTED))


@server.tool
def release() -> str:
    released.set()
    return "ok"


if __name__ == "__main__":
    server.main()
