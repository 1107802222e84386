"""The Skills extension from Python, over the real transports in both eras, and with FastMCP 4.2.3's
own client: `read_skill()` fetches every file and checks its size and digest against the manifest.

The everything servers serve examples/skills (explore-database, the nested skill path
ops/release-notes) and a dynamic skill; FastMCP serving the same directory gives the same manifest.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from procs import META, ROOT, free_port, start_python_http, stop, wait_listening

EVERYTHING = ROOT / "examples" / "python" / "everything.py"
SQLITE = ROOT / "examples" / "python" / "sqlite_explorer.py"
SKILLS = ROOT / "examples" / "skills"
PEER_V2 = ROOT / ".cache" / "peers-py" / "v2" / "bin" / "python"  # fastmcp 4.2.3
EXT = "io.modelcontextprotocol/skills"
ALL = ["skill://explore-database/SKILL.md", "skill://live/clock/SKILL.md", "skill://ops/release-notes/SKILL.md"]


def sha(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def post(port: int, body: dict[str, Any], headers: dict[str, str] | None = None) -> tuple[dict[str, Any], Any]:
    req = urllib.request.Request(f"http://127.0.0.1:{port}/mcp", data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json",
                                          "Accept": "application/json, text/event-stream", **(headers or {})})
    try:
        with urllib.request.urlopen(req, timeout=20) as r:
            text = r.read().decode()
            hdrs = r.headers
    except urllib.error.HTTPError as e:
        text, hdrs = e.read().decode(), e.headers
    if text.startswith(("event:", "data:")):
        text = next(line[5:] for line in text.splitlines() if line.startswith("data:"))
    return (json.loads(text) if text else {}), hdrs


def modern(port: int, method: str, params: dict[str, Any] | None = None,
           auth: str | None = None) -> dict[str, Any]:
    headers = {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": method}
    if method == "resources/read":
        headers["Mcp-Name"] = str((params or {})["uri"])
    if auth:
        headers["Authorization"] = f"Bearer {auth}"
    answer, _ = post(port, {"jsonrpc": "2.0", "id": 1, "method": method,
                            "params": {**(params or {}), "_meta": META}}, headers)
    return answer


class Legacy:
    def __init__(self, port: int) -> None:
        self.port = port
        answer, hdrs = post(port, {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}})
        self.init = answer["result"]
        self.headers = {"MCP-Protocol-Version": "2025-11-25"}
        if hdrs.get("mcp-session-id"):
            self.headers["Mcp-Session-Id"] = hdrs["mcp-session-id"]
        post(port, {"jsonrpc": "2.0", "method": "notifications/initialized"}, self.headers)

    def call(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        return post(self.port, {"jsonrpc": "2.0", "id": 2, "method": method, "params": params or {}}, self.headers)[0]


def content_bytes(read: dict[str, Any]) -> bytes:
    (c,) = read["result"]["contents"]
    if "text" in c:
        return str(c["text"]).encode()
    import base64
    return base64.b64decode(c["blob"])


def verify_every_file(listing: dict[str, Any], read: Any) -> int:
    files = 0
    for s in listing["skills"]:
        if s["resources"] == "dynamic":
            continue
        assert s["uri"] in [r["uri"] for r in s["resources"]]
        for r in s["resources"]:
            data = content_bytes(read(r["uri"]))
            assert (len(data), sha(data)) == (r["size"], r["digest"]), r
            files += 1
    return files


@pytest.fixture(scope="module")
def everything() -> Any:
    proc, port = start_python_http(EVERYTHING)
    yield port
    stop(proc)


def test_list_get_and_read_every_file_in_both_eras(everything: int) -> None:
    port = everything
    d = modern(port, "server/discover")["result"]
    assert d["capabilities"]["extensions"][EXT] == {"directoryRead": True}
    listing = modern(port, "skills/list")["result"]
    assert [s["uri"] for s in listing["skills"]] == ALL
    assert listing["resultType"] == "complete" and "ttlMs" in listing and "cacheScope" in listing
    assert listing["skills"][1]["resources"] == "dynamic"
    assert verify_every_file(listing, lambda uri: modern(port, "resources/read", {"uri": uri})) == 5
    got = modern(port, "skills/get", {"uri": ALL[2]})["result"]
    assert got["skill"] == listing["skills"][2]
    err = modern(port, "skills/get", {"uri": "skill://nope/SKILL.md"})["error"]
    assert err == {"code": -32602, "message": "Unknown skill URI: skill://nope/SKILL.md"}
    d = modern(port, "resources/directory/read", {"uri": "skill://explore-database"})["result"]
    assert [(c["name"], c["mimeType"]) for c in d["resources"]] == [
        ("SKILL.md", "text/markdown"), ("references", "inode/directory"), ("scripts", "inode/directory")]
    clock = content_bytes(modern(port, "resources/read", {"uri": "skill://live/clock/SKILL.md"}))
    assert b"seconds since the Unix epoch" in clock

    legacy = Legacy(port)
    assert legacy.init["capabilities"]["extensions"][EXT] == {"directoryRead": True}
    old = legacy.call("skills/list")["result"]
    assert old["skills"] == listing["skills"] and "ttlMs" not in old
    assert verify_every_file(old, lambda uri: legacy.call("resources/read", {"uri": uri})) == 5
    manifest = json.loads(content_bytes(legacy.call("resources/read", {"uri": "skill://ops/release-notes/_manifest"})))
    assert manifest["skill"] == "release-notes"
    assert [f["hash"] for f in manifest["files"]] == [r["digest"] for r in listing["skills"][2]["resources"]]


UNLISTED = "skill://internal/handover/SKILL.md"  # examples/unlisted-skills, served listed=False


def listed_uris(port: int, method: str, key: str) -> list[str]:
    out: list[str] = []
    params: dict[str, Any] = {}
    for _ in range(100):
        page = modern(port, method, params)["result"]
        out += [r.get("uri") or r["uriTemplate"] for r in page[key]]
        if "nextCursor" not in page:
            return out
        params = {"cursor": page["nextCursor"]}
    raise AssertionError(f"{method} did not end")


def test_an_unlisted_skill_is_served_by_its_uri_only(everything: int) -> None:
    port = everything
    assert [s["uri"] for s in modern(port, "skills/list")["result"]["skills"]] == ALL
    for method, key in (("resources/list", "resources"), ("resources/templates/list", "resourceTemplates")):
        uris = listed_uris(port, method, key)
        assert any(u.startswith("skill://") for u in uris) and not any(u.startswith("skill://internal/") for u in uris)
    entry = modern(port, "skills/get", {"uri": UNLISTED})["result"]["skill"]
    assert entry["frontmatter"]["name"] == "handover" and len(entry["resources"]) == 2
    assert verify_every_file({"skills": [entry]}, lambda uri: modern(port, "resources/read", {"uri": uri})) == 2
    d = modern(port, "resources/directory/read", {"uri": "skill://internal/handover"})["result"]
    assert [c["name"] for c in d["resources"]] == ["SKILL.md", "checklist.md"]
    legacy = Legacy(port)
    assert [s["uri"] for s in legacy.call("skills/list")["result"]["skills"]] == ALL
    assert legacy.call("skills/get", {"uri": UNLISTED})["result"]["skill"] == entry


def test_skills_built_in_code_can_be_unlisted() -> None:
    """``add_skill(..., listed=False)`` and ``dynamic_skill(..., listed=False)``, over stdio."""
    source = """
