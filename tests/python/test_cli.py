"""The `oxmcp` console script, each verb over real subprocesses (tests/node/cli.test.mjs holds the
Node CLI to the same verbs and output)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from procs import ROOT, free_port, stop, wait_listening

QUICKSTART = ROOT / "examples" / "python" / "quickstart.py"
NODE_QUICKSTART = ROOT / "examples" / "node" / "quickstart.mjs"
PROGRESS = ROOT / "tests" / "python" / "apps" / "progress.py"
NODE_CLI = ROOT / "bindings-node" / "cli" / "main.mjs"
# The console script pip installed next to the interpreter: what a user types.
OXMCP = Path(sys.executable).with_name("oxmcp")


def oxmcp(*args: str, env: dict[str, str] | None = None, timeout: float = 60,
          cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(OXMCP), *args], capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **(env or {})}, cwd=cwd)


def test_console_script_is_installed() -> None:
    r = oxmcp("--help")
    assert r.returncode == 0, r.stderr
    for verb in ("run", "dev", "inspect", "call", "install"):
        assert verb in r.stdout


def test_inspect_text_lists_everything_with_schemas() -> None:
    r = oxmcp("inspect", str(QUICKSTART))
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith("quickstart 1.0.0 (protocol ")
    assert "tools (2)" in lines and "resources (0)" in lines and "resource templates (1)" in lines
    assert "  add: Add two integers." in lines
    assert ('    input: {"properties":{"a":{"type":"integer"},"b":{"type":"integer"}},'
            '"required":["a","b"],"type":"object"}') in lines
    assert "  greeting://{name} (greeting): A personalised greeting." in lines
    assert "  review(code): Ask for a code review." in lines


def test_inspect_json_and_the_same_bytes_as_the_node_cli() -> None:
    r = oxmcp("inspect", "--json", str(QUICKSTART))
    assert r.returncode == 0, r.stderr
    info = json.loads(r.stdout)
    assert info["server"] == {"name": "quickstart", "version": "1.0.0"}
    assert [t["name"] for t in info["tools"]] == ["add", "countdown"]
    assert info["tools"][0]["inputSchema"]["required"] == ["a", "b"]
    assert info["resourceTemplates"][0]["uriTemplate"] == "greeting://{name}"
    assert info["prompts"][0]["arguments"] == [{"name": "code", "required": True}]
    # Every definition as listed, with its catalog digest (docs/CATALOG.md).
    for item in info["tools"] + info["resourceTemplates"] + info["prompts"]:
        assert item["_meta"]["io.oxmcp/digest"].startswith("sha256:"), item
    # And each list's whole-catalog digest; unsigned, so no signature or key.
    assert sorted(info["catalog"]) == ["prompts/list", "resources/list", "resources/templates/list", "tools/list"]
    assert all(list(e) == ["digest"] and e["digest"].startswith("sha256:") for e in info["catalog"].values())
    # One output, two CLIs: the Node one (with the TS SDK client) prints the same text and JSON.
    node = shutil.which("node")
    assert node, "node is needed for the parity check"
    env = {**os.environ, "OXMCP_PYTHON": sys.executable}
    for flags in ([], ["--json"]):
        n = subprocess.run([node, str(NODE_CLI), "inspect", *flags, str(QUICKSTART)], capture_output=True,
                           text=True, timeout=60, env=env)
        p = oxmcp("inspect", *flags, str(QUICKSTART))
        assert n.returncode == 0, n.stderr
        assert n.stdout == p.stdout


def test_inspect_a_command_after_double_dash() -> None:
    r = oxmcp("inspect", "--", sys.executable, str(QUICKSTART))
    assert r.returncode == 0, r.stderr
    assert "  countdown: Count down from n, reporting progress." in r.stdout


def test_inspect_a_node_app() -> None:
    r = oxmcp("inspect", str(NODE_QUICKSTART))
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("quickstart 1.0.0") and "  add: Add two numbers" in r.stdout


def test_call_with_pairs_args_json_and_double_dash() -> None:
    r = oxmcp("call", str(QUICKSTART), "add", "a=20", "b=22")
    assert (r.returncode, r.stdout) == (0, "42\n"), r.stderr
    r = oxmcp("call", "--json", str(QUICKSTART), "add", "--args", '{"a": 1}', "b=5")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["structuredContent"] == {"result": 6}
    r = oxmcp("call", "--", sys.executable, str(QUICKSTART), "add", "a=2", "b=3")
    assert (r.returncode, r.stdout) == (0, "5\n"), r.stderr
    # A string-typed parameter keeps `007` as text (the schema says so), not the number 7.
    r = oxmcp("call", "--", sys.executable, "-c",
              "from oxmcp import Server\ns = Server('s')\n@s.tool\ndef echo(x: str) -> str:\n    return x\ns.run()",
              "echo", "x=007")
    assert (r.returncode, r.stdout) == (0, "007\n"), r.stderr


def test_call_over_http_against_run_http() -> None:
    port = free_port()
    proc = subprocess.Popen([str(OXMCP), "run", str(QUICKSTART), "--http", f"127.0.0.1:{port}"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        wait_listening(port, proc)
        r = oxmcp("call", f"http://127.0.0.1:{port}/mcp", "add", "a=1", "b=2")
        assert (r.returncode, r.stdout) == (0, "3\n"), r.stderr
        r = oxmcp("inspect", f"http://127.0.0.1:{port}/mcp")
        assert r.returncode == 0 and "tools (2)" in r.stdout, r.stderr
    finally:
        assert stop(proc) == 0


TLS = ROOT / "core" / "tests" / "security" / "tls"


def test_run_tls_flags_serve_https_that_inspect_reaches() -> None:
    # --tls-cert/--tls-key are the core's tls_cert/tls_key; the client trusts the test CA through
    # SSL_CERT_FILE, as curl and OpenSSL do.
    port = free_port()
    proc = subprocess.Popen([str(OXMCP), "run", str(QUICKSTART), "--http", f"127.0.0.1:{port}",
                             "--tls-cert", str(TLS / "good.pem"), "--tls-key", str(TLS / "good.key")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        wait_listening(port, proc)
        r = oxmcp("call", f"https://127.0.0.1:{port}/mcp", "add", "a=1", "b=2",
                  env={"SSL_CERT_FILE": str(TLS / "ca.pem")})
        assert (r.returncode, r.stdout) == (0, "3\n"), r.stderr
    finally:
        assert stop(proc) == 0
    r = oxmcp("run", str(QUICKSTART), "--transport", "stdio", "--tls-cert", "c.pem")
    assert (r.returncode, r.stderr) == (1, "oxmcp: error: --transport stdio and --tls-cert contradict each other\n")


def test_verify_pins_the_catalog_and_reports_each_change(tmp_path: Path) -> None:
    app = tmp_path / "app.py"
    app.write_text(QUICKSTART.read_text())
    pin = tmp_path / "pin.json"
    r = oxmcp("verify", str(app), "--pin", str(pin))
    assert r.returncode == 1 and r.stderr.startswith(f"oxmcp: error: cannot read the pin file {pin}: "), r.stderr
    r = oxmcp("verify", str(app), "--pin", str(pin), "--write")
    assert r.returncode == 0, r.stderr
    assert r.stdout == f"pinned 2 tools, 0 resources, 1 resource template, 1 prompt in {pin}\n"
    data = json.loads(pin.read_text())
    assert sorted(data["tools"]) == ["add", "countdown"]
    assert list(data["resourceTemplates"]) == ["greeting://{name}"] and list(data["prompts"]) == ["review"]
    assert all(d.startswith("sha256:") and len(d) == 71 for kind in data.values() for d in kind.values())
    r = oxmcp("verify", str(app), "--pin", str(pin))
    assert (r.returncode, r.stdout) == (0, f"unchanged: 2 tools, 0 resources, 1 resource template, 1 prompt (pin {pin})\n"), r.stderr
    # A changed description changes that tool's digest, and only that one.
    app.write_text(QUICKSTART.read_text().replace('"""Add two integers."""', '"""Add two integers, changed."""'))
    r = oxmcp("verify", str(app), "--pin", str(pin))
    assert r.returncode == 3, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith(f"changed tool 'add': {data['tools']['add']} -> sha256:")
    assert lines[-1] == f"changed: 0 added, 0 removed, 1 changed (pin {pin})"
    report = json.loads(oxmcp("verify", "--json", str(app), "--pin", str(pin)).stdout)
    assert [(c["kind"], c["name"]) for c in report["changed"]] == [("tool", "add")]
    assert report["added"] == [] and report["removed"] == [] and report["unchanged"] is False
    # A tool missing from the pin is reported as added by the server.
    del data["tools"]["countdown"]
    pin.write_text(json.dumps(data))
    r = oxmcp("verify", str(app), "--pin", str(pin))
    assert r.returncode == 3 and any(line.startswith("added tool 'countdown' (sha256:") for line in r.stdout.splitlines())


def test_verify_checks_the_catalog_signature_against_the_pinned_key(tmp_path: Path) -> None:
    import base64

    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    def keyfile(name: str) -> tuple[Path, str]:
        k = Ed25519PrivateKey.generate()
        f = tmp_path / name
        f.write_bytes(k.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                      serialization.NoEncryption()))
        raw = k.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        return f, "ed25519:" + base64.urlsafe_b64encode(raw).rstrip(b"=").decode()

    key, public = keyfile("key.pem")
    _, other = keyfile("other.pem")
    source = QUICKSTART.read_text()
    signed = tmp_path / "signed.py"
    signed.write_text(source.replace('instructions="Arithmetic and greetings."',
                                     f'instructions="Arithmetic and greetings.", catalog_signing_key={str(key)!r}'))
    unsigned = tmp_path / "unsigned.py"
    unsigned.write_text(source)
    pin = tmp_path / "pin.json"
    r = oxmcp("verify", str(signed), "--pin", str(pin), "--write", "--public-key", public)
    assert r.returncode == 0, r.stderr
    # inspect shows the signature and the key that made it, list by list.
    shown = json.loads(oxmcp("inspect", "--json", str(signed)).stdout)["catalog"]["tools/list"]
    assert shown["key"] == public and shown["signature"].startswith("ed25519:"), shown
    assert f"catalog tools/list: {shown['digest']} signed by {public}" in oxmcp("inspect", str(signed)).stdout
    r = oxmcp("verify", str(signed), "--pin", str(pin))
    assert r.returncode == 0 and "catalog signature verified" in r.stdout, (r.stdout, r.stderr)
    data = json.loads(pin.read_text())
    data["publicKey"] = other
    pin.write_text(json.dumps(data))
    r = oxmcp("verify", str(signed), "--pin", str(pin))
    assert r.returncode == 4
    assert r.stderr == "oxmcp: error: tools/list: the catalog signature does not verify with the pinned key\n"
    data["publicKey"] = public
    pin.write_text(json.dumps(data))
    r = oxmcp("verify", str(unsigned), "--pin", str(pin))
    assert r.returncode == 4 and "catalogSignature" in r.stderr, r.stderr


def test_run_transport_http_defaults_and_stdio_conflict() -> None:
    r = oxmcp("run", str(QUICKSTART), "--transport", "stdio", "--http", "127.0.0.1:1")
    assert r.returncode == 1
    assert r.stderr == "oxmcp: error: --transport stdio and --http contradict each other\n"


def test_call_draws_a_progress_bar_on_a_terminal() -> None:
    # `script` (util-linux, in every Debian) runs the command on a pseudo-terminal.
    assert shutil.which("script"), "util-linux `script` is needed for the pty"
    cmd = f"{OXMCP} call {PROGRESS} countdown n=3"
    r = subprocess.run(["script", "-qec", cmd, "/dev/null"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stdout
    out = r.stdout.replace("\r", "\n")
    assert "countdown: 100%|" in out and "3/3" in out, out
    assert "countdown:  33%|" in out or "countdown:  67%|" in out, out
    assert "liftoff" in out
    # Not a terminal: no bar, just the result.
    r = oxmcp("call", str(PROGRESS), "countdown", "n=3")
    assert (r.returncode, r.stdout, r.stderr) == (0, "liftoff\n", "")


def test_errors_are_one_line_with_a_nonzero_exit(tmp_path: Path) -> None:
    r = oxmcp("inspect", "missing.py")
    assert (r.returncode, r.stderr) == (1, "oxmcp: error: no such file: missing.py\n")
    bad = tmp_path / "bad.py"
    bad.write_text("import no_such_module_here\n")
    r = oxmcp("run", str(bad))
    assert r.returncode == 1
    assert r.stderr == f"oxmcp: error: cannot import {bad}: ModuleNotFoundError: No module named 'no_such_module_here'\n"
    # Through inspect the import error is the server's stderr, shown under the one-line error.
    r = oxmcp("inspect", str(bad))
    assert r.returncode == 1
    assert r.stderr.splitlines()[0] == "oxmcp: error: the server exited at start; its stderr:"
    assert "No module named 'no_such_module_here'" in r.stderr
    r = oxmcp("call", "--", sys.executable, "-c", "import sys; sys.stderr.write('boom at start\\n'); sys.exit(3)", "add")
    assert r.returncode == 1
    assert r.stderr == "oxmcp: error: the server exited at start; its stderr:\nboom at start\n"
    port = free_port()
    r = oxmcp("inspect", f"http://127.0.0.1:{port}/mcp")
    assert (r.returncode, r.stderr) == (1, f"oxmcp: error: cannot connect to http://127.0.0.1:{port}/mcp: connection refused\n")
    r = oxmcp("call", str(QUICKSTART), "nope")
    assert (r.returncode, r.stderr) == (1, "oxmcp: error: no tool named 'nope' (tools: add, countdown)\n")
    r = oxmcp("call", str(QUICKSTART), "add", "a=x", "b=1")
    assert r.returncode == 1 and r.stderr.startswith("oxmcp: error: tool add returned an error: "), r.stderr
    none = tmp_path / "none.py"
    none.write_text("x = 1\n")
    r = oxmcp("run", str(none))
    assert (r.returncode, r.stderr) == (1, f"oxmcp: error: {none}: found 0 oxmcp.Server objects; name one with {none}:NAME\n")


def test_dev_restarts_when_the_app_changes(tmp_path: Path) -> None:
    app = tmp_path / "app.py"
    app.write_text(QUICKSTART.read_text())
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    proc = subprocess.Popen([str(OXMCP), "dev", str(app), "--http", f"127.0.0.1:{port}"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    try:
        wait_listening(port, proc)
        assert "  add: Add two integers." in oxmcp("inspect", url).stdout
        time.sleep(0.5)
        app.write_text(QUICKSTART.read_text().replace('"""Add two integers."""', '"""Add, after a reload."""'))
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            r = oxmcp("inspect", url, "--timeout", "5")
            if "  add: Add, after a reload." in r.stdout:
                break
            time.sleep(0.3)
        else:
            raise AssertionError("dev did not restart the server with the new code")
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(20)
    err = proc.stderr.read().decode() if proc.stderr else ""
    assert f"oxmcp dev: serving app.py on {url}; restarting on changes under {tmp_path}" in err
    assert "oxmcp dev: app.py changed, restarting" in err


CLIENT_FILES = {
    "claude-code": (".claude.json", "mcpServers", True),
    "claude-desktop": (".config/Claude/claude_desktop_config.json", "mcpServers", False),
    "cursor": (".cursor/mcp.json", "mcpServers", False),
    "vscode": (".config/Code/User/mcp.json", "servers", True),
}


@pytest.mark.parametrize("client", sorted(CLIENT_FILES))
def test_install_merges_into_each_clients_file(client: str, tmp_path: Path) -> None:
    rel, key, typed = CLIENT_FILES[client]
    env = {"HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / ".config")}
    path = tmp_path / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    other = {"command": "npx", "args": ["-y", "other-server"]}
    path.write_text(json.dumps({"theme": "dark", key: {"other": other}}))
    r = oxmcp("install", client, str(QUICKSTART), "--env", "API_KEY=k1", "--env", "MODE=a=b", env=env)
    assert r.returncode == 0, r.stderr
    assert r.stdout == f"added 'quickstart' in {client} config: {path}\n"
    data = json.loads(path.read_text())
    assert data["theme"] == "dark" and data[key]["other"] == other
    entry = data[key]["quickstart"]
    expected = {"command": sys.executable, "args": ["-m", "oxmcp", "run", str(QUICKSTART)],
                "env": {"API_KEY": "k1", "MODE": "a=b"}}
    assert entry == ({"type": "stdio", **expected} if typed else expected)
    assert list(entry)[0] == ("type" if typed else "command")
    # Again under another name: both stay; the same name again is an update, not a duplicate.
    assert oxmcp("install", client, f"{QUICKSTART}:server", "--name", "qs2", env=env).returncode == 0
    r = oxmcp("install", client, str(QUICKSTART), env=env)
    assert r.stdout.startswith("updated 'quickstart'")
    data = json.loads(path.read_text())
    assert set(data[key]) == {"other", "quickstart", "qs2"}
    assert data[key]["qs2"]["args"][-1] == f"{QUICKSTART}:server"
    assert "env" not in data[key]["quickstart"]
    if client == "cursor":
        # The entry it writes starts the server: run it as the client would and list the tools.
        e = data[key]["quickstart"]
        r = oxmcp("inspect", "--", e["command"], *e["args"])
        assert r.returncode == 0 and "tools (2)" in r.stdout, r.stderr


def test_install_print_writes_nothing_and_bad_json_is_left_alone(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path)}
    r = oxmcp("install", "cursor", str(QUICKSTART), "--print", "--name", "calc", env=env)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == {"mcpServers": {"calc": {"command": sys.executable,
                                                            "args": ["-m", "oxmcp", "run", str(QUICKSTART)]}}}
    assert not (tmp_path / ".cursor").exists()
    (tmp_path / ".cursor").mkdir()
    (tmp_path / ".cursor" / "mcp.json").write_text("{not json")
    r = oxmcp("install", "cursor", str(QUICKSTART), env=env)
    assert r.returncode == 1
    assert r.stderr == f"oxmcp: error: {tmp_path / '.cursor' / 'mcp.json'} is not valid JSON; not touching it\n"
    assert (tmp_path / ".cursor" / "mcp.json").read_text() == "{not json"


def test_install_keeps_the_files_mode_and_a_symlink_and_leaves_no_temp_files(tmp_path: Path) -> None:
    # Client configs hold API keys in "env": a new one is private to its owner, an existing one
    # keeps the mode its owner gave it, and a symlinked one (dotfiles) stays a link to its target.
    env = {"HOME": str(tmp_path)}
    cursor = tmp_path / ".cursor"
    path = cursor / "mcp.json"
    assert oxmcp("install", "cursor", str(QUICKSTART), env=env).returncode == 0
    assert path.stat().st_mode & 0o7777 == 0o600
    assert oxmcp("install", "cursor", str(QUICKSTART), "--name", "b", env=env).returncode == 0
    assert path.stat().st_mode & 0o7777 == 0o600
    path.chmod(0o640)
    assert oxmcp("install", "cursor", str(QUICKSTART), "--name", "c", env=env).returncode == 0
    assert path.stat().st_mode & 0o7777 == 0o640
    assert sorted(json.loads(path.read_text())["mcpServers"]) == ["b", "c", "quickstart"]
    assert os.listdir(cursor) == ["mcp.json"]

    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    target = dotfiles / "cursor-mcp.json"
    path.rename(target)
    target.chmod(0o600)
    path.symlink_to(Path("..") / "dotfiles" / "cursor-mcp.json")
    r = oxmcp("install", "cursor", str(QUICKSTART), "--name", "d", env=env)
    assert r.returncode == 0, r.stderr
    assert path.is_symlink() and os.readlink(path) == str(Path("..") / "dotfiles" / "cursor-mcp.json")
    assert sorted(json.loads(target.read_text())["mcpServers"]) == ["b", "c", "d", "quickstart"]
    assert target.stat().st_mode & 0o7777 == 0o600
    assert os.listdir(cursor) == ["mcp.json"] and os.listdir(dotfiles) == ["cursor-mcp.json"]
    # A link whose target does not exist yet: the target is created, the link kept.
    path.unlink()
    path.symlink_to(dotfiles / "new.json")
    assert oxmcp("install", "cursor", str(QUICKSTART), env=env).returncode == 0
    assert path.is_symlink() and "quickstart" in json.loads((dotfiles / "new.json").read_text())["mcpServers"]
    assert (dotfiles / "new.json").stat().st_mode & 0o7777 == 0o600
    assert sorted(os.listdir(dotfiles)) == ["cursor-mcp.json", "new.json"]


def test_inspect_shows_what_was_discovered_and_from_where() -> None:
    # The discovery fixture discovers its tools in its own code; `add` is then registered by hand,
    # which wins, so it is not among the discovered.
    app = ROOT / "tests" / "fixtures" / "discovery" / "python" / "server.py"
    r = oxmcp("inspect", "--json", str(app))
    assert r.returncode == 0, r.stderr
    found = json.loads(r.stdout)["discovered"]
    assert [(d["kind"], d["name"]) for d in found] == [("tool", "multiply"), ("tool", "shout")]
    assert found[0]["from"].startswith("disco_tools.math:") and found[1]["from"].startswith("disco_tools.text.shout:")
    text = oxmcp("inspect", str(app)).stdout.splitlines()
    at = text.index("discovered (2)")
    assert text[at + 1] == f"  tool multiply \u2190 {found[0]['from']}"
    # A server without discovery prints no such section.
    assert "discovered" not in json.loads(oxmcp("inspect", "--json", str(QUICKSTART)).stdout)
