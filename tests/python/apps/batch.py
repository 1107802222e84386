"""A server for the batch registration tests: ``add_tools`` before serving and, through
the ``add_batch`` tool, while serving. Pages of 50 tools.

    python batch.py            (stdio)
"""

from typing import Any

from oxmcp import Server

server = Server("batch", page_size=50)


def make(prefix: str, i: int) -> Any:
    def f(a: int, b: int = 0) -> str:
        return f"{prefix}{i}: {a + b}"
    f.__name__ = f"{prefix}{i}"
    return f


# Before serving: functions and keyword dicts.
server.add_tools([make("start_", i) for i in range(30)]
                 + [{"fn": make("x", 0), "name": "start_named", "description": "a named one", "timeout": 5}])


@server.tool
def add_batch(prefix: str, n: int, bad: str = "") -> str:
    """Register n tools `<prefix><i>` in one batch; `bad`: "name" (an invalid name), "twice" (a name
    twice in the batch) or "taken" (a registered name) as the last item."""
    items: list[Any] = [make(prefix, i) for i in range(n)]
    if bad == "name":
        items.append({"fn": make(prefix, n), "name": "bad name!"})
    elif bad == "twice":
        items.append(make(prefix, 0))
    elif bad == "taken":
        items.append({"fn": make(prefix, n), "name": "add_batch"})
    try:
        server.add_tools(items)
    except Exception as e:  # the test reads the text
        return f"refused: {type(e).__name__}: {e}"
    return f"added {n}"


if __name__ == "__main__":
    server.run()
