#!/usr/bin/env python3
"""Registry-scale benchmark: what one more registered tool costs, side by side.

For each server and N (generated tools `tool_i(a: int, b: int, note: str = "")` with a
description), over stdio, the server pinned to one core (`taskset -c CPU`):

* ready ms: spawn → the answer to the first `tools/list` (after `initialize`); CPU at ready: the
  server's user + system CPU time then (all threads: less sensitive to the machine's load);
* idle RSS: VmRSS 0.5 s after that answer and a few calls;
* per-tool bytes: (idle RSS at N − idle RSS at the smallest N) / (N − smallest N);
* with --settle S, settled RSS: the lowest VmRSS over S more seconds with no traffic, sampled
  every 0.5 s, and its per-tool bytes. Node's V8 grows its young generation while a script
  builds thousands of zod shapes and gives it back to the system only after 10–40 s idle (its
  memory reducer), so the 0.5 s figure of a Node server is mostly that slack, not what a tool
  keeps;
* list ms: median round trip of `tools/list` (the first page; the peers answer with all tools);
* call ms: median round trip of `tools/call` on the middle tool.

    python3 bench/registry.py                                  # everything installed, N = 10,1000,10000
    python3 bench/registry.py --only oxmcp-rust --sizes 10,5000 --repeat 3
    python3 bench/registry.py --sizes 10,1000,5000,10000 --settle 60       # and the settled RSS

Servers: oxmcp-rust (`target/release/examples/registry_server`, `cargo build --release -p oxmcp
--example registry_server`, with OXMCP_BENCH_TOOLS=N; or --rust-bin),
oxmcp-python (--python, default /tmp/oxmcp-bench/venv/bin/python: the release wheel of
bench/setup.sh), fastmcp ($BENCH_VENV), oxmcp-node (OXMCP_NATIVE=--node-native if it exists),
ts-sdk ($BENCH_NODE_DIR). A server that is not installed is skipped with a note.
Standard library only. Not a test: timings depend on the machine's load (printed with the table).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HERE = Path(__file__).resolve().parent / "registry"
BENCH_VENV = Path(os.environ.get("BENCH_VENV", "/tmp/bench-venv"))
BENCH_NODE_DIR = Path(os.environ.get("BENCH_NODE_DIR", "/tmp/bench-node"))
OXMCP_BENCH_DIR = Path(os.environ.get("OXMCP_BENCH_DIR", "/tmp/oxmcp-bench"))


class Stdio:
    """A newline-delimited JSON-RPC client over a child's stdin/stdout."""

    def __init__(self, argv: list[str], env: dict[str, str], cwd: Path, stderr_path: Path) -> None:
        self.err = open(stderr_path, "wb")
        self.t0 = time.perf_counter()
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.err,
                                  env=env, cwd=cwd)
        self.next_id = 0

    def send(self, msg: dict) -> None:
        assert self.p.stdin
        self.p.stdin.write((json.dumps(msg) + "\n").encode())
        self.p.stdin.flush()

    def request(self, method: str, params: dict | None = None, timeout: float = 120.0) -> dict:
        self.next_id += 1
        rid = self.next_id
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params or {}})
        deadline = time.monotonic() + timeout
        assert self.p.stdout
        while time.monotonic() < deadline:
            line = self.p.stdout.readline()
            if not line:
                raise RuntimeError(f"server exited during {method} (rc={self.p.poll()})")
            msg = json.loads(line)
            if msg.get("id") == rid:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg["result"]
        raise TimeoutError(method)

    def cpu_ms(self) -> float:
        """User + system CPU time the server has used so far (all its threads)."""
        fields = Path(f"/proc/{self.p.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")

    def rss_kib(self) -> int:
        for line in Path(f"/proc/{self.p.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        return 0

    def close(self) -> None:
        try:
            if self.p.stdin:
                self.p.stdin.close()
            self.p.wait(timeout=5)
        except Exception:
            self.p.kill()
            self.p.wait()
        self.err.close()


def servers(args: argparse.Namespace) -> dict[str, tuple[list[str], dict[str, str], Path] | str]:
    """name → (argv with {n}, extra env, cwd) or the reason it is skipped."""
    out: dict[str, tuple[list[str], dict[str, str], Path] | str] = {}
    rust = Path(args.rust_bin)
    out["oxmcp-rust"] = ([str(rust)], {"OXMCP_BENCH_TOOLS": "{n}"}, ROOT) if rust.exists() else f"no {rust}"
    py = Path(args.python)
    out["oxmcp-python"] = (([str(py), str(HERE / "py_server.py"), "oxmcp", "{n}"], {}, ROOT)
                           if py.exists() else f"no {py}")
    fpy = BENCH_VENV / "bin" / "python"
    out["fastmcp"] = (([str(fpy), str(HERE / "py_server.py"), "fastmcp", "{n}"], {}, ROOT)
                      if fpy.exists() else f"no {fpy} (bash bench/setup.sh peers)")
    env = {"BENCH_NODE_DIR": str(BENCH_NODE_DIR)}
    native = Path(args.node_native)
    if native.exists():
        env["OXMCP_NATIVE"] = str(native)
    out["oxmcp-node"] = (["node", str(HERE / "node_server.mjs"), "oxmcp", "{n}"], env, ROOT)
    ts = BENCH_NODE_DIR / "node_modules" / "@modelcontextprotocol" / "server"
    out["ts-sdk"] = ((["node", str(HERE / "node_server.mjs"), "ts-sdk", "{n}"], env, ROOT)
                     if ts.exists() else f"no {ts} (bash bench/setup.sh peers)")
    return out


def measure(name: str, spec: tuple[list[str], dict[str, str], Path], n: int, args: argparse.Namespace,
            outdir: Path) -> dict:
    argv, extra, cwd = spec
    argv = ["taskset", "-c", args.cpu] + [a.replace("{n}", str(n)) for a in argv]
    env = dict(os.environ)
    env.update({k: v.replace("{n}", str(n)) for k, v in extra.items()})
    c = Stdio(argv, env, cwd, outdir / f"{name}-{n}.stderr")
    try:
        c.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                 "clientInfo": {"name": "bench-registry", "version": "0"}})
        c.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        first = c.request("tools/list")
        ready_ms = (time.perf_counter() - c.t0) * 1000
        ready_cpu_ms = c.cpu_ms()
        page = len(first.get("tools", []))
        total = page
        cursor = first.get("nextCursor")
        while cursor:
            r = c.request("tools/list", {"cursor": cursor})
            total += len(r.get("tools", []))
            cursor = r.get("nextCursor")
        target = f"tool_{n // 2}"
        args_ = {"name": target, "arguments": {"a": 1, "b": 2}}
        r = c.request("tools/call", args_)
        text = r["content"][0]["text"]
        assert text == "3", r
        for _ in range(20):
            c.request("tools/call", args_)
        time.sleep(0.5)
        rss = c.rss_kib()
        lists = []
        for _ in range(args.list_reqs):
            t = time.perf_counter()
            c.request("tools/list")
            lists.append((time.perf_counter() - t) * 1000)
        calls = []
        for _ in range(args.call_reqs):
            t = time.perf_counter()
            c.request("tools/call", args_)
            calls.append((time.perf_counter() - t) * 1000)
        settled = rss
        deadline = time.monotonic() + args.settle
        while time.monotonic() < deadline:
            time.sleep(0.5)
            settled = min(settled, c.rss_kib())
        return {"server": name, "n": n, "ready_ms": ready_ms, "ready_cpu_ms": ready_cpu_ms, "rss_kib": rss,
                "settled_kib": settled, "page": page, "listed": total,
                "list_ms": statistics.median(lists), "call_ms": statistics.median(calls)}
    finally:
        c.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", default="oxmcp-rust,oxmcp-python,fastmcp,oxmcp-node,ts-sdk")
    ap.add_argument("--sizes", default="10,1000,10000")
    ap.add_argument("--repeat", type=int, default=1, help="runs per (server, N); the table shows medians")
    ap.add_argument("--cpu", default="0", help="taskset CPU list for the server")
    ap.add_argument("--list-reqs", type=int, default=30)
    ap.add_argument("--call-reqs", type=int, default=200)
    ap.add_argument("--settle", type=float, default=0.0,
                    help="seconds of no traffic after the measurements, for the settled RSS (0: none)")
    ap.add_argument("--rust-bin", default=str(ROOT / "target" / "release" / "examples" / "registry_server"))
    ap.add_argument("--python", default=str(OXMCP_BENCH_DIR / "venv" / "bin" / "python"))
    ap.add_argument("--node-native", default=str(OXMCP_BENCH_DIR / "node" / "oxmcp.node"))
    ap.add_argument("--out", default=None, help="directory for results.jsonl and the servers' stderr")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    outdir = Path(args.out or ROOT / "bench" / "results" / time.strftime("registry-%Y%m%d-%H%M%S"))
    outdir.mkdir(parents=True, exist_ok=True)
    table = servers(args)
    load = os.getloadavg()
    print(f"load average before: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}", file=sys.stderr)
    rows: list[dict] = []
    with open(outdir / "results.jsonl", "w") as log:
        for name in args.only.split(","):
            spec = table.get(name)
            if isinstance(spec, str) or spec is None:
                print(f"skip {name}: {spec or 'unknown server'}", file=sys.stderr)
                continue
            for n in sizes:
                runs = []
                for _ in range(args.repeat):
                    r = measure(name, spec, n, args, outdir)
                    print(json.dumps(r), file=log, flush=True)
                    print(f"  {name} N={n}: {r['ready_ms']:.0f} ms ready ({r['ready_cpu_ms']:.0f} ms CPU), "
                          f"{r['rss_kib'] / 1024:.1f} MiB (settled {r['settled_kib'] / 1024:.1f}), "
                          f"list {r['list_ms']:.2f} ms ({r['page']} of {r['listed']}), call {r['call_ms']:.2f} ms",
                          file=sys.stderr)
                    runs.append(r)
                med = {k: statistics.median(r[k] for r in runs)
                       for k in ("ready_ms", "ready_cpu_ms", "rss_kib", "settled_kib", "list_ms", "call_ms")}
                med.update(server=name, n=n, page=runs[0]["page"], listed=runs[0]["listed"],
                           ready_range=(min(r["ready_ms"] for r in runs), max(r["ready_ms"] for r in runs)))
                rows.append(med)
    load = os.getloadavg()
    print(f"load average after: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}", file=sys.stderr)
    settle = " settled RSS MiB | bytes/tool settled |" if args.settle else ""
    print("| server | tools | ready ms | CPU at ready ms | idle RSS MiB | bytes/tool |" + settle +
          " tools/list ms (tools in the answer) | tools/call ms |")
    print("|---|---|---|---|---|---|" + ("---|---|" if args.settle else "") + "---|---|")
    base: dict[str, dict] = {}

    def per_tool(r: dict, b: dict, key: str) -> str:
        return "" if r is b else f"{(r[key] - b[key]) * 1024 / (r['n'] - b['n']):,.0f}"

    for r in rows:
        b = base.setdefault(r["server"], r)
        per = per_tool(r, b, "rss_kib")
        settled = f" {r['settled_kib'] / 1024:.1f} | {per_tool(r, b, 'settled_kib')} |" if args.settle else ""
        lo, hi = r["ready_range"]
        rng = f" [{lo:.0f}–{hi:.0f}]" if args.repeat > 1 else ""
        print(f"| {r['server']} | {r['n']:,} | {r['ready_ms']:.0f}{rng} | {r['ready_cpu_ms']:.0f} | "
              f"{r['rss_kib'] / 1024:.1f} | {per} |{settled} "
              f"{r['list_ms']:.2f} ({r['page']}) | {r['call_ms']:.2f} |")


if __name__ == "__main__":
    main()