from oxmcp import Server
from oxmcp.skills import Skill
server = Server("t")
server.add_skill(Skill(name="quiet", description="Not advertised.", instructions="Hush."), listed=False)
server.add_skill(Skill(name="loud", description="Advertised.", instructions="Hello."))
@server.dynamic_skill("gen/echo", description="Generated, not advertised.", listed=False)
def echo(file: str) -> str:
    return "---\\nname: echo\\ndescription: Generated, not advertised.\\n---\\nEcho.\\n"
server.run()
"""
    lines = [{"jsonrpc": "2.0", "id": i, "method": m, "params": {**p, "_meta": META}} for i, (m, p) in enumerate([
        ("skills/list", {}), ("resources/list", {}), ("resources/templates/list", {}),
        ("skills/get", {"uri": "skill://quiet/SKILL.md"}), ("skills/get", {"uri": "skill://gen/echo/SKILL.md"}),
        ("resources/read", {"uri": "skill://gen/echo/SKILL.md"})])]
    proc = subprocess.run([sys.executable, "-c", source], input="".join(json.dumps(m) + "\n" for m in lines),
                          check=False, capture_output=True, text=True, timeout=60)
    out = sorted((json.loads(line) for line in proc.stdout.splitlines() if line.strip()), key=lambda a: a["id"])
    assert [s["uri"] for s in out[0]["result"]["skills"]] == ["skill://loud/SKILL.md"], proc.stderr
    assert not [r for r in out[1]["result"]["resources"] if "quiet" in r["uri"]]
    assert out[2]["result"]["resourceTemplates"] == []
    assert out[3]["result"]["skill"]["frontmatter"]["name"] == "quiet"
    assert out[4]["result"]["skill"]["resources"] == "dynamic"
    assert b"Echo." in content_bytes(out[5])


def test_skills_over_stdio_in_both_eras() -> None:
    def session(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
        proc = subprocess.run([sys.executable, str(EVERYTHING)], input="".join(json.dumps(m) + "\n" for m in lines),
                              check=False, capture_output=True, text=True, timeout=60)
        answers = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
        # Requests run concurrently: answers in id order.
        return sorted((a for a in answers if "id" in a), key=lambda a: a["id"])

    out = session([{"jsonrpc": "2.0", "id": 1, "method": "skills/list", "params": {"_meta": META}},
                   {"jsonrpc": "2.0", "id": 2, "method": "resources/read",
                    "params": {"uri": "skill://ops/release-notes/template.md", "_meta": META}}])
    listing, read = out[0]["result"], out[1]
    assert [s["uri"] for s in listing["skills"]] == ALL
    assert sha(content_bytes(read)) == listing["skills"][2]["resources"][1]["digest"]
    out = session([{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}},
                   {"jsonrpc": "2.0", "method": "notifications/initialized"},
                   {"jsonrpc": "2.0", "id": 1, "method": "skills/get", "params": {"uri": ALL[0]}}])
    assert out[0]["result"]["capabilities"]["extensions"][EXT]["directoryRead"] is True
    assert out[1]["result"]["skill"]["frontmatter"]["name"] == "explore-database"


def test_hidden_skills_are_answered_like_unknown_ones() -> None:
    tokens = json.dumps({"alice": {"tokens": ["alice-tok"], "resources": ["skill://explore-database/*"]},
                         "bob": {"tokens": ["bob-tok"]}})
    proc, port = start_python_http(EVERYTHING, {"OXMCP_TOKENS": tokens})
    try:
        assert [s["uri"] for s in modern(port, "skills/list", auth="bob-tok")["result"]["skills"]] == ALL
        assert [s["uri"] for s in modern(port, "skills/list", auth="alice-tok")["result"]["skills"]] == ALL[:1]
        hidden = modern(port, "skills/get", {"uri": ALL[2]}, auth="alice-tok")["error"]
        assert hidden == {"code": -32602, "message": f"Unknown skill URI: {ALL[2]}"}
        hidden = modern(port, "resources/directory/read", {"uri": "skill://ops/release-notes"}, auth="alice-tok")
        unknown = modern(port, "resources/directory/read", {"uri": "skill://ops/nope"}, auth="bob-tok")
        assert hidden["error"]["code"] == unknown["error"]["code"] == -32602
        read = modern(port, "resources/read", {"uri": "skill://ops/release-notes/template.md"}, auth="alice-tok")
        assert read["error"]["message"] == "Resource not found"
        listed = [r["uri"] for r in modern(port, "resources/list", auth="alice-tok")["result"]["resources"]]
        assert all(u.startswith("skill://explore-database/") for u in listed if u.startswith("skill://"))
    finally:
        stop(proc)


def _template_digest(skills_dir: Path) -> str:
    proc, port = start_python_http(EVERYTHING, {"OXMCP_SKILLS_DIR": str(skills_dir)})
    try:
        entry = modern(port, "skills/get", {"uri": ALL[2]})["result"]["skill"]
        return str(entry["resources"][1]["digest"])
    finally:
        stop(proc)


def test_a_changed_file_changes_its_digest(tmp_path: Path) -> None:
    d = tmp_path / "skills"
    shutil.copytree(SKILLS, d)
    before = _template_digest(d)
    (d / "ops" / "release-notes" / "template.md").write_bytes(b"# changed\n")
    after = _template_digest(d)
    assert before != after == sha(b"# changed\n")


def test_malformed_skills_symlinks_and_traversal_are_refused(tmp_path: Path) -> None:
    from oxmcp import Server, Skill
    from oxmcp.skills.provider import SkillsDirectoryProvider

    def refused(setup: Any) -> str:
        d = tmp_path / f"case{len(list(tmp_path.iterdir()))}"
        shutil.copytree(SKILLS, d)
        setup(d)
        with pytest.raises(ValueError) as e:
            Server("x").add_skills_dir(d)
        with pytest.raises(ValueError) as e2:
            SkillsDirectoryProvider(d)
        assert str(e.value) == str(e2.value)
        return str(e.value)

    e = refused(lambda d: (d / "ops/release-notes/SKILL.md").write_text("---\nname: Release\ndescription: x\n---\n"))
    assert "ops/release-notes/SKILL.md" in e and "lowercase" in e
    e = refused(lambda d: os.symlink("/etc/passwd", d / "explore-database" / "passwd"))
    assert "explore-database/passwd" in e and "symlink" in e
    e = refused(lambda d: (d / "explore-database/SKILL.md").write_bytes(b"---\nname: explore-database\ndescription: \xff\n---\n"))
    assert "explore-database/SKILL.md" in e and "UTF-8" in e
    for files, rule in [({"SKILL.md": "---\nname: a\ndescription: d\n---\n", "../x": "1"}, "'..'"),
                        ({"SKILL.md": "---\nname: a\ndescription: d\n---\n", "/etc/x": "1"}, "relative"),
                        ({"SKILL.md": "---\nname: a\n---\n"}, "description"),
                        ({"x.md": "1"}, "SKILL.md")]:
        with pytest.raises(ValueError, match=rule):
            Skill.from_files(files)
    with pytest.raises(ValueError, match="at most 512 files"):
        Skill(name="big", description="d", instructions="", files={f"f{i}": "" for i in range(512)})


def test_the_sqlite_explorer_serves_explore_database() -> None:
    proc, port = start_python_http(SQLITE)
    try:
        listing = modern(port, "skills/list")["result"]
        assert [s["uri"] for s in listing["skills"]] == ALL[:1]
        assert verify_every_file(listing, lambda uri: modern(port, "resources/read", {"uri": uri})) == 3
    finally:
        stop(proc)


# -- FastMCP 4.2.3's own client and server -------------------------------------------------------------
PEER_CLIENT = """
import asyncio, json, sys
from fastmcp import Client
from fastmcp.skills import SkillsClientExtension

