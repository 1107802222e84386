"""Whether ``completions`` is declared (and ``completion/complete`` answered), over real HTTP: the
core's option ``completions`` (the same rule and test in Node, tests/node/completions-capability.test.mjs),
and FastMCP, which declares it only for a completion handler."""

from __future__ import annotations

from typing import Any

import pytest
from procs import start_script, stop
from test_skills import modern

OPTION = """
import sys
from oxmcp import Server
mcp = Server("c", completions={completions})

@mcp.prompt(completions={{"theme": ["nature", "love"]}})
def poem(theme: str) -> str:
    return theme

mcp.run("http", host="127.0.0.1", port=int(sys.argv[1]))
"""

FASTMCP = """
import sys
from oxmcp import FastMCP
mcp = FastMCP("c")

@mcp.prompt
def poem(theme: str) -> str:
    return theme

if sys.argv[2] == "handler":
    @mcp.completion
    def complete(ref, argument, context):
        return ["nature"]

mcp.run("http", host="127.0.0.1", port=int(sys.argv[1]))
"""

REF = {"ref": {"type": "ref/prompt", "name": "poem"}, "argument": {"name": "theme", "value": "n"}}


def _served(port: int) -> tuple[bool, dict[str, Any]]:
    caps = modern(port, "server/discover")["result"]["capabilities"]
    return "completions" in caps, modern(port, "completion/complete", REF)


@pytest.mark.parametrize(("completions", "declared"), [("None", True), ("True", True), ("False", False)])
def test_the_completions_option(tmp_path: Any, completions: str, declared: bool) -> None:
    proc, port = start_script(tmp_path, OPTION.format(completions=completions))
    try:
        has, answer = _served(port)
        assert has is declared
        if declared:
            assert answer["result"]["completion"]["values"] == ["nature"]
        else:
            assert answer["error"]["code"] == -32601
    finally:
        stop(proc)


@pytest.mark.parametrize("handler", ["handler", "none"])
def test_fastmcp_declares_completions_only_for_a_handler(tmp_path: Any, handler: str) -> None:
    proc, port = start_script(tmp_path, FASTMCP, handler)
    try:
        has, answer = _served(port)
        assert has is (handler == "handler")
        if has:
            assert answer["result"]["completion"]["values"] == ["nature"]
        else:
            assert answer["error"]["code"] == -32601
    finally:
        stop(proc)


def test_fastmcp_refuses_a_completion_handler_once_serving() -> None:
    from oxmcp import FastMCP

    mcp = FastMCP("late")
    mcp.native  # noqa: B018  builds the core server, as serving does
    with pytest.raises(RuntimeError, match="before the server first serves"):
        @mcp.completion
        def complete(ref: Any, argument: Any, context: Any) -> None:
            return None
