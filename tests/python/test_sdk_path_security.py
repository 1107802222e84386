"""mcp 2.x's ``mcp.shared.path_security`` (``safe_join`` and the two string checks) and
``mcp.shared.uri_template.UriTemplate`` on oxmcp: one server file, served over real stdio by
mcp 2.3.0 and, unchanged, by oxmcp (``oxmcp run``), read by the official client, answers the
same. ``safe_join`` keeps a template's path inside its folder (``..``, an absolute part, a symlink
that points out); ``UriTemplate.parse`` refuses an ambiguous template as the SDK's parser does; a
resource function's dict is JSON indented by 2."""

from __future__ import annotations

import asyncio
import json
import os
import textwrap
from pathlib import Path
from typing import Any

import oxmcp

ROOT = Path(__file__).resolve().parents[2]
PEER_V2 = ROOT / ".cache" / "peers-py" / "v2" / "bin" / "python"  # mcp 2.3.0
OXMCP_PATH = str(Path(oxmcp.__file__).resolve().parents[1])

SERVER = """
    import os
    from mcp.server import MCPServer
    from mcp.shared.path_security import PathEscapeError, contains_path_traversal, is_absolute_path, safe_join
    from mcp.shared.uri_template import InvalidUriTemplate, UriTemplate

    DOCS = os.environ["DOCS_ROOT"]
    mcp = MCPServer("docs")

    @mcp.resource("docs://{+path}")
    def read_doc(path: str) -> str:
        return safe_join(DOCS, path).read_text(encoding="utf-8")

    @mcp.resource("meta://{name}")
    def meta(name: str) -> dict:
        return {"name": name, "size": 3}

    @mcp.tool()
    def check(values: list[str]) -> str:
        out = []
        for v in values:
            try:
                joined = str(safe_join(DOCS, v).relative_to(safe_join(DOCS)))
            except PathEscapeError as exc:
                joined = type(exc).__name__
            out.append([v, contains_path_traversal(v), is_absolute_path(v), joined])
        return repr(out)

    @mcp.tool()
    def templates(pairs: list[list[str]]) -> str:
        out = []
        for template, uri in pairs:
            try:
                t = UriTemplate.parse(template)
            except InvalidUriTemplate as exc:
                out.append(["invalid", str(exc)])
                continue
            out.append([str(t), t.match(uri), t.variable_names])
        return repr(out)

    mcp.run()
"""

CHECKED = ["a/b.md", "../secret.txt", "a/../b.md", "a/../../x", "v1.0..v2.0", "/etc/passwd", "C:\\\\x", "c:y",
           "\\\\srv\\\\share", "out/secret.txt", "nul\x00byte", ""]
TEMPLATES = [["manuals://{+path}{ext}", "manuals://a.md"], ["manuals://{+path}{.ext}", "manuals://a/b.md"],
             ["copy://{+source}/to/{+destination}", "copy://a/to/b"], ["books://{isbn}", "books://978"],
             ["books://{isbn}", "manuals://nope"], ["r://{id}{?limit,sort}", "r://7?sort=top"],
             ["f://{/path*}", "f://x/y"], ["m://{+path}", "m://../etc/passwd"], ["x://{a}{/b*}", "x://1/2"]]


async def _answers(args: list[str], docs: Path) -> list[Any]:
    from mcp import Client, StdioServerParameters
    from mcp.shared.exceptions import MCPError

    env = {**os.environ, "PYTHONPATH": OXMCP_PATH, "PYTHONUNBUFFERED": "1", "DOCS_ROOT": str(docs)}
    env.pop("VIRTUAL_ENV", None)
    out: list[Any] = []
    async with Client(StdioServerParameters(command=str(PEER_V2), args=args, env=env),
                      read_timeout_seconds=30) as client:
        for uri in ("docs://a/b.md", "docs://../secret.txt", "docs://out/secret.txt", "docs://a/missing.md",
                    "meta://x"):
            try:
                (content,) = (await client.read_resource(uri)).contents
                out.append(["read", uri, getattr(content, "text", None)])
            except MCPError as exc:
                out.append(["error", uri, exc.error.code])
        for tool, arguments in (("check", {"values": CHECKED}), ("templates", {"pairs": TEMPLATES})):
            result = await client.call_tool(tool, arguments)
            out.append([tool, result.is_error, [getattr(c, "text", None) for c in result.content]])
    return out


def test_path_security_and_uri_templates_answer_as_the_sdks(tmp_path: Path) -> None:
    assert PEER_V2.exists(), f"{PEER_V2} missing: run scripts/setup.sh"
    docs = tmp_path / "docs"
    (docs / "a").mkdir(parents=True)
    (docs / "a" / "b.md").write_text("# B", encoding="utf-8")
    (tmp_path / "secret.txt").write_text("hunter2", encoding="utf-8")
    (docs / "out").symlink_to(tmp_path)  # a folder inside the root that points out of it
    server = tmp_path / "server.py"
    server.write_text(textwrap.dedent(SERVER))
    original = asyncio.run(asyncio.wait_for(_answers([str(server)], docs), 60))
    ported = asyncio.run(asyncio.wait_for(_answers(["-m", "oxmcp", "run", str(server)], docs), 60))
    assert len(ported) == len(original)
    for sdk, ours in zip(original, ported):
        assert ours == sdk, f"\n  mcp 2.3.0: {sdk}\n  oxmcp:     {ours}"
    reads = {uri: (kind, value) for kind, uri, value in original[:5]}
    assert reads["docs://a/b.md"] == ("read", "# B")
    assert reads["docs://out/secret.txt"][0] == "error"  # the symlink's escape is refused, not read
    assert reads["docs://../secret.txt"][0] == "error"
    assert json.loads(reads["meta://x"][1]) == {"name": "x", "size": 3}
    assert reads["meta://x"][1].startswith('{\n  "name"')
    checked = original[5][2][0]
    assert "['v1.0..v2.0', False, False, 'v1.0..v2.0']" in checked
    assert "['/etc/passwd', False, True, 'PathEscapeError']" in checked
    assert "['out/secret.txt', False, False, 'PathEscapeError']" in checked
    templates = original[6][2][0]
    assert "are adjacent with no literal separator" in templates
    assert "more than one multi-segment variable" in templates
