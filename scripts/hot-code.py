#!/usr/bin/env python3
"""Write bindings-<node|python>/hot-code.ld: the linker script that puts a binding's hot code together.

Why: a server that has started and answered its first calls runs about 1.1 MB of the native
module's 9 MB of code, but that code is spread across the whole file, and every first touch of a
page maps the kernel's 64 KB fault-around window (more, for a large page-cache folio). So about
5 MiB of the text ends up resident at idle (docs/PERFORMANCE.md, "Hot code together"). Placing the
functions that start-up and the calls run next to each other makes those touches land in few
windows.

How: it runs the binding's bench server (bench/servers/oxmcp_node.mjs with the given addon, or
bench/servers/oxmcp_py.py with the given interpreter's oxmcp) under `valgrind --tool=callgrind`,
over real HTTP on 127.0.0.1. The module must be a release build with its symbol table (callgrind
names functions from it):
  1. start-up, one `tools/call add` and one `tools/list`: what every server runs before idle;
     callgrind dumps here;
  2. a bounded load: `add`, `echo` and `tools/list` on 16 keep-alive connections, a legacy
     `initialize` session with a call, then SIGINT (shutdown).
The module's functions from phase 1, then those only in phase 2, become input-section rules in
that order: first by exact name, which places just what ran in a build like the profiled one;
then again with the symbol's hash as a glob (`17h<16 hex>E`, v0's `Cs<base62>_`), because the
hash changes with the target triple, the profile and the toolchain while the path stays. Such a
build gets all instances of a generic function that ran, so its hot section is about twice as
large.

The script is used when OXMCP_HOT_CODE=1 and the target is x86_64-unknown-linux-gnu (the
bindings' build.rs); build-native.cjs, scripts/setup.sh, the release scripts and the workflow set
it. A function that is missing from a later build is simply not matched: a stale script costs
memory, never correctness, and tests/node/hot-code.test.mjs and tests/python/test_hot_code.py fail
when it no longer names most of today's functions. To rewrite them, from release builds made for
the target triple as the release workflow makes them:

    OXMCP_HOT_CODE=1 cargo build --release --target x86_64-unknown-linux-gnu -p oxmcp-node
    cp target/x86_64-unknown-linux-gnu/release/liboxmcp_node.so /tmp/oxmcp-profile.node  # *.node only
    python3 scripts/hot-code.py node /tmp/oxmcp-profile.node
    python3 scripts/hot-code.py python /tmp/oxmcp-bench/venv/bin/python   # bench/setup.sh ours built it
"""
from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MODERN = "2026-07-28"
LEGACY = "2025-11-25"


def post(conn: http.client.HTTPConnection, method: str, params: dict, id_: int, proto: str = MODERN,
         session: str | None = None) -> tuple[int, dict, bytes]:
    p = dict(params)
    h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if method != "initialize":
        h["MCP-Protocol-Version"] = proto
    if proto == MODERN:
        p["_meta"] = {"io.modelcontextprotocol/protocolVersion": MODERN,
                      "io.modelcontextprotocol/clientCapabilities": {}}
        h["Mcp-Method"] = method
        if method == "tools/call":
            h["Mcp-Name"] = p["name"]
    if session:
        h["Mcp-Session-Id"] = session
    body: dict = {"jsonrpc": "2.0", "method": method, "params": p}
    if id_ >= 0:
        body["id"] = id_
    conn.request("POST", "/mcp", body=json.dumps(body).encode(), headers=h)
    r = conn.getresponse()
    data = r.read()
    return r.status, {k.lower(): v for k, v in r.getheaders()}, data


def add(i: int) -> tuple[str, dict]:
    return "tools/call", {"name": "add", "arguments": {"a": i, "b": 2}}


def ok(status: int, data: bytes, what: str) -> None:
    if status != 200 or b'"result"' not in data:
        raise RuntimeError(f"{what}: HTTP {status} {data[:200]!r}")


def wait_ready(port: int, p: subprocess.Popen, timeout: float) -> None:
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        if p.poll() is not None:
            raise RuntimeError(f"the server exited with {p.returncode}")
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            st, _, data = post(conn, *add(1), 1)
            conn.close()
            ok(st, data, "tools/call add")
            return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"not ready after {timeout:.0f} s")


