"""The core's URI template rules as FastMCP's templates need them, over real HTTP: a non-exploded
list query variable (``{?tags}`` for a ``list[...]`` parameter) split on its literal commas, a
hyphenated variable name (``{user-id}`` is the parameter ``user_id``), a literal that a client
sends as written or percent-encoded, and a non-App resource's own ``_meta.ui``. Also FastMCP's
tool parameters whose names start with ``_``, and ``Tool.model_dump``."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from procs import start_script, stop
from test_access_everywhere import Http

SERVER = """
import sys
from pydantic import Field
from oxmcp import FastMCP

mcp = FastMCP("templates")

@mcp.resource("items://{category}{?tags,ids,q}")
def search(category: str, tags: list[str] = Field(default_factory=list), ids: list[int] | None = None,
           q: str = "") -> str:
    return f"{category} {tags} {ids} {q}"

@mcp.resource("data://{user-id}/profile")
def profile(user_id: str) -> str:
    return f"profile {user_id}"

@mcp.resource("file:///docs/café/{name}")
def doc(name: str) -> str:
    return f"doc {name}"

@mcp.resource("data://multi/{id}", meta={"ui": {"csp": "default-src none"}})
def multi(id: str) -> str:
    return id

@mcp.tool
def add(_a: int, _b: int = 1) -> int:
    return _a + _b

mcp.run("http", host="127.0.0.1", port=int(sys.argv[1]))
"""


def _read(c: Http, uri: str) -> Any:
    answer = c.post("resources/read", {"uri": uri}, modern=False)
    return answer["result"]["contents"][0]["text"] if "result" in answer else answer["error"]


def test_fastmcp_template_rules_over_http(tmp_path: Any) -> None:
    proc, port = start_script(tmp_path, SERVER)
    try:
        c = Http(port, "")
        c.initialize()
        assert _read(c, "items://books") == "books [] None "
        assert _read(c, "items://books?tags=a,b") == "books ['a', 'b'] None "
        assert _read(c, "items://books?tags=a%2Cb,c&ids=1,2") == "books ['a,b', 'c'] [1, 2] "
        assert _read(c, "items://books?tags=caf%C3%A9,x%20y") == "books ['café', 'x y'] None "
        assert _read(c, "items://books?tags=") == "books [] None "
        # A plain string variable keeps its commas.
        assert _read(c, "items://books?q=a,b") == "books [] None a,b"
        assert _read(c, "data://42/profile") == "profile 42"
        assert _read(c, "file:///docs/caf%C3%A9/a.txt") == "doc a.txt"
        assert _read(c, "file:///docs/caf%c3%a9/a.txt") == "doc a.txt"
        assert _read(c, "file:///docs/café/a.txt") == "doc a.txt"
        assert _read(c, "file:///docs/caf%C3%A8/a.txt")["message"] == "Resource not found"
        assert _read(c, "data://multi/7") == "7"
        listed = c.post("tools/list", {}, modern=False)["result"]["tools"]
        assert listed[0]["inputSchema"]["properties"] == {"_a": {"type": "integer"},
                                                         "_b": {"type": "integer", "default": 1}}
        called = c.post("tools/call", {"name": "add", "arguments": {"_a": 2, "_b": 3}}, modern=False)
        assert called["result"]["structuredContent"] == {"result": 5}
    finally:
        stop(proc)


def test_tool_model_dump_is_fastmcps_field_dump() -> None:
    from oxmcp.tools import Tool

    async def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    tool = Tool.from_function(add, task=True, timeout=2.0)
    dumped = tool.model_dump(exclude_none=True, exclude={"fn"})
    assert list(dumped) == ["name", "description", "tags", "task_config", "parameters", "output_schema",
                            "timeout", "run_in_thread"]
    assert dumped["task_config"] == {"mode": "optional", "poll_interval": timedelta(seconds=5)}
    assert tool.model_dump(include={"name", "version"}) == {"name": "add", "version": None}
    assert tool.model_dump()["fn"] is add
    assert Tool.from_function(add).model_dump(exclude_none=True)["task_config"]["mode"] == "forbidden"
