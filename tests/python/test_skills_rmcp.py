"""The Skills extension with the official Rust SDK's client, rmcp 3.11.0, over stdio in both eras.

tests/interop/rmcp-skills is a small standalone Cargo project (built once, debug, into
.cache/interop-rmcp/target): it spawns a server with rmcp's child-process transport, lists every skill
with `list_all_skills`, gets each with `get_skill`, reads every manifest file with `resources/read`
and checks it with rmcp's own `SkillResource::verify` (size and `sha256:` digest), then prints a JSON
summary. It exits non-zero on any mismatch; a lying server below shows that it does.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from procs import ROOT

PROJECT = ROOT / "tests" / "interop" / "rmcp-skills"
TARGET = ROOT / ".cache" / "interop-rmcp" / "target"
SKILLS = ROOT / "examples" / "skills"
STATIC = {"explore-database": ["SKILL.md", "references/queries.md", "scripts/schema.sql"],
          "ops/release-notes": ["SKILL.md", "template.md"]}
ERAS = {"modern": "2026-07-28", "legacy": "2025-11-25"}


@pytest.fixture(scope="module")
def rmcp_client() -> Path:
    if shutil.which("cargo") is None:
        pytest.skip("cargo is not installed: the rmcp client cannot be built")
    # One debug build of the small project; a no-op when .cache already holds it.
    subprocess.run(["cargo", "build", "-q", "--locked", "--manifest-path", str(PROJECT / "Cargo.toml"),
                    "--target-dir", str(TARGET)], cwd=PROJECT, check=True, timeout=1200)
    exe = TARGET / "debug" / "rmcp-skills-interop"
    assert exe.exists()
    return exe


def _rust_everything() -> Path:
    target = Path(os.environ.get("CARGO_TARGET_DIR") or ROOT / "target")
    subprocess.run(["cargo", "build", "-q", "-p", "oxmcp-examples", "--bin", "everything"], cwd=ROOT, check=True,
                   timeout=900)
    return target / "debug" / "everything"


def run_client(exe: Path, era: str, server: list[str]) -> tuple[int, dict[str, Any], str]:
    out = subprocess.run([str(exe), "--era", era, "--", *server], check=False, capture_output=True, text=True,
                         timeout=120, cwd=ROOT)
    lines = out.stdout.strip().splitlines()
    return out.returncode, (json.loads(lines[-1]) if lines else {}), out.stderr[-3000:]


@pytest.mark.parametrize("era", ["modern", "legacy"])
@pytest.mark.parametrize("language", ["rust", "python", "node"])
def test_rmcp_client_verifies_every_skill_of_every_everything_server(rmcp_client: Path, language: str,
                                                                       era: str) -> None:
    server = {"rust": lambda: [str(_rust_everything())],
              "python": lambda: [sys.executable, str(ROOT / "examples" / "python" / "everything.py")],
              "node": lambda: ["node", str(ROOT / "examples" / "node" / "everything.mjs")]}[language]()
    rc, got, err = run_client(rmcp_client, era, server)
    assert rc == 0 and got.get("ok") is True, (got, err)
    assert got["protocol"] == ERAS[era]
    assert got["directoryRead"] is True
    assert [s["name"] for s in got["skills"]] == ["explore-database", "clock", "release-notes"]
    assert got["skills"][1] == {"name": "clock", "uri": "skill://live/clock/SKILL.md", "dynamic": True}
    assert got["files"] == 5
    # Every verified file, with the size rmcp checked, is the file on disk.
    verified = {uri: size for s in got["skills"] for uri, size in s.get("files", {}).items()}
    assert verified == {f"skill://{path}/{rel}": (SKILLS / path / rel).stat().st_size
                        for path, rels in STATIC.items() for rel in rels}


# A stdio server whose manifest lies about one file: the client must refuse it.
LIAR = r"""
import hashlib, json, sys
BODY = "---\nname: liar\ndescription: Lies about its file.\n---\n# Liar\n"
NOTE = sys.argv[2]
def entry(data):
    return {"digest": "sha256:" + hashlib.sha256(data.encode()).hexdigest(), "size": len(data.encode())}
note = entry(NOTE)
if sys.argv[1] == "digest":
    note["digest"] = "sha256:" + "0" * 64
else:
    note["size"] += 1
SKILL = {"uri": "skill://liar/SKILL.md", "frontmatter": {"name": "liar", "description": "Lies about its file."},
         "resources": [{"uri": "skill://liar/SKILL.md", **entry(BODY)}, {"uri": "skill://liar/note.txt", **note}]}
FILES = {"skill://liar/SKILL.md": BODY, "skill://liar/note.txt": NOTE}
for line in sys.stdin:
    msg = json.loads(line)
    if "id" not in msg:
        continue
    method, params = msg["method"], msg.get("params") or {}
    if method == "initialize":
        result = {"protocolVersion": "2025-11-25", "serverInfo": {"name": "liar", "version": "0"},
                  "capabilities": {"resources": {}, "extensions": {"io.modelcontextprotocol/skills": {}}}}
    elif method == "skills/list":
        result = {"skills": [SKILL]}
    elif method == "skills/get":
        result = {"skill": SKILL}
    elif method == "resources/read":
        result = {"contents": [{"uri": params["uri"], "mimeType": "text/plain", "text": FILES[params["uri"]]}]}
    else:
        print(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32601, "message": method}}), flush=True)
        continue
    print(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}), flush=True)
"""


@pytest.mark.parametrize("lie", ["digest", "size"])
def test_rmcp_client_refuses_a_manifest_that_does_not_match_the_bytes(rmcp_client: Path, tmp_path: Path,
                                                                      lie: str) -> None:
    script = tmp_path / "liar.py"
    script.write_text(LIAR)
    rc, got, err = run_client(rmcp_client, "legacy", [sys.executable, str(script), lie, "a note\n"])
    assert rc == 1 and got["ok"] is False, (got, err)
    assert got["error"].startswith("skill://liar/note.txt ")
    assert ("digest" if lie == "digest" else "bytes, the manifest says 8") in got["error"]
