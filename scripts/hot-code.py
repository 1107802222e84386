#!/usr/bin/env python3
"""Profile a native module's hot code into a linker script, and check a module linked with one.

Why: a server that has started and answered its first calls runs about 1.1 MB of the native
module's 9 MB of code, but that code is spread across the whole file, and every first touch of a
page maps the kernel's 64 KB fault-around window (more, for a large page-cache folio). So about
5 MiB of the text ends up resident at idle (docs/PERFORMANCE.md, "Hot code together"). Placing the
functions that start-up and the calls run next to each other makes those touches land in few
windows.

The script is made for one build and used by the next link of that same build, never committed:

  1. build the module (its symbol table kept: callgrind and `nm` name functions from it);
  2. `hot-code.py profile node|python|rust MODULE --out FILE` runs the binding's bench server
     (bench/servers/oxmcp_node.mjs with that addon, bench/servers/oxmcp_py.py with that wheel or
     interpreter, or the Rust server binary itself, examples/rust/bench_server.rs) under
     `valgrind --tool=callgrind`, over real HTTP on 127.0.0.1:
       a. start-up, one `tools/call add` (the first `--call`) and one `tools/list`: what every
          server runs before idle; callgrind dumps here;
       b. a bounded load: `add`, `echo` (the `--call`s) and `tools/list` on 16 keep-alive
          connections, a legacy `initialize` session with a call, then SIGINT (shutdown);
     and writes the module's functions from (a), then those only in (b), as input-section rules
     of an output section `.text.hot` inserted before `.text`;
  3. build again with OXMCP_HOT_CODE_LD=FILE (an absolute path): the bindings' build.rs link
     the cdylib with it (examples/build.rs, the example binaries). Cargo reruns build.rs and
     recompiles that crate only; the symbol names stay those of step 1, so every rule names a
     function of the new build;
  4. `hot-code.py check MODULE FILE` reads the relinked module with `readelf` and `nm`: the
     named functions are in `.text.hot`, which sits before `.text` and holds little else. A
     stripped module (the published wheel) has no symbol table; then it checks that `.text.hot`
     exists and is as large as the functions the script names.

scripts/release-local.sh, bench/setup.sh and .github/workflows/release.yml do these steps for
x86_64 Linux (glibc); the files go in the build's target directory (`target/hot-code/`).
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
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MODERN = "2026-07-28"
LEGACY = "2025-11-25"
ALIGN = 16  # the functions' alignment on x86_64, for the size a stripped module's .text.hot should have


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


# The calls the profile makes: the bench servers' tools unless `--call` names others.
CALLS: list[tuple[str, dict]] = [("add", {"a": 1, "b": 2}), ("echo", {"text": "hot"})]


def call(i: int) -> tuple[str, dict]:
    """The i-th request of the profile's mix: each call in turn, then a `tools/list`."""
    if i % (len(CALLS) + 1) == len(CALLS):
        return "tools/list", {}
    name, args = CALLS[i % (len(CALLS) + 1)]
    return "tools/call", {"name": name, "arguments": args}


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
            st, _, data = post(conn, *call(0), 1)
            conn.close()
            ok(st, data, f"tools/call {CALLS[0][0]}")
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
                m, params = call(i + w)
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
    for i, (m, params) in enumerate([call(0), ("tools/list", {})], start=1):
        st, _, data = post(conn, m, params, i, LEGACY, sid)
        ok(st, data, f"legacy {m}")
    conn.close()
    if errors:
        raise RuntimeError(f"load: {errors[:3]}")


def symbols(module: Path) -> dict[str, tuple[int, int]]:
    """The module's defined function symbols (`nm`): name -> (address, size)."""
    out = subprocess.run(["nm", "--defined-only", "-S", str(module)], check=True, capture_output=True,
                         text=True).stdout
    found: dict[str, tuple[int, int]] = {}
    for parts in (ln.split() for ln in out.splitlines()):
        if len(parts) == 4 and parts[2] in "tTwW" and re.fullmatch(r"[A-Za-z0-9_$.]+", parts[3]):
            found[parts[3]] = (int(parts[0], 16), int(parts[1], 16))  # what a linker script can name
    return found


def functions(callgrind_out: Path, obj: str, known: dict[str, tuple[int, int]]) -> list[str]:
    """The functions of object `obj` that have a cost in a callgrind dump, in file order.

    valgrind 3.19 names the object `???` when its code segment does not start on a page (as in
    a module linked with a hot-code script), so functions of `???` count when the module defines
    them."""
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


