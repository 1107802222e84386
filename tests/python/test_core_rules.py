"""Protocol rules decided once, in the core. The invalid-arguments text is the core's. Arguments that pass the input schema but
fail pydantic are handed to the core as `{path, message}`; the core renders the same text as for a
schema violation (and as the Node binding gives, tests/node/invalid-arguments.test.mjs), an
`isError` result or -32602 as the `validation` option says. A list a tool returns with no
outputSchema is made content by the core (ToolResult::from_list). Over real HTTP.
"""

from __future__ import annotations

import subprocess
import sys
from typing import Any

from procs import ROOT, free_port, stop, wait_listening
from test_hardening import modern_as

APP = ROOT / "tests/python/apps/core_rules.py"


def start(validation: str) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    proc = subprocess.Popen([sys.executable, str(APP), "--http", f"127.0.0.1:{port}", validation],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wait_listening(port, proc)
    return proc, port


def call(port: int, method: str, params: dict[str, Any]) -> Any:
    status, body = modern_as(port, None, 1, method, params)
    assert status == 200, body
    return body


def test_host_validation_failures_get_the_cores_text() -> None:
    proc, port = start("tool_error")
    try:
        r = call(port, "tools/call", {"name": "shout", "arguments": {"word": "LOUD"}})["result"]
        assert r["isError"] is True, r
        text = r["content"][0]["text"]
        lines = text.split("\n")
        assert lines[0] == "Invalid arguments for tool shout:", text
        assert len(lines) == 2 and lines[1].startswith("/word: ") and "must be lower case" in lines[1], text
        assert "structuredContent" not in r
        # A schema violation (caught by the core before Python) has the same shape.
        r = call(port, "tools/call", {"name": "shout", "arguments": {"word": 3}})["result"]
        assert r["content"][0]["text"].startswith("Invalid arguments for tool shout:\n/word: "), r
        # The handler still runs for good arguments.
        r = call(port, "tools/call", {"name": "shout", "arguments": {"word": "ok"}})["result"]
        assert r["content"][0]["text"] == "OK", r
        # Prompts: -32602 with the violations in data.
        e = call(port, "prompts/get", {"name": "greet", "arguments": {"name": "ADA"}})["error"]
        assert e["code"] == -32602 and e["message"] == "Invalid arguments for prompt greet", e
        [v] = e["data"]["violations"]
        assert v["pointer"] == "/name" and "must be lower case" in v["message"], e
    finally:
        stop(proc)


def test_jsonrpc_mode_answers_invalid_params_with_violations() -> None:
    proc, port = start("jsonrpc_error")
    try:
        e = call(port, "tools/call", {"name": "shout", "arguments": {"word": "LOUD"}})["error"]
        assert e["code"] == -32602 and e["message"] == "Invalid arguments for tool shout", e
        [v] = e["data"]["violations"]
        assert v["pointer"] == "/word" and "must be lower case" in v["message"], e
    finally:
        stop(proc)


def test_a_list_with_no_output_schema_is_content_by_the_cores_rule() -> None:
    """The same bytes as Node: plain data is its JSON as one text block; strings and content
    blocks are one block each."""
    proc, port = start("tool_error")
    try:
        def content(name: str) -> Any:
            r = call(port, "tools/call", {"name": name, "arguments": {}})["result"]
            assert "isError" not in r, r
            return r["content"]
        assert content("data_list") == [{"type": "text", "text": '[1,{"k":"v"},"x"]'}]
        assert content("empty_list") == [{"type": "text", "text": "[]"}]
        assert content("block_list") == [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]
    finally:
        stop(proc)