def load(port: int) -> None:
    """Phase 2: bounded (16 connections × 30 requests, then a legacy session with 3 requests)."""
    errors: list[str] = []

    def worker(w: int) -> None:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            for i in range(30):
                m, params = (add(i) if i % 3 == 0 else ("tools/list", {}) if i % 3 == 1
                             else ("tools/call", {"name": "echo", "arguments": {"text": f"w{w}"}}))
                st, _, data = post(conn, m, params, i)
                ok(st, data, m)
            conn.close()
        except (OSError, RuntimeError) as e:
            errors.append(repr(e))

    threads = [threading.Thread(target=worker, args=(w,)) for w in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    st, h, data = post(conn, "initialize", {"protocolVersion": LEGACY, "capabilities": {},
                                            "clientInfo": {"name": "hot-code", "version": "0"}}, 0, LEGACY)
    ok(st, data, "initialize")
    sid = h.get("mcp-session-id")
    post(conn, "notifications/initialized", {}, -1, LEGACY, sid)
    for i, (m, params) in enumerate([add(5), ("tools/list", {})], start=1):
        st, _, data = post(conn, m, params, i, LEGACY, sid)
        ok(st, data, f"legacy {m}")
    conn.close()
    if errors:
        raise RuntimeError(f"load: {errors[:3]}")


def symbols(module: Path) -> set[str]:
    """The module's defined function symbols (`nm`)."""
    out = subprocess.run(["nm", "--defined-only", str(module)], check=True, capture_output=True, text=True).stdout
    names = (p[2] for p in (ln.split() for ln in out.splitlines()) if len(p) == 3 and p[1] in "tTwW")
    return {n for n in names if re.fullmatch(r"[A-Za-z0-9_$.]+", n)}  # what a linker script can name


def functions(callgrind_out: Path, obj: str, known: set[str]) -> list[str]:
    """The functions of object `obj` that have a cost in a callgrind dump, in file order.

    valgrind 3.19 names the object `???` when its code segment does not start on a page (as in
    a module linked with this script), so functions of `???` count when the module defines them."""
    obs: dict[str, str] = {}
    fns: dict[str, str] = {}
    cur = ""
    seen: set[str] = set()
    out: list[str] = []
    line_re = re.compile(r"^(c?)(ob|fn)=\((\d+)\)(?: (.*))?$")
    for line in callgrind_out.read_text(errors="replace").splitlines():
        m = line_re.match(line)
        if not m:
            continue
        callee, kind, idx, name = m.groups()
        table = obs if kind == "ob" else fns
        if name is not None:
            table[idx] = name
        if callee:
            continue
        if kind == "ob":
            cur = obs[idx]
        elif cur in (obj, "???"):
            f = re.sub(r"'\d+$", "", fns[idx])  # callgrind's recursion-depth suffix
            if f in known and f not in seen:
                seen.add(f)
                out.append(f)
    return out


def glob(symbol: str) -> str:
    """The symbol with its hash replaced by `*`: the same function in a build of another target
    triple, profile or toolchain (all instances, for a generic one)."""
    s = re.sub(r"17h[0-9a-f]{16}E", "17h*E", symbol)
    s = re.sub(r"Cs[0-9A-Za-z]+_", "Cs*_", s)
    return re.sub(r"\.llvm\.\d+$", ".llvm.*", s)


def rule(name: str) -> str:
    # `.text*.`: LLVM puts a cold function (`#[cold]`: growth, panics) in `.text.unlikely.<name>`.
    return f"    *(.text*.{name})"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("binding", choices=["node", "python"])
    ap.add_argument("module", help="node: a release build of the addon with its symbol table, named *.node; "
                    "python: an interpreter with a release build of oxmcp installed")
    ap.add_argument("--out", help="default: bindings-<binding>/hot-code.ld")
    ap.add_argument("--node", default=shutil.which("node") or "node")
    a = ap.parse_args()
    out = Path(a.out) if a.out else ROOT / f"bindings-{a.binding}" / "hot-code.ld"
    if a.binding == "node":
        module = Path(a.module).resolve()
        if module.suffix != ".node":
            sys.exit("hot-code: node loads a native module only from a *.node file; copy it to one")
        server, env = [a.node, str(ROOT / "bench" / "servers" / "oxmcp_node.mjs")], {"OXMCP_NATIVE": str(module)}
    else:
        module = Path(subprocess.run([a.module, "-c", "import oxmcp._oxmcp as m; print(m.__file__)"],
                                     check=True, capture_output=True, text=True).stdout.strip()).resolve()
        server, env = [a.module, str(ROOT / "bench" / "servers" / "oxmcp_py.py")], {}
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    work = Path(tempfile.mkdtemp(prefix="oxmcp-hot-code-"))
    cg = work / "cg.out"
    cmd = ["valgrind", "--tool=callgrind", "--demangle=no", f"--callgrind-out-file={cg}",
           *server, "--http", f"127.0.0.1:{port}"]
    with open(work / "server.log", "wb") as log:
        p = subprocess.Popen(cmd, env=dict(os.environ, **env), stdout=log, stderr=log)
    try:
        wait_ready(port, p, 300)
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        ok(*post(conn, "tools/list", {}, 2)[::2], "tools/list")
        conn.close()
        time.sleep(1)
        subprocess.run(["callgrind_control", "-d", "idle", str(p.pid)], check=True, capture_output=True)
        load(port)
        p.send_signal(signal.SIGINT)
        p.wait(300)
    finally:
        if p.poll() is None:
            p.kill()
    dumps = sorted(work.glob("cg.out.*"))
    if len(dumps) != 1 or not cg.exists():
        sys.exit(f"hot-code: expected one dump and a final profile in {work}; see server.log there")
    known = symbols(module)
    idle = functions(dumps[0], str(module), known)
    ran_idle = set(idle)
    rest = [f for f in functions(cg, str(module), known) if f not in ran_idle]
    if len(idle) < 100:
        sys.exit(f"hot-code: only {len(idle)} functions of {module} ran; is it the module the server loaded?")
    # Exact names first: the build this profile came from (napi's `--target` build) places just
    # what ran. Then the same functions with their hash as a glob, for builds whose hashes differ.
    globs = list(dict.fromkeys(glob(f) for f in idle + rest))
    # `.text.startup`: the constructors that run at load, all of them (napi's class
    # registrations; the `ctor` crate names that section without the function).
    rules = ["    *(.text.startup .text.startup.*)"] + [rule(f) for f in idle + rest] + [rule(g) for g in globs]
    out.write_text(
        f"/* The {a.binding} binding's hot code, together (scripts/hot-code.py wrote this; do not edit).\n"
        f"   {len(idle)} functions run by start-up and the first calls, {len(rest)} more by load and\n"
        f"   shutdown, then {len(globs)} globs of the same names for builds whose symbol hashes differ.\n"
        f"   Used by bindings-{a.binding}/build.rs when OXMCP_HOT_CODE=1. */\n"
        "SECTIONS\n{\n  .text.hot :\n  {\n" + "\n".join(rules) + "\n  }\n}\nINSERT BEFORE .text;\n")
    print(f"hot-code: {len(idle)} + {len(rest)} functions, {len(globs)} globs -> {out}")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