def group(comment: str, names: list[str]) -> list[str]:
    """One input-section description naming each function's section exactly (rustc and cc-rs give
    each function its own; LLVM puts a `#[cold]` one in `.text.unlikely.<name>`). A linker
    matches every description against every input section, so one list, not one rule per
    function: a debug link took 3.6 s instead of 17 s with 1,500 names. Within a list the
    sections keep their input order."""
    if not names:
        return []
    return [f"    /* {comment} */", "    *("] + [f"      .text.{n} .text.unlikely.{n}" for n in names] + ["    )"]


def served(binding: str, module: str, python: str, node: str, work: Path) -> tuple[list[str], dict[str, str], Path]:
    """The bench server's command, its environment and the native module it loads (for `rust`, the
    server binary itself: the examples' `bench-server`)."""
    if binding == "rust":
        binary = Path(module).resolve()
        return [str(binary)], {}, binary
    if binding == "node":
        addon = Path(module).resolve()
        if addon.suffix != ".node":  # node loads a native module only from a *.node file
            shutil.copy2(addon, work / "oxmcp.node")
            addon = work / "oxmcp.node"
        return [node, str(ROOT / "bench" / "servers" / "oxmcp_node.mjs")], {"OXMCP_NATIVE": str(addon)}, addon
    env: dict[str, str] = {}
    if module.endswith(".whl"):
        # A wheel: unpacked first on the path of `python`, which brings the dependencies.
        with zipfile.ZipFile(module) as z:
            z.extractall(work / "wheel")
        env["PYTHONPATH"] = os.pathsep.join([str(work / "wheel"), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    else:
        python = module
    found = subprocess.run([python, "-c", "import oxmcp._oxmcp as m; print(m.__file__)"], check=True,
                           capture_output=True, text=True, env=dict(os.environ, **env)).stdout.strip()
    ext = Path(found).resolve()
    if "PYTHONPATH" in env and not ext.is_relative_to(work / "wheel"):
        sys.exit(f"hot-code: {python} imports oxmcp from {ext}, not from the wheel")
    return [python, str(ROOT / "bench" / "servers" / "oxmcp_py.py")], env, ext


def profile(a: argparse.Namespace) -> None:
    work = Path(tempfile.mkdtemp(prefix="oxmcp-hot-code-"))
    server, env, module = served(a.binding, a.module, a.python, a.node, work)
    known = symbols(module)
    if len(known) < 1000:
        sys.exit(f"hot-code: {module} has {len(known)} function symbols: build it with its symbol table")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    cg = work / "cg.out"
    cmd = ["valgrind", "--tool=callgrind", "--demangle=no", f"--callgrind-out-file={cg}",
           *server, *a.args.replace("{port}", str(port)).split()]
    t0 = time.monotonic()
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
    idle = functions(dumps[0], str(module), known)
    ran_idle = set(idle)
    rest = [f for f in functions(cg, str(module), known) if f not in ran_idle]
    if len(idle) < 100:
        sys.exit(f"hot-code: only {len(idle)} functions of {module} ran; is it the module the server loaded?")
    if a.limit:
        # A debug build runs ten times as many (uninlined) functions, and a linker matches each
        # rule against every input section: CI's dev-profile run names the first ones only.
        idle, rest = idle[:a.limit], rest[:max(0, a.limit - len(idle))]
    size = sum(-(-known[f][1] // ALIGN) * ALIGN for f in idle + rest)
    # `.text.startup`: the constructors that run at load, all of them (napi's class
    # registrations; the `ctor` crate names that section without the function).
    rules = (["    *(.text.startup .text.startup.*)"] + group("start-up and the first calls", idle)
             + group("load and shutdown", rest))
    out = Path(a.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(
        f"/* The {a.binding} binding's hot code, together: scripts/hot-code.py profiled {module.name}\n"
        f"   and wrote this for the next link of the same build (OXMCP_HOT_CODE_LD, build.rs).\n"
        f"   {len(idle)} functions run by start-up and the first calls, {len(rest)} more by load and\n"
        f"   shutdown; hot-code-bytes: {size} */\n"
        "SECTIONS\n{\n  .text.hot :\n  {\n" + "\n".join(rules) + "\n  }\n}\nINSERT BEFORE .text;\n")
    print(f"hot-code: {len(idle)} + {len(rest)} functions ({size / 1e6:.2f} MB) -> {out} "
          f"({time.monotonic() - t0:.0f} s)")
    shutil.rmtree(work, ignore_errors=True)


def sections(module: Path) -> dict[str, tuple[int, int]]:
    """The module's sections: name -> (address, size), from `readelf -SW`."""
    out = subprocess.run(["readelf", "-SW", str(module)], check=True, capture_output=True, text=True).stdout
    found = {}
    for m in re.finditer(r"\]\s+(\S+)\s+\S+\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)", out):
        found[m.group(1)] = (int(m.group(2), 16), int(m.group(3), 16))
    return found


def check(a: argparse.Namespace) -> None:
    """Exit non-zero unless MODULE holds the functions SCRIPT names together in `.text.hot`."""
    module, script = Path(a.module), Path(a.script).read_text()
    named = re.findall(r"^\s+\.text\.(\S+) \.text\.unlikely\.\S+$", script, re.MULTILINE)
    want = int(re.search(r"hot-code-bytes: (\d+)", script).group(1))  # type: ignore[union-attr]
    secs = sections(module)
    if ".text.hot" not in secs or ".text" not in secs:
        sys.exit(f"hot-code: {module} has no .text.hot section: was it linked with OXMCP_HOT_CODE_LD?")
    lo, size = secs[".text.hot"]
    hi = lo + size
    fail = []
    if not 0 <= secs[".text"][0] - hi < 4096:
        fail.append(".text.hot is not right before .text")
    # The section holds the named functions (padded), the constructors and little else.
    if not 0.9 * want <= size <= 1.25 * want:
        fail.append(f".text.hot is {size} bytes for {want} bytes of named functions")
    known = symbols(module)
    if known:
        inside = [f for f in named if f in known and lo <= known[f][0] < hi]
        missing = [f for f in named if f not in known]
        outside = [f for f in named if f in known and f not in inside]
        print(f"hot-code: {module.name}: {len(inside)} of {len(named)} named functions in .text.hot, "
              f"{len(outside)} outside, {len(missing)} not in the module; .text.hot {size} bytes, "
              f"named {want}")
        if len(inside) < 0.98 * len(named) or len(outside) > 0.01 * len(named):
            fail.append(f"{len(outside)} named functions outside .text.hot, {len(missing)} missing: "
                        f"{(outside + missing)[:3]}")
    else:
        print(f"hot-code: {module.name} (stripped): .text.hot {size} bytes, named functions {want}")
    if fail:
        sys.exit(f"hot-code: {module}: " + "; ".join(fail))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    p = sub.add_parser("profile", help="run the bench server under callgrind and write the linker script")
    p.add_argument("binding", choices=["node", "python", "rust"])
    p.add_argument("module", help="node: the addon (a build with its symbol table); python: the wheel, or an "
                   "interpreter with the wheel installed; rust: a server binary (the examples' bench-server, or "
                   "one of your own with --args and --call)")
    p.add_argument("--args", default="--http 127.0.0.1:{port}", help="the server's arguments ({port}: a free "
                   "port); it serves Streamable HTTP at http://127.0.0.1:{port}/mcp")
    p.add_argument("--call", action="append", metavar="TOOL=JSON", help="a tools/call the profile makes (the "
                   "first one at start-up, all of them in the load), arguments as a JSON object; default: the "
                   "bench's add={\"a\": 1, \"b\": 2} and echo={\"text\": \"hot\"}")
    p.add_argument("--out", required=True, help="the linker script to write (in the build's target directory)")
    p.add_argument("--python", default=sys.executable, help="python with a wheel: the interpreter that runs it "
                   "(it brings the dependencies)")
    p.add_argument("--node", default=shutil.which("node") or "node")
    p.add_argument("--limit", type=int, help="name at most this many functions, start-up's first")
    c = sub.add_parser("check", help="check that a module linked with the script holds its functions together")
    c.add_argument("module")
    c.add_argument("script")
    a = ap.parse_args()
    if a.command == "profile" and a.call:
        CALLS[:] = [(c.split("=", 1)[0], json.loads(c.split("=", 1)[1])) for c in a.call]
    profile(a) if a.command == "profile" else check(a)


if __name__ == "__main__":
    main()
