"""A refusal of a tool's arguments is the core's decision; a tool (or its compatibility layer) only
words it (`refusal_text`): the text of an `isError` result, or the message of a -32602, whose code
and `data.violations` stay the core's. No words (None) keeps the core's text, and a refused call
never runs. The same server and assertions as tests/node/refusal-words.test.mjs. Over real HTTP.

The compatibility layers word it as their frameworks do, each checked against the framework itself:
mcp 1.x FastMCP and mcp 2.x MCPServer ``Error executing tool <name>: `` and pydantic's text for the
``<function>Arguments`` model; FastMCP pydantic's text for the call of the function (``call[<name>]``).
"""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import anyio
import pydantic
import pytest
from procs import ROOT, free_port, stop, wait_listening
from pydantic import BaseModel
from test_hardening import modern_as

from oxmcp import Client, FastMCP, McpError, MCPServer
from oxmcp.server.fastmcp import FastMCP as LegacyFastMCP

APP = ROOT / "tests/python/apps/refusal_words.py"


def start(validation: str) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    proc = subprocess.Popen([sys.executable, str(APP), "--http", f"127.0.0.1:{port}", validation],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wait_listening(port, proc)
    return proc, port


def call(port: int, name: str, arguments: dict[str, Any]) -> Any:
    status, body = modern_as(port, None, 1, "tools/call", {"name": name, "arguments": arguments})
    assert status == 200, body
    return body


def test_the_tool_words_a_refusal_the_core_decided() -> None:
    proc, port = start("tool_error")
    try:
        r = call(port, "count", {"n": "-3"})["result"]
        assert r["isError"] is True, r
        assert r["content"] == [{"type": "text", "text": 'refused {"n":"-3"} at /n'}], r
        assert "structuredContent" not in r
        r = call(port, "count", {"n": 0})["result"]
        assert r["isError"] is True, r
        assert r["content"][0]["text"] == "Invalid arguments for tool count:\n/n: 0 is less than the minimum of 1", r
        assert call(port, "calls", {})["result"]["structuredContent"] == {"result": 0}, "a refused call never runs"
        r = call(port, "count", {"n": 2})["result"]
        assert r["content"][0]["text"] == "counted 2", r
    finally:
        stop(proc)


def test_a_worded_json_rpc_refusal_keeps_the_cores_code_and_data() -> None:
    proc, port = start("jsonrpc_error")
    try:
        e = call(port, "count", {})["error"]
        assert e["code"] == -32602 and e["message"] == "refused {} at ", e
        assert [v["pointer"] for v in e["data"]["violations"]] == [""], e
    finally:
        stop(proc)


class Point(BaseModel):
    x: int
    y: int


def move(p: Point, flag: bool) -> str:
    return "moved"


URL = "    For further information visit https://errors.pydantic.dev/{v}/v/{t}"


def pydantic_text(title: str) -> str:
    """pydantic's text for ``move``'s refused arguments below, under a model ``title``."""
    v = ".".join(pydantic.VERSION.split(".")[:2])
    return "\n".join([
        f"3 validation errors for {title}",
        "p.x", ("  Input should be a valid integer, unable to parse string as an integer "
                "[type=int_parsing, input_value='q', input_type=str]"), URL.format(v=v, t="int_parsing"),
        "p.y", "  Field required [type=missing, input_value={'x': 'q'}, input_type=dict]", URL.format(v=v, t="missing"),
        "flag", ("  Input should be a valid boolean, unable to interpret input "
                 "[type=bool_parsing, input_value='maybe', input_type=str]"), URL.format(v=v, t="bool_parsing"),
    ])


def refused_text(server: Any) -> str:
    """The text a client gets for ``move`` with arguments the core refuses (in-process client)."""
    async def main() -> str:
        async with Client(server) as c:
            r = await c.call_tool("move", {"p": {"x": "q"}, "flag": "maybe"})
            assert r["isError"] is True, r
            return str(r["content"][0]["text"])

    return anyio.run(main)


@pytest.mark.parametrize("layer", [LegacyFastMCP, MCPServer])
def test_the_mcp_sdk_layers_word_a_refusal_as_the_sdk(layer: Any) -> None:
    server = layer("words")
    server.tool()(move)
    assert refused_text(server) == "Error executing tool move: " + pydantic_text("moveArguments")


def test_the_fastmcp_layer_words_a_refusal_as_fastmcp(caplog: pytest.LogCaptureFixture) -> None:
    server = FastMCP("words")
    server.tool(move)
    with caplog.at_level("WARNING", logger="fastmcp.server.server"):
        assert refused_text(server) == pydantic_text("call[move]")
    [record] = [r for r in caplog.records if r.name == "fastmcp.server.server"]
    assert record.getMessage() == ("Invalid arguments for tool 'move': "
                                   "{'error_count': 3, 'error_types': ['bool_parsing', 'int_parsing', 'missing']}")


def test_a_layer_keeps_the_cores_text_when_pydantic_would_accept() -> None:
    """The core refuses `"5"` for an int when its lenient coercion is off; pydantic's lax mode would
    take it, so the layer has no words of its own and the core's text stays."""
    server = MCPServer("words", lenient_coercion=False)

    @server.tool()
    def twice(n: int) -> int:
        return 2 * n

    async def main() -> str:
        async with Client(server) as c:
            r = await c.call_tool("twice", {"n": "5"})
            return str(r["content"][0]["text"])

    assert anyio.run(main).startswith("Invalid arguments for tool twice:\n/n: ")


def test_mcp_1x_fastmcp_answers_a_failed_prompt_with_code_0() -> None:
    """mcp 1.x's low-level server answers any failure of a handler with code 0 (its ErrorData default;
    the spec allows any integer) and the text unmasked; mcp 2.x's MCPServer keeps -32603."""
    async def failures(server: Any) -> list[tuple[int, str]]:
        @server.prompt()
        def boom(x: str) -> str:
            raise ValueError("no such project")

        out = []
        async with Client(server) as c:
            for name, args in [("boom", {"x": "1"}), ("nope", {}), ("boom", {})]:
                with pytest.raises(McpError) as e:
                    await c.get_prompt(name, args)
                out.append((e.value.code, str(e.value)))
        return out

    assert anyio.run(failures, LegacyFastMCP("p")) == [
        (0, "Error rendering prompt boom: no such project"), (0, "Unknown prompt: nope"),
        (0, "Missing required arguments: {'x'}")]
    assert [code for code, _ in anyio.run(failures, MCPServer("p"))] == [-32603, -32602, -32602]
