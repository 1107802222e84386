"""Discovery: ``@oxmcp.tool`` & co. mark functions with no server; ``Server.discover`` imports a package or a
directory in sorted order and registers them. The same cases as tests/node/discovery.test.mjs: a fixture
with nested modules and an excluded folder, a name registered by hand wins in either order, two discovered
with one name are an error naming both places, a module that fails to import is an error naming its file;
and the Rust, Python and Node fixtures (tests/fixtures/discovery/) list the same tools over HTTP."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from procs import free_port, wait_listening

import oxmcp
from oxmcp import Client, DefinitionError, Server

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "discovery"

PAIR = {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}, "required": ["a", "b"]}


async def _tools(server: Server) -> list[dict[str, Any]]:
    async with Client(server) as c:
        return await c.list_tools()


def _write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return root


TOOL = """import oxmcp


@oxmcp.tool(description={desc!r})
def {name}(a: int) -> int:
    return a
"""


async def test_a_fixture_package_is_discovered_in_order_without_its_excluded_folder() -> None:
    server = Server("d")
    found = server.discover(FIXTURES / "python" / "disco_tools", exclude=["vendor"])
    assert [(f["name"], f["module"]) for f in found] == [
        ("add", "disco_tools.math"), ("multiply", "disco_tools.math"), ("shout", "disco_tools.text.shout")]
    assert found[0]["file"].endswith(os.path.join("disco_tools", "math.py")) and found[0]["line"] > 0
    tools = await _tools(server)
    assert [t["name"] for t in tools] == ["add", "multiply", "shout"]
    assert tools[0]["inputSchema"] == PAIR and tools[0]["description"] == "Add two integers (discovered)"
    async with Client(server) as c:
        result = await c.call_tool("shout", {"text": "hi"})
    assert result["content"][0]["text"] == "HI"
    assert server.discovered() == found


async def test_a_package_name_and_a_plain_directory_discover_alike(tmp_path: Path) -> None:
    _write(tmp_path / "plain", {"b.py": TOOL.format(name="bee", desc="b"), "a/deep.py": TOOL.format(name="deep", desc="d"),
                                "skip/x.py": TOOL.format(name="skipped", desc="x")})
    server = Server("d")
    found = server.discover(str(tmp_path / "plain"), exclude=["skip"])
    assert [(f["name"], f["module"]) for f in found] == [("deep", "a.deep"), ("bee", "b")]
    _write(tmp_path / "pkgs", {"namedpkg/__init__.py": "", "namedpkg/one.py": TOOL.format(name="one", desc="1"),
                               "namedpkg/sub/__init__.py": "", "namedpkg/sub/two.py": TOOL.format(name="two", desc="2")})
    sys.path.insert(0, str(tmp_path / "pkgs"))
    try:
        server2 = Server("d")
        server2.discover("namedpkg", exclude=["namedpkg.sub"])
        assert [t["name"] for t in await _tools(server2)] == ["one"]
    finally:
        sys.path.remove(str(tmp_path / "pkgs"))


async def test_a_name_registered_by_hand_wins_in_either_order() -> None:
    def manual(a: int, b: int) -> str:
        return "manual"

    before = Server("d")
    before.add_tool(manual, name="add", description="by hand", input_schema=PAIR)
    before.discover(FIXTURES / "python" / "disco_tools", exclude=["vendor"])
    after = Server("d")
    after.discover(FIXTURES / "python" / "disco_tools", exclude=["vendor"])
    after.add_tool(manual, name="add", description="by hand", input_schema=PAIR)
    for server in (before, after):
        tools = await _tools(server)
        assert [t["name"] for t in tools] == ["add", "multiply", "shout"]
        assert tools[0]["description"] == "by hand"
        assert [d["name"] for d in server.discovered()] == ["multiply", "shout"]
        async with Client(server) as c:
            assert (await c.call_tool("add", {"a": 1, "b": 2}))["content"][0]["text"] == "manual"
    # While serving too (the native server exists): a discovered tool replaced by hand, once.
    live = Server("d")
    live.discover(FIXTURES / "python" / "disco_tools", exclude=["vendor"])
    async with Client(live) as c:
        live.add_tool(manual, name="multiply", description="by hand", input_schema=PAIR)
        assert {t["name"]: t["description"] for t in await c.list_tools()}["multiply"] == "by hand"
    with pytest.raises(DefinitionError, match="already registered"):
        live.add_tool(manual, name="multiply", input_schema=PAIR)


def test_two_discovered_with_one_name_are_an_error_naming_both_places(tmp_path: Path) -> None:
    _write(tmp_path / "dups", {"a.py": TOOL.format(name="same", desc="one"), "b.py": TOOL.format(name="same", desc="two")})
    with pytest.raises(DefinitionError) as e:
        Server("d").discover(tmp_path / "dups")
    text = str(e.value)
    assert text.startswith("tool 'same' is discovered twice: in a (") and ") and in b (" in text, text
    assert str(tmp_path / "dups" / "a.py") in text and str(tmp_path / "dups" / "b.py") in text


def test_a_module_that_fails_to_import_is_an_error_naming_its_file(tmp_path: Path) -> None:
    _write(tmp_path / "broken", {"good.py": TOOL.format(name="good", desc="g"), "bad.py": "import oxmcp\n1 / 0\n"})
    with pytest.raises(DefinitionError) as e:
        Server("d").discover(tmp_path / "broken")
    assert str(tmp_path / "broken" / "bad.py") in str(e.value) and "ZeroDivisionError" in str(e.value)
    assert isinstance(e.value.__cause__, ZeroDivisionError)


def test_the_marks_take_the_server_decorators_keywords() -> None:
    @oxmcp.resource("doc://{id}", description="a doc", mime_type="text/plain")
    def doc(id: str) -> str:
        return id

    @oxmcp.prompt(name="hello", description="say hello")
    def greet(name: str) -> str:
        return f"hello {name}"

    assert [m.kind for m in doc.__oxmcp_marks__] == ["resource"]  # type: ignore[attr-defined]
    with pytest.raises(TypeError, match="unexpected keyword argument 'mimetype'"):
        oxmcp.resource("doc://x", mimetype="text/plain")(lambda: "x")
    with pytest.raises(TypeError, match="has a \\{variable\\}"):
        oxmcp.resource_template("doc://fixed")
    with pytest.raises(TypeError, match="unexpected keyword argument 'inputSchema'"):
        oxmcp.tool(inputSchema={})(lambda: 1)


def _tools_over_http(port: int) -> list[dict[str, Any]]:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}}})
    req = urllib.request.Request(f"http://127.0.0.1:{port}/mcp", data=body.encode(), method="POST", headers={
        "content-type": "application/json", "accept": "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/list"})
    with urllib.request.urlopen(req, timeout=20) as resp:
        return json.loads(resp.read())["result"]["tools"]  # type: ignore[no-any-return]


def _rust_fixture() -> Path:
    target = Path(os.environ.get("CARGO_TARGET_DIR") or ROOT / "target")
    subprocess.run(["cargo", "build", "-q", "-p", "oxmcp-examples", "--bin", "discovery"], cwd=ROOT, check=True,
                   timeout=1500)
    return target / "debug" / "discovery"


def test_the_three_languages_discovered_fixtures_list_the_same_tools() -> None:
    commands = {
        "rust": [str(_rust_fixture())],
        "python": [sys.executable, str(FIXTURES / "python" / "server.py")],
        "node": ["node", str(FIXTURES / "node" / "server.mjs")],
    }
    lists: dict[str, list[dict[str, Any]]] = {}
    for language, cmd in commands.items():
        port = free_port()
        proc = subprocess.Popen([*cmd, "--http", f"127.0.0.1:{port}"], stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, cwd=ROOT)
        try:
            wait_listening(port, proc, timeout=60)
            lists[language] = _tools_over_http(port)
        finally:
            proc.terminate()
            proc.wait(10)
    assert [t["name"] for t in lists["rust"]] == ["add", "multiply", "shout"]
    assert lists["rust"][0]["description"] == "Add two integers"
    assert lists["python"] == lists["rust"]
    assert lists["node"] == lists["rust"]


def test_oxmcp_run_discover_says_what_it_found_and_from_where(tmp_path: Path) -> None:
    app = tmp_path / "app.py"
    app.write_text('import oxmcp\n\nserver = oxmcp.Server("cli")\n\n\n@server.tool(description="by hand")\n'
                   'def add(a: int, b: int) -> str:\n    return "manual"\n')
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "oxmcp", "run", str(app), "--http", f"127.0.0.1:{port}",
                             "--discover", str(FIXTURES / "python" / "disco_tools"), "--exclude", "vendor"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=tmp_path)
    try:
        wait_listening(port, proc, timeout=60)
        assert [t["name"] for t in _tools_over_http(port)] == ["add", "multiply", "shout"]
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=10)
    lines = [line for line in err.decode().splitlines() if line.startswith("discovered:")]
    assert lines[0] == "discovered: tool add \u2190 disco_tools.math:6 (registered by hand instead)", lines
    assert lines[1:] == ["discovered: tool multiply \u2190 disco_tools.math:11",
                         "discovered: tool shout \u2190 disco_tools.text.shout:4"], lines
