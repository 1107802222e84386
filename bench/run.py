#!/usr/bin/env python3
"""oxmcp benchmark: oxmcp (Rust, Python, Node) next to its peers, from one run.

    python3 bench/run.py --only oxmcp-rust,rmcp,ceiling --duration 10 --rounds 3

For every round and every server (order rotated each round):
  1. start it pinned to CPU 0 (`taskset -c 0`; this script and the load generator
     run on CPU 1); cold start = spawn -> first successful tools/call add;
  2. check one add and one tools/list response in full (JSON or SSE);
  3. idle RSS of the process tree 1 s later;
  4. load phases with bench/loadgen (closed loop, keep-alive, TCP_NODELAY):
     tools/call add at 1/16/64 connections, tools/list at 16; server CPU time
     (utime+stime of the tree, /proc) over the measured window / requests =
     CPU us per call; RSS sampled every 100 ms for the peak;
  5. stop it (SIGTERM to its process group, SIGKILL after 5 s);
  6. --cold-starts more cold starts, then the stdio round trip: the server on
     pipes, --stdio-calls sequential tools/call add after --stdio-warmup.
Protocol: the 2026-07-28 stateless revision (MCP-Protocol-Version, Mcp-Method,
Mcp-Name headers and `_meta` in the body) when the server answers it; otherwise
initialize (+ Mcp-Session-Id) as a legacy client, noted in the output.

Prints Markdown tables (medians over rounds, [min-max] when rounds > 1) and the
targets with ratios computed inside each round; raw records go to
<out>/results.jsonl. Standard library only. Peers that are not installed are
skipped with a note. Paths: see --help and bench/README.md.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import resource
import select
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from report import LEGACY, MiB, med, report

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
MODERN = "2026-07-28"
CLK_TCK = os.sysconf("SC_CLK_TCK")
PAGE = os.sysconf("SC_PAGE_SIZE")


def log(*a: object) -> None:
    print(time.strftime("%H:%M:%S"), *a, file=sys.stderr, flush=True)


# ------------------------------------------------------------------------------------- servers

def server_table(a: argparse.Namespace) -> list[dict]:
    """Every server the benchmark knows. `needs`: files that must exist, else it is skipped."""
    py_env: dict[str, str] = {}
    node_env = {"OXMCP_NATIVE": a.oxmcp_node_native} if a.oxmcp_node_native else {}
    kit = Path(a.kit)
    rb = Path(a.peers_rust_bin)
    return [
        {"name": "oxmcp-rust", "label": "oxmcp, Rust (examples bench-server)",
         "http": [a.oxmcp_rust_bin, "--http", "127.0.0.1:{port}"], "stdio": [a.oxmcp_rust_bin],
         "needs": [a.oxmcp_rust_bin]},
        {"name": "oxmcp-python", "label": "oxmcp, Python binding (bench/servers/oxmcp_py.py)",
         "http": [a.oxmcp_python, str(BENCH / "servers/oxmcp_py.py"), "--http", "127.0.0.1:{port}"],
         "stdio": [a.oxmcp_python, str(BENCH / "servers/oxmcp_py.py")], "env": py_env,
         "needs": [a.oxmcp_python]},
        {"name": "oxmcp-node", "label": "oxmcp, Node binding (bench/servers/oxmcp_node.mjs)",
         "http": [a.node, str(BENCH / "servers/oxmcp_node.mjs"), "--http", "127.0.0.1:{port}"],
         "stdio": [a.node, str(BENCH / "servers/oxmcp_node.mjs")], "env": node_env,
         "needs": [p for p in [a.oxmcp_node_native] if p]},
        {"name": "rmcp", "label": "rmcp (official Rust SDK) + axum, stateless, JSON responses",
         "http": [str(rb / "rmcp-server"), "--port", "{port}"], "stdio": [str(rb / "rmcp-server"), "--stdio"],
         "needs": [str(rb / "rmcp-server")]},
        {"name": "ceiling", "label": "bare hyper 1 + serde_json (not an MCP SDK)",
         "http": [str(rb / "ceiling"), "--port", "{port}"], "stdio": [str(rb / "ceiling"), "--stdio"],
         "needs": [str(rb / "ceiling")]},
        {"name": "node-floor", "label": "bare node:http + JSON.parse/stringify (not an MCP SDK: Node's own floor)",
         "http": [a.node, str(BENCH / "servers/node_floor.mjs"), "--port", "{port}"],
         "stdio": [a.node, str(BENCH / "servers/node_floor.mjs"), "--stdio"], "needs": []},
        {"name": "fastmcp", "label": "FastMCP, stateless_http, uvicorn 1 worker",
         "http": [a.peers_python, str(kit / "servers/py_fastmcp.py"), "http", "--port", "{port}"],
         "stdio": [a.peers_python, str(kit / "servers/py_fastmcp.py"), "stdio"], "env": py_env,
         "needs": [a.peers_python, str(kit / "servers/py_fastmcp.py")], "import": "fastmcp"},
        {"name": "pysdk", "label": "official Python SDK (mcp) MCPServer, stateless_http + json_response, uvicorn",
         "http": [a.peers_python, str(kit / "servers/py_sdk.py"), "http", "--port", "{port}"],
         "stdio": [a.peers_python, str(kit / "servers/py_sdk.py"), "stdio"], "env": py_env,
         "needs": [a.peers_python, str(kit / "servers/py_sdk.py")], "import": "mcp"},
        {"name": "ts-sdk", "label": "official TypeScript SDK v2, createMcpHandler on node:http",
         "http": [a.node, str(kit / "servers/ts_sdk.mjs"), "http", "--port", "{port}"],
         "stdio": [a.node, str(kit / "servers/ts_sdk.mjs"), "stdio"], "env": {"BENCH_NODE_DIR": a.peers_node_dir},
         "needs": [str(kit / "servers/ts_sdk.mjs"), str(Path(a.peers_node_dir) / "node_modules/@modelcontextprotocol/server")]},
    ]


def missing(s: dict, a: argparse.Namespace) -> str | None:
    for p in s["needs"]:
        if not Path(p).exists():
            return f"{p} not found"
    if s.get("import"):
        r = subprocess.run([a.peers_python, "-c", f"import {s['import']}"], capture_output=True, timeout=60)
        if r.returncode:
            return f"{a.peers_python} cannot import {s['import']}"
    return None


def expand(cmd: list[str], port: int) -> list[str]:
    return [c.replace("{port}", str(port)) for c in cmd]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ------------------------------------------------------------------------------------- messages

def msg(method: str, params: dict, id_: int | str, proto: str) -> dict:
    p = dict(params)
    if proto == MODERN:
        p["_meta"] = {"io.modelcontextprotocol/protocolVersion": MODERN,
                      "io.modelcontextprotocol/clientCapabilities": {}}
    return {"jsonrpc": "2.0", "id": id_, "method": method, "params": p}


def add_msg(proto: str, id_: int | str = 1) -> dict:
    return msg("tools/call", {"name": "add", "arguments": {"a": 1, "b": 2}}, id_, proto)


def list_msg(proto: str, id_: int | str = 1) -> dict:
    return msg("tools/list", {}, id_, proto)


def init_msg(id_: int | str = 0) -> dict:
    return {"jsonrpc": "2.0", "id": id_, "method": "initialize",
            "params": {"protocolVersion": LEGACY, "capabilities": {},
                       "clientInfo": {"name": "oxmcp-bench", "version": "0.1.0"}}}


def headers(m: dict, proto: str, session: str | None) -> dict[str, str]:
    h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if m.get("method") != "initialize":
        h["MCP-Protocol-Version"] = proto
    if proto == MODERN:
        h["Mcp-Method"] = m["method"]
        if m["method"] == "tools/call":
            h["Mcp-Name"] = m["params"]["name"]
    if session:
        h["Mcp-Session-Id"] = session
    return h


def enc(m: dict) -> bytes:
    return json.dumps(m, separators=(",", ":")).encode()


def check_add(r: dict | None) -> str | None:
    res = (r or {}).get("result")
    if not isinstance(res, dict) or res.get("isError"):
        return f"no result: {str(r)[:300]}"
    c = res.get("content") or []
    if not c or c[0].get("type") != "text" or c[0].get("text") != "3":
        return f"content is not text '3': {str(res)[:300]}"
    return None


def check_list(r: dict | None) -> str | None:
    res = (r or {}).get("result")
    names = {t.get("name") for t in (res or {}).get("tools", [])} if isinstance(res, dict) else set()
    return None if {"add", "echo"} <= names else f"tools/list: {str(r)[:300]}"


# Any-of substrings the load generator accepts (encoders differ in whitespace); the strict
# checks above run once before the load phases.
NEEDLES = {"add": ['"text":"3"', '"text": "3"'], "list": ['"name":"echo"', '"name": "echo"']}


# ------------------------------------------------------------------------------------- HTTP client

def parse_body(ct: str, body: bytes, want_id) -> dict | None:
    if ct.startswith("text/event-stream"):
        for block in body.decode("utf-8", "replace").replace("\r\n", "\n").split("\n\n"):
            data = "\n".join(ln[5:].lstrip() for ln in block.split("\n") if ln.startswith("data:"))
            try:
                m = json.loads(data) if data.strip() else None
            except ValueError:
                continue
            if isinstance(m, dict) and m.get("id") == want_id:
                return m
        return None
    try:
        m = json.loads(body) if body else None
    except ValueError:
        return None
    return m if isinstance(m, dict) else None


def post(url: str, m: dict, proto: str, session: str | None = None, timeout: float = 5.0):
    host_port, path = url[len("http://"):].split("/", 1)
    host, port = host_port.rsplit(":", 1)
    conn = http.client.HTTPConnection(host, int(port), timeout=timeout)
    try:
        conn.request("POST", "/" + path, body=enc(m), headers=headers(m, proto, session))
        r = conn.getresponse()
        body = r.read()
        hdrs = {k.lower(): v for k, v in r.getheaders()}
        return r.status, hdrs, parse_body(hdrs.get("content-type", ""), body, m.get("id")) if "id" in m else None
    finally:
        conn.close()


def open_http(url: str, proto: str | None) -> tuple[str, str | None]:
    """Find the revision the server answers (modern first) and open a legacy session if needed.
    Returns (protocol, session id). Raises when neither works."""
    if proto in (None, MODERN):
        st, _, r = post(url, add_msg(MODERN), MODERN)
        if st == 200 and check_add(r) is None:
            return MODERN, None
        if proto == MODERN:
            raise RuntimeError(f"modern tools/call failed: HTTP {st} {str(r)[:200]}")
    st, h, r = post(url, init_msg(), LEGACY)
    if st != 200 or not r or "result" not in r:
        raise RuntimeError(f"initialize failed: HTTP {st} {str(r)[:200]}")
    session = h.get("mcp-session-id")
    post(url, {"jsonrpc": "2.0", "method": "notifications/initialized"}, LEGACY, session)
    return LEGACY, session


# ------------------------------------------------------------------------------------- processes

def start(cmd: list[str], env: dict | None, **kw) -> subprocess.Popen:
    e = dict(os.environ)
    e.update(env or {})
    return subprocess.Popen(["taskset", "-c", ARGS.server_cpus] + cmd, env=e, start_new_session=True, **kw)


def stop(p: subprocess.Popen) -> None:
    """SIGTERM to the process group we created (its id is the pid we started), SIGKILL after 5 s."""
    for sig, wait in ((signal.SIGTERM, 5.0), (signal.SIGKILL, 5.0)):
        if p.poll() is not None:
            break
        try:
            os.killpg(p.pid, sig)
        except ProcessLookupError:
            break
        try:
            p.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            continue
    for f in (p.stdin, p.stdout, p.stderr):
        try:
            f and f.close()
        except OSError:
            pass


def tree(pid: int) -> list[int]:
    kids: dict[int, list[int]] = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                s = Path(f"/proc/{d}/stat").read_bytes()
            except OSError:
                continue
            kids.setdefault(int(s[s.rfind(b")") + 2:].split()[1]), []).append(int(d))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo += kids.get(p, [])
    return out


def rss(pids: list[int]) -> int:
    total = 0
    for p in pids:
        try:
            total += int(Path(f"/proc/{p}/statm").read_text().split()[1]) * PAGE
        except (OSError, IndexError, ValueError):
            pass
    return total


def cpu_s(pids: list[int]) -> float:
    """utime + stime of the processes (all their threads), seconds."""
    total = 0
    for p in pids:
        try:
            s = Path(f"/proc/{p}/stat").read_bytes()
        except OSError:
            continue
        f = s[s.rfind(b")") + 2:].split()
        total += int(f[11]) + int(f[12])
    return total / CLK_TCK


def wait_ready(url: str, proto: str | None, p: subprocess.Popen, t0: float, timeout: float):
    """Poll (every 2 ms) until a tools/call add succeeds; returns (seconds since t0, proto, session)."""
    last = ""
    while time.perf_counter() - t0 < timeout:
        if p.poll() is not None:
            raise RuntimeError(f"server exited with {p.returncode} before answering")
        try:
            pr, session = open_http(url, proto)
            if pr != MODERN:  # the legacy path answered initialize; now the call itself
                st, _, r = post(url, add_msg(pr), pr, session)
                if st != 200 or check_add(r):
                    raise RuntimeError(f"legacy tools/call: HTTP {st} {str(r)[:200]}")
            return time.perf_counter() - t0, pr, session
        except (OSError, http.client.HTTPException, RuntimeError) as e:
            last = repr(e)
        time.sleep(0.002)
    raise RuntimeError(f"not ready after {timeout:.0f} s: {last}")


# ------------------------------------------------------------------------------------- load

class Sampler(threading.Thread):
    """RSS of the tree every 100 ms; tree CPU time at the start and end of the measured window."""

    def __init__(self, pid: int, t_start: float, t_end: float):
        super().__init__(daemon=True)
        self.pid, self.t_start, self.t_end = pid, t_start, t_end
        self.peak = 0
        self.c0 = self.c1 = self.w0 = self.w1 = None
        self.done = threading.Event()

    def run(self) -> None:
        pids, refreshed = tree(self.pid), time.monotonic()
        while True:
            now = time.monotonic()
            if now - refreshed > 1.0:
                pids, refreshed = tree(self.pid), now
            self.peak = max(self.peak, rss(pids))
            if self.c0 is None and now >= self.t_start:
                self.c0, self.w0 = cpu_s(pids), now
            if self.c1 is None and now >= self.t_end:
                self.c1, self.w1 = cpu_s(pids), now
            if self.done.wait(0.1):
                break
        if self.c0 is not None and self.c1 is None:  # the load ended before the last tick
            self.c1, self.w1 = cpu_s(pids), min(time.monotonic(), self.t_end)


def load(p: subprocess.Popen, url: str, m: dict, proto: str, session: str | None, conns: int, kind: str,
         rate: float | None = None) -> dict:
    """One load phase; `rate`: open loop at that many requests per second (bench/tails.py)."""
    with tempfile.NamedTemporaryFile("wb", suffix=".json", delete=False) as f:
        f.write(enc(m))
        body = f.name
    cmd = ["taskset", "-c", ARGS.client_cpus, ARGS.loadgen, "--url", url, "--body-file", body,
           "-c", str(conns), "-d", str(ARGS.duration), "-w", str(ARGS.warmup),
           "--max-requests", str(ARGS.max_requests)] + (["--rate", f"{rate:.0f}"] if rate else [])
    for k, v in headers(m, proto, session).items():
        cmd += ["-H", f"{k}: {v}"]
    for n in NEEDLES[kind]:
        cmd += ["--expect", n]
    t0 = time.monotonic()
    samp = Sampler(p.pid, t0 + ARGS.warmup, t0 + ARGS.warmup + ARGS.duration)
    ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    samp.start()
    try:
        cp = subprocess.run(cmd, capture_output=True, text=True, timeout=ARGS.warmup + ARGS.duration + 30)
    finally:
        samp.done.set()
        samp.join()
        os.unlink(body)
    ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if cp.returncode != 0:
        raise RuntimeError(f"loadgen rc={cp.returncode}: {cp.stderr[-400:]}")
    r = json.loads(cp.stdout)
    r["client_cpu"] = ((ru1.ru_utime - ru0.ru_utime) + (ru1.ru_stime - ru0.ru_stime)) / (ARGS.warmup + ARGS.duration)
    if samp.c1 is not None and samp.w1 > samp.w0:
        util = (samp.c1 - samp.c0) / (samp.w1 - samp.w0)
        r["server_cpu"] = util
        r["cpu_us_per_req"] = util / r["rps"] * 1e6 if r["rps"] else None
    r["peak_rss"] = samp.peak
    return r


def bench_http(s: dict, rnd: int, proto_hint: str | None, out) -> dict:
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    errlog = open(Path(ARGS.out) / f"{s['name']}.stderr.log", "ab")
    t0 = time.perf_counter()
    p = start(expand(s["http"], port), s.get("env"), stdout=errlog, stderr=errlog)
    rec: dict = {"kind": "http", "server": s["name"], "round": rnd}
    try:
        rec["cold_start_s"], proto, session = wait_ready(url, proto_hint, p, t0, ARGS.ready_timeout)
        rec["protocol"], rec["session"] = proto, bool(session)
        st, _, r = post(url, add_msg(proto, 7), proto, session)
        if st != 200 or check_add(r):
            raise RuntimeError(f"add check: HTTP {st} {check_add(r)}")
        st, _, r = post(url, list_msg(proto, 8), proto, session)
        if st != 200 or check_list(r):
            raise RuntimeError(f"list check: HTTP {st} {check_list(r)}")
        time.sleep(ARGS.idle_wait)
        rec["idle_rss"] = rss(tree(p.pid))
        log(f"[{s['name']}] r{rnd} ready in {rec['cold_start_s'] * 1000:.0f} ms ({proto}"
            f"{', session' if session else ''}), idle RSS {rec['idle_rss'] / MiB:.1f} MiB")
        peak = rec["idle_rss"]
        rec["load"] = {}
        for kind, conns in [("add", c) for c in ARGS.call_conc] + [("list", c) for c in ARGS.list_conc]:
            m = (add_msg if kind == "add" else list_msg)(proto, 1)
            r = load(p, url, m, proto, session, conns, kind)
            peak = max(peak, r["peak_rss"])
            rec["load"][f"{kind}@{conns}"] = r
            log(f"[{s['name']}] r{rnd} {kind:4s} c={conns:<3d} {r['rps']:9.0f} req/s  p50 {r['p50_us']:7.0f} us  "
                f"p99 {r['p99_us']:7.0f} us  errors {r['errors']}  CPU/req {r.get('cpu_us_per_req') or 0:6.1f} us  "
                f"server {r.get('server_cpu', 0) * 100:3.0f}%  client {r['client_cpu'] * 100:3.0f}%")
            if r["errors"]:
                log(f"[{s['name']}]   first error: {r['first_error']}")
            if p.poll() is not None:
                raise RuntimeError(f"server died during {kind} c={conns}")
        rec["peak_rss"] = max(peak, rss(tree(p.pid)))
    except Exception as e:
        rec["error"] = str(e)
        log(f"[{s['name']}] r{rnd} FAILED: {e}")
    finally:
        stop(p)
        errlog.close()
    out.write(json.dumps(rec) + "\n")
    out.flush()
    return rec


def cold_starts(s: dict, proto: str | None, n: int) -> list[float]:
    out = []
    for _ in range(n):
        port = free_port()
        t0 = time.perf_counter()
        p = start(expand(s["http"], port), s.get("env"), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            out.append(wait_ready(f"http://127.0.0.1:{port}/mcp", proto, p, t0, ARGS.ready_timeout)[0])
        except RuntimeError as e:
            log(f"[{s['name']}] cold start failed: {e}")
        finally:
            stop(p)
    return out


# ------------------------------------------------------------------------------------- stdio

class Pipe:
    def __init__(self, p: subprocess.Popen):
        self.p, self.buf = p, b""

    def send(self, m: dict | bytes) -> None:
        self.p.stdin.write(m if isinstance(m, bytes) else enc(m) + b"\n")
        self.p.stdin.flush()

    def recv(self, want_id, deadline: float) -> dict:
        fd = self.p.stdout.fileno()
        while True:
            while b"\n" in self.buf:
                line, self.buf = self.buf.split(b"\n", 1)
                try:
                    m = json.loads(line)
                except ValueError:
                    continue
                if isinstance(m, dict) and m.get("id") == want_id and ("result" in m or "error" in m):
                    return m
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise RuntimeError(f"no response to id {want_id!r} in time")
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                raise RuntimeError(f"server closed stdout (rc={self.p.poll()})")
            self.buf += chunk


def bench_stdio(s: dict, rnd: int, out) -> dict:
    rec: dict = {"kind": "stdio", "server": s["name"], "round": rnd}
    p = start(s["stdio"], s.get("env"), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    pipe = Pipe(p)
    try:
        # Modern: no handshake, per-request _meta. Legacy-only servers: initialize first.
        proto = MODERN
        pipe.send(add_msg(MODERN, "probe"))
        try:
            r = pipe.recv("probe", time.monotonic() + min(ARGS.ready_timeout, 20.0))
        except RuntimeError:
            r = None
        if check_add(r):
            proto = LEGACY
            pipe.send(init_msg("init"))
            if "result" not in pipe.recv("init", time.monotonic() + 10):
                raise RuntimeError("initialize failed")
            pipe.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        rec["protocol"] = proto
        head, tail = enc(add_msg(proto, 999_999_999)).split(b"999999999", 1)
        lat, errors = [], 0
        deadline = time.monotonic() + ARGS.stdio_max_s
        for i in range(ARGS.stdio_warmup + ARGS.stdio_calls):
            data = head + str(i).encode() + tail + b"\n"
            t = time.perf_counter_ns()
            pipe.send(data)
            r = pipe.recv(i, deadline)
            dt = time.perf_counter_ns() - t
            errors += check_add(r) is not None
            if i >= ARGS.stdio_warmup:
                lat.append(dt / 1000)
        lat.sort()
        rec.update(calls=len(lat), errors=errors, p50_us=statistics.median(lat),
                   p99_us=lat[min(len(lat) - 1, int(0.99 * len(lat)))], mean_us=statistics.fmean(lat))
        log(f"[{s['name']}] r{rnd} stdio ({proto}) p50 {rec['p50_us']:.0f} us  p99 {rec['p99_us']:.0f} us  "
            f"errors {errors}")
    except Exception as e:
        rec["error"] = str(e)
        log(f"[{s['name']}] r{rnd} stdio FAILED: {e}")
    finally:
        try:
            p.stdin.close()
            p.wait(timeout=2)
        except Exception:
            pass
        stop(p)
    out.write(json.dumps(rec) + "\n")
    out.flush()
    return rec


# ------------------------------------------------------------------------------------- main

ARGS: argparse.Namespace


def parser() -> argparse.ArgumentParser:
    """The options of every runner here (bench/tails.py adds its own)."""
    kit_default = os.environ.get("BENCH_KIT", str(ROOT.parent / "shared" / "bench"))
    ob = os.environ.get("OXMCP_BENCH_DIR", "/tmp/oxmcp-bench")
    venv = os.environ.get("BENCH_VENV", "/tmp/bench-venv")
    native = f"{ob}/node/oxmcp.node"
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", help="comma-separated servers (default: all that are installed): oxmcp-rust, "
                    "oxmcp-python, oxmcp-node, rmcp, ceiling, node-floor, fastmcp, pysdk, ts-sdk")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--duration", type=float, default=10.0, help="measured seconds per load phase")
    ap.add_argument("--warmup", type=float, default=2.0, help="unmeasured seconds before each phase")
    ap.add_argument("--max-requests", type=int, default=5_000_000, help="cap per load phase")
    ap.add_argument("--call-conc", default="1,16,64")
    ap.add_argument("--list-conc", default="16")
    ap.add_argument("--cold-starts", type=int, default=3, help="extra cold starts per server and round")
    ap.add_argument("--stdio-calls", type=int, default=2000)
    ap.add_argument("--stdio-warmup", type=int, default=200)
    ap.add_argument("--stdio-max-s", type=float, default=120.0)
    ap.add_argument("--no-stdio", action="store_true")
    ap.add_argument("--idle-wait", type=float, default=1.0)
    ap.add_argument("--ready-timeout", type=float, default=60.0)
    ap.add_argument("--server-cpus", default="0")
    ap.add_argument("--client-cpus", default="1")
    ap.add_argument("--rt", type=int, default=0, metavar="PRIO",
                    help="run this runner, and so the servers and the load generator it starts, under SCHED_FIFO "
                    "at this priority (needs root): on a machine busy with other work they then get their cores "
                    "as on a quiet one; the kernel's RT throttling still leaves 5%% to everything else")
    ap.add_argument("--nice", type=int, default=0, help="run servers, load generator and runner at this niceness "
                    "(negative needs root; for a machine shared with other work)")
    ap.add_argument("--loadgen", default=str(BENCH / "loadgen/target/release/loadgen"))
    ap.add_argument("--oxmcp-rust-bin", default=os.environ.get("OXMCP_RUST_BIN", str(ROOT / "target/release/bench-server")))
    ap.add_argument("--oxmcp-python", default=os.environ.get("OXMCP_PYTHON", f"{ob}/venv/bin/python"),
                    help="interpreter with the oxmcp package (release wheel from bench/setup.sh)")
    ap.add_argument("--oxmcp-node-native", default=os.environ.get("OXMCP_NATIVE", native if Path(native).exists() else ""),
                    help="oxmcp.node to load (OXMCP_NATIVE); empty: the package's own bindings-node/oxmcp.node")
    ap.add_argument("--node", default=os.environ.get("BENCH_NODE", "node"))
    ap.add_argument("--kit", default=kit_default, help="the shared measurement kit (peer server programs)")
    ap.add_argument("--peers-python", default=f"{venv}/bin/python", help="interpreter with fastmcp and mcp")
    ap.add_argument("--peers-node-dir", default=os.environ.get("BENCH_NODE_DIR", "/tmp/bench-node"))
    ap.add_argument("--peers-rust-bin", default=os.environ.get("BENCH_RUST_TARGET", "/tmp/bench-rust-target") + "/release")
    ap.add_argument("--out", default=None, help="results directory (default bench/results/<timestamp>)")
    return ap


def selected(a: argparse.Namespace) -> list[dict]:
    """The servers `--only` names (default: all) that are installed."""
    table = server_table(a)
    if a.only:
        want = a.only.split(",")
        unknown = set(want) - {s["name"] for s in table}
        if unknown:
            raise SystemExit(f"unknown server(s) {sorted(unknown)}; known: {[s['name'] for s in table]}")
        table = [s for n in want for s in table if s["name"] == n]
    servers = []
    for s in table:
        why = missing(s, a)
        if why:
            log(f"SKIP {s['name']}: {why}")
            print(f"> skipped {s['name']}: {why}")
        else:
            servers.append(s)
    if not servers:
        raise SystemExit("nothing to measure")
    return servers


def main() -> None:
    global ARGS
    ap = parser()
    ARGS = ap.parse_args()
    ints = lambda s: [int(x) for x in s.split(",") if x]  # noqa: E731
    ARGS.call_conc, ARGS.list_conc = ints(ARGS.call_conc), ints(ARGS.list_conc)
    ARGS.out = ARGS.out or str(BENCH / "results" / time.strftime("%Y%m%d-%H%M%S"))
    Path(ARGS.out).mkdir(parents=True, exist_ok=True)
    if not Path(ARGS.loadgen).exists():
        raise SystemExit(f"{ARGS.loadgen} missing: cargo build --release --manifest-path bench/loadgen/Cargo.toml")
    try:
        os.sched_setaffinity(0, {int(x) for x in ARGS.client_cpus.split(",")})
    except (OSError, ValueError):
        pass
    if ARGS.nice:
        # --nice N (e.g. -10 on a machine shared with compilers): this runner, and so the servers
        # and the load generator it starts (they inherit it), get a larger share of their cores.
        os.setpriority(os.PRIO_PROCESS, 0, ARGS.nice)
    if ARGS.rt:
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(ARGS.rt))

    servers = selected(ARGS)

    started = time.strftime("%Y-%m-%d %H:%M:%S %Z")
    with open(Path(ARGS.out) / "results.jsonl", "a") as out:
        out.write(json.dumps({"kind": "meta", "started": started, "argv": sys.argv, "args": vars(ARGS),
                              "uname": " ".join(os.uname()), "loadavg": os.getloadavg()}) + "\n")
        # One discarded start per server: warms the page cache and finds the protocol it speaks.
        protos: dict[str, str | None] = {}
        for s in servers:
            port = free_port()
            t0 = time.perf_counter()
            p = start(expand(s["http"], port), s.get("env"), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            try:
                protos[s["name"]] = wait_ready(f"http://127.0.0.1:{port}/mcp", None, p, t0, ARGS.ready_timeout)[1]
            except RuntimeError as e:
                log(f"[{s['name']}] warm-up start failed: {e}")
                protos[s["name"]] = None
            finally:
                stop(p)
        rounds = []
        for rnd in range(ARGS.rounds):
            order = servers[rnd % len(servers):] + servers[:rnd % len(servers)]
            rd: dict = {}
            for s in order:
                n = s["name"]
                h = bench_http(s, rnd, protos[n], out)
                cold = ([h["cold_start_s"]] if "cold_start_s" in h else []) + cold_starts(s, protos[n], ARGS.cold_starts)
                out.write(json.dumps({"kind": "cold", "server": n, "round": rnd, "cold_s": cold}) + "\n")
                rd[n] = {"http": h, "cold_ms": med(cold) * 1000 if cold else None}
                if not ARGS.no_stdio:
                    rd[n]["stdio"] = bench_stdio(s, rnd, out)
            rounds.append(rd)
            log(f"round {rnd} done")
    load1, load5, _ = os.getloadavg()
    text = report(servers, rounds, ARGS.call_conc, ARGS.list_conc)
    head = (f"{started}, {ARGS.rounds} round(s), {ARGS.warmup:g} s warmup + {ARGS.duration:g} s per load phase; "
            f"servers on CPU {ARGS.server_cpus}, load generator on CPU {ARGS.client_cpus}"
            f"{f', nice {ARGS.nice}' if ARGS.nice else ''}{f', SCHED_FIFO {ARGS.rt}' if ARGS.rt else ''}; "
            f"load average at the end {load1:.2f} / {load5:.2f}")
    print(f"\n{head}\n\n{text}")
    (Path(ARGS.out) / "tables.md").write_text(f"{head}\n\n{text}\n")
    log("results in", ARGS.out)


if __name__ == "__main__":
    main()
