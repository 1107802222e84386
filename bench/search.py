#!/usr/bin/env python3
"""Tool-search benchmark: registration, a list page, search and a call at N tools, per language.

For each server and N, over stdio (tools made from tests/config/tools-1000.json, tool i being
fixture tool i % 1000 with a suffix, so the vocabulary is a real catalog's):

* ready ms: spawn -> the answer to the first `tools/list` (registration and start);
* RSS MiB at ready, and after the first search (the index of that registry version is built
  then), with bytes per tool for each;
* first search ms: the first `oxmcp/tools/search` (it builds the index);
* search ms: median of the fixture's named queries and a few more, asked 20 times each; the
  worst query's median (the slowest query, each query's time being its median of 20, so one
  scheduler stall on a shared machine does not name a query); and the slowest single answer;
* list ms: median `tools/list` (the first page, 100 tools); call ms: median `tools/call` of a
  tool in the middle.

    python3 bench/search.py                          # rust, python, node at 1000,10000,100000
    python3 bench/search.py --only rust --sizes 1000,100000 --rust-bin target/release/examples/search_server

Not a test: timings depend on the machine and the build (say which in RESULTS.md).
Standard library only.
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
META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}
QUERIES = [q["query"] for q in json.loads((ROOT / "tests/config/tools-1000.json").read_text())["queries"]] + [
    "list", "delete", "github pull request", "send a message to a channel", "weather"]


class Stdio:
    def __init__(self, cmd: list[str], env: dict[str, str]) -> None:
        self.p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                  env={**os.environ, **env})
        self.id = 0

    def ask(self, method: str, params: dict) -> tuple[dict, float]:  # type: ignore[type-arg]
        self.id += 1
        msg = {"jsonrpc": "2.0", "id": self.id, "method": method, "params": {**params, "_meta": META}}
        t = time.perf_counter()
        assert self.p.stdin and self.p.stdout
        self.p.stdin.write((json.dumps(msg) + "\n").encode())
        self.p.stdin.flush()
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise RuntimeError(f"{method}: the server closed its stdout")
            r = json.loads(line)
            if r.get("id") == self.id:
                return r, (time.perf_counter() - t) * 1000

    def rss(self) -> float:
        for line in Path(f"/proc/{self.p.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return 0.0

    def close(self) -> None:
        self.p.kill()
        self.p.wait()


def run(cmd: list[str], env: dict[str, str], n: int) -> dict[str, float]:
    t0 = time.perf_counter()
    s = Stdio(cmd, env)
    try:
        r, _ = s.ask("tools/list", {})
        assert "result" in r, r
        ready = (time.perf_counter() - t0) * 1000
        rss_ready = s.rss()
        r, first = s.ask("oxmcp/tools/search", {"query": QUERIES[0]})
        assert r["result"]["tools"], r
        rss_index = s.rss()
        per_query: dict[str, list[float]] = {q: [] for q in QUERIES}
        for _ in range(20):
            for q in QUERIES:
                per_query[q].append(s.ask("oxmcp/tools/search", {"query": q})[1])
        search = [t for ts in per_query.values() for t in ts]
        worst_q = max(per_query, key=lambda q: statistics.median(per_query[q]))
        lists = [s.ask("tools/list", {})[1] for _ in range(50)]
        name = r["result"]["tools"][0]["name"]
        middle = s.ask("oxmcp/tools/search", {"pattern": f"_{(n // 2) // 1000}$", "limit": 1})[0]
        name = (middle["result"]["tools"] or r["result"]["tools"])[0]["name"]
        calls = [s.ask("tools/call", {"name": name, "arguments": {"id": "x", "confirm": "yes", "data": "d", "changes": "c"}})[1]
                 for _ in range(200)]
        return {"ready": ready, "rss_ready": rss_ready, "rss_index": rss_index, "first": first,
                "search": statistics.median(search), "search_max": max(search),
                "search_worst": statistics.median(per_query[worst_q]), "worst_q": worst_q,
                "list": statistics.median(lists), "call": statistics.median(calls)}
    finally:
        s.close()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1000,10000,100000")
    ap.add_argument("--only", default="rust,python,node")
    ap.add_argument("--rust-bin", default=str(Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
                                              / "release" / "examples" / "search_server"))
    ap.add_argument("--python", default=sys.executable)
    a = ap.parse_args()
    servers = {
        "rust": lambda n: ([a.rust_bin], {"OXMCP_BENCH_TOOLS": str(n)}),
        "python": lambda n: ([a.python, str(ROOT / "bench/search/py_server.py"), str(n)], {}),
        "node": lambda n: (["node", str(ROOT / "bench/search/node_server.mjs"), str(n)], {}),
    }
    print("| server | tools | ready ms | RSS MiB (ready / indexed) | bytes/tool (ready / indexed) | first search ms "
          "| search ms (median / worst query / max) | worst query | tools/list ms | tools/call ms |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for which in a.only.split(","):
        base = None
        for n in map(int, a.sizes.split(",")):
            cmd, env = servers[which](n)
            r = run(cmd, env, n)
            if base is None:
                base = (n, r["rss_ready"])
            per = lambda rss: "" if n == base[0] else f"{(rss - base[1]) * 1048576 / (n - base[0]):,.0f}"  # noqa: E731
            print(f"| oxmcp-{which} | {n:,} | {r['ready']:,.0f} | {r['rss_ready']:.1f} / {r['rss_index']:.1f} "
                  f"| {per(r['rss_ready'])} / {per(r['rss_index'])} | {r['first']:.1f} "
                  f"| {r['search']:.3f} / {r['search_worst']:.3f} / {r['search_max']:.2f} | `{r['worst_q']}` "
                  f"| {r['list']:.2f} | {r['call']:.3f} |", flush=True)


if __name__ == "__main__":
    main()