async def main(url, mode):
    async with Client(url, mode=mode, extensions=[SkillsClientExtension()]) as c:
        out = {"protocol": c.protocol_version, "skills": {}}
        uris = ([s.uri for s in await c.list_skills() if s.resources != "dynamic"] if mode != "legacy"
                else sorted(str(r.uri) for r in await c.list_skill_resources()))
        for uri in uris:
            skill = await c.read_skill(uri)   # checks every file's size and digest
            out["skills"][uri] = {p: len(b) for p, b in skill.files.items()}
        print(json.dumps(out))

asyncio.run(main(sys.argv[1], sys.argv[2]))
"""

PEER_SERVER = """
import sys
from fastmcp import FastMCP
from fastmcp.skills.provider import SkillsDirectoryProvider
mcp = FastMCP("peer", providers=[SkillsDirectoryProvider(sys.argv[1])])
mcp.run(transport="http", host="127.0.0.1", port=int(sys.argv[2]), show_banner=False)
"""


def _rust_everything() -> Path:
    target = Path(os.environ.get("CARGO_TARGET_DIR") or ROOT / "target")
    subprocess.run(["cargo", "build", "-q", "-p", "oxmcp-examples", "--bin", "everything"], cwd=ROOT, check=True,
                   timeout=900)
    return target / "debug" / "everything"


def _start(cmd: list[str], port: int) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wait_listening(port, proc, timeout=60)
    return proc


@pytest.fixture(scope="module")
def peer() -> Path:
    assert PEER_V2.exists(), f"{PEER_V2} missing: run scripts/setup.sh"
    return PEER_V2


@pytest.mark.parametrize("language", ["python", "rust", "node"])
@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_fastmcp_client_read_skill_verifies_every_oxmcp_server(peer: Path, tmp_path: Path, language: str,
                                                                mode: str) -> None:
    port = free_port()
    cmd = {"python": [sys.executable, str(EVERYTHING)],
           "rust": [str(_rust_everything())] if language == "rust" else [],
           "node": ["node", str(ROOT / "examples" / "node" / "everything.mjs")]}[language]
    proc = _start([*cmd, "--http", f"127.0.0.1:{port}"], port)
    try:
        script = tmp_path / "client.py"
        script.write_text(PEER_CLIENT)
        out = subprocess.run([str(peer), str(script), f"http://127.0.0.1:{port}/mcp", mode],
                             check=False, capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stderr[-3000:]
        got = json.loads(out.stdout.strip().splitlines()[-1])
        assert got["protocol"] == ("2026-07-28" if mode != "legacy" else "2025-11-25")
        assert set(got["skills"]) == {ALL[0], ALL[2]}
        assert got["skills"][ALL[2]] == {"SKILL.md": (SKILLS / "ops/release-notes/SKILL.md").stat().st_size,
                                         "template.md": (SKILLS / "ops/release-notes/template.md").stat().st_size}
    finally:
        stop(proc)


def test_fastmcp_and_oxmcp_serve_the_same_manifest_for_one_directory(peer: Path, tmp_path: Path,
                                                                      everything: int) -> None:
    port = free_port()
    script = tmp_path / "server.py"
    script.write_text(PEER_SERVER)
    proc = _start([str(peer), str(script), str(SKILLS), str(port)], port)
    try:
        deadline = time.monotonic() + 30
        while True:
            theirs = modern(port, "skills/list")
            if "result" in theirs or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        ours = modern(everything, "skills/list")["result"]["skills"]
        # oxmcp's catalog digest (docs/CATALOG.md) is its own addition: left out of the comparison.
        static = [{k: v for k, v in s.items() if k != "_meta"} for s in ours if s["resources"] != "dynamic"]
        assert all(s["_meta"]["io.oxmcp/digest"].startswith("sha256:") for s in ours)
        assert theirs["result"]["skills"] == static
    finally:
        stop(proc)


FASTMCP_SKILLS_SERVER = """
from pathlib import Path
from fastmcp import FastMCP
from fastmcp.skills import Skill
from fastmcp.skills.provider import SkillCatalogProvider, SkillsDirectoryProvider

