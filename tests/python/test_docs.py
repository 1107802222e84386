"""docs/README-python.md stays true: its quick start is examples/python/quickstart.py verbatim, and
that file serves (stdio, and HTTP with the official-client test in test_interop.py)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "README-python.md"
QUICKSTART = ROOT / "examples" / "python" / "quickstart.py"
META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}


def test_quick_start_block_is_the_example_file() -> None:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.DOTALL)
    assert blocks, "no python block in the doc"
    assert blocks[0] == QUICKSTART.read_text()


def test_quick_start_runs() -> None:
    msgs = [
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "add", "arguments": {"a": 2, "b": 40}, "_meta": META}},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
         "params": {"name": "countdown", "arguments": {"n": 3}, "_meta": {**META, "progressToken": "p"}}},
        {"jsonrpc": "2.0", "id": 3, "method": "resources/read", "params": {"uri": "greeting://Ada", "_meta": META}},
        {"jsonrpc": "2.0", "id": 4, "method": "prompts/get", "params": {"name": "review", "arguments": {"code": "x=1"}, "_meta": META}},
    ]
    proc = subprocess.run([sys.executable, str(QUICKSTART)], input="".join(json.dumps(m) + "\n" for m in msgs).encode(),
                          capture_output=True, timeout=30)
    assert proc.returncode == 0, proc.stderr.decode()
    out = [json.loads(line) for line in proc.stdout.decode().splitlines()]
    by_id = {m["id"]: m for m in out if "id" in m}
    assert by_id[1]["result"]["structuredContent"] == {"result": 42}
    assert by_id[2]["result"]["content"][0]["text"] == "liftoff"
    assert [m["params"]["progress"] for m in out if m.get("method") == "notifications/progress"] == [1, 2, 3]
    assert by_id[3]["result"]["contents"][0]["text"] == "Hello, Ada!"
    assert "x=1" in by_id[4]["result"]["messages"][0]["content"]["text"]