mcp = FastMCP("skills", providers=[SkillsDirectoryProvider(Path({root!r}))])
mcp.add_provider(SkillCatalogProvider([Skill(name="hello", description="Say hello.", instructions="# Hello\\n",
                                             files={{"greeting.txt": "hi"}})]))

if __name__ == "__main__":
    mcp.run()
"""


def test_a_fastmcp_skills_server_ports_unchanged_under_oxmcp_run(tmp_path: Path, everything: int) -> None:
    server = tmp_path / "skills_server.py"
    server.write_text(FASTMCP_SKILLS_SERVER.format(root=str(SKILLS)))
    lines = [{"jsonrpc": "2.0", "id": 1, "method": "skills/list", "params": {"_meta": META}},
             {"jsonrpc": "2.0", "id": 2, "method": "resources/read",
              "params": {"uri": "skill://hello/greeting.txt", "_meta": META}}]
    proc = subprocess.run([sys.executable, "-m", "oxmcp", "run", str(server)], check=False, capture_output=True,
                          text=True, timeout=60, input="".join(json.dumps(m) + "\n" for m in lines))
    answers = {a["id"]: a for a in map(json.loads, proc.stdout.splitlines()) if "id" in a}
    assert 1 in answers, proc.stderr[-2000:]
    listing = answers[1]["result"]["skills"]
    assert [s["uri"] for s in listing] == [ALL[0], "skill://hello/SKILL.md", ALL[2]]
    ours = {s["uri"]: s for s in modern(everything, "skills/list")["result"]["skills"]}
    assert listing[0] == ours[ALL[0]] and listing[2] == ours[ALL[2]]
    assert content_bytes(answers[2]) == b"hi"


def test_skill_objects_carry_their_manifest() -> None:
    from oxmcp.skills import Skill, SkillFile

    s = Skill(name="hello", description="Say hello.", instructions="# Hello\n", files={"ref/a.txt": b"\x00\xff"})
    assert set(s.files) == {"SKILL.md", "ref/a.txt"}
    assert s.manifest.files["ref/a.txt"] == SkillFile(sha(b"\x00\xff"), 2)
    assert s.manifest.files["SKILL.md"].digest == sha(s.files["SKILL.md"])
    assert s.frontmatter == {"name": "hello", "description": "Say hello."}
    assert Skill.from_files(dict(s.files)) == s
    assert s.to_mcp_skill("team/hello")["uri"] == "skill://team/hello/SKILL.md"
    with pytest.raises(AttributeError):
        s.name = "other"  # type: ignore[misc]
