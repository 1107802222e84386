#!/usr/bin/env python3
"""Scale-out benchmark: what Redis costs, measured inside one run.

    python3 bench/scaleout.py --rounds 3 --duration 5

Three measurements against the Rust everything server (examples/rust/everything.rs; build it
with `cargo build --release -p oxmcp-examples --bin everything`), each server pinned to CPU 0
and bench/loadgen to CPU 1:

  modern   2026-07-28 `tools/call add` throughput (closed loop, --conns keep-alive connections)
           and server CPU per call, with OXMCP_REDIS_URL set vs not, alternating in each round.
           Also counts the commands Redis processed during the measured window: the modern path
           must not touch Redis (the subscriber's own traffic is all that may show).
  legacy   2025-11-25 session round trips/s (`tools/call add` with Mcp-Session-Id) with the
           Redis session store (OXMCP_REDIS_URL set) vs in memory.
  fanout   3 replicas sharing Redis, one `subscriptions/listen` stream on each; --events
           sequential `test_trigger_resource_update` calls on replica 0; latency from sending the
           trigger to the `notifications/resources/updated` arriving on each stream (p50/p99,
           the local stream and the two remote ones apart).

Every loop is bounded in count and time; loopback only. Standard library only (plus
bench/loadgen, `cargo build --release --manifest-path bench/loadgen/Cargo.toml`).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
MODERN, LEGACY = "2026-07-28", "2025-11-25"
CLK_TCK = os.sysconf("SC_CLK_TCK")
STATE_KEY = "bench-scaleout-state-key-0123456789abcdef"
WATCHED = "test://watched-resource"
META = {"io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {}}


def log(*a: object) -> None:
    print(time.strftime("%H:%M:%S"), *a, file=sys.stderr, flush=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_port(port: int, p: subprocess.Popen, timeout: float = 30) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if p.poll() is not None:
            raise RuntimeError(f"process exited with {p.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing listens on {port} after {timeout} s")


def cpu_s(pid: int) -> float:
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / CLK_TCK


def stop(p: subprocess.Popen | None) -> None:
    if p is None or p.poll() is not None:
        return
    p.send_signal(signal.SIGTERM)
    try:
        p.wait(5)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait(5)


class Redis:
    def __init__(self, tmp: Path):
        exe = shutil.which("redis-server")
        if not exe:
            raise SystemExit("redis-server is not installed (scripts/setup.sh installs it)")
        self.port = free_port()
        self.p = subprocess.Popen([exe, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
                                   "--appendonly", "no", "--dir", str(tmp)], stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL)
        wait_port(self.port, self.p)
        self.url = f"redis://127.0.0.1:{self.port}"

    def commands(self) -> int:
        """INFO stats total_commands_processed (over a raw RESP connection)."""
        with socket.create_connection(("127.0.0.1", self.port), 2) as s:
            s.sendall(b"*2\r\n$4\r\nINFO\r\n$5\r\nstats\r\n")
            buf = b""
            while b"total_commands_processed:" not in buf or not buf.endswith(b"\r\n"):
                chunk = s.recv(65536)
                if not chunk:
                    break
                buf += chunk
        line = next(x for x in buf.decode().splitlines() if x.startswith("total_commands_processed:"))
        return int(line.split(":")[1])


def rt() -> list[str]:
    """`chrt -f PRIO` with --rt (SCHED_FIFO, as bench/run.py --rt: the machine is shared)."""
    return ["chrt", "-f", str(ARGS.rt)] if ARGS.rt else []


def start_server(exe: str, redis_url: str | None, cpu: str) -> tuple[subprocess.Popen, int]:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("OXMCP_")}
    env["OXMCP_STATE_KEY"] = STATE_KEY
    if redis_url:
        env["OXMCP_REDIS_URL"] = redis_url
    p = subprocess.Popen([*rt(), "taskset", "-c", cpu, exe, "--http", f"127.0.0.1:{port}"], env=env,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    wait_port(port, p)
    return p, port


def modern_headers(method: str, name: str | None) -> dict[str, str]:
    h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
         "MCP-Protocol-Version": MODERN, "Mcp-Method": method}
    if name:
        h["Mcp-Name"] = name
    return h


def call_body(name: str, args: dict, modern: bool, rid: object = 1) -> dict:
    params: dict = {"name": name, "arguments": args}
    if modern:
        params["_meta"] = META
    return {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": params}


def post(port: int, body: dict, headers: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        c.request("POST", "/mcp", json.dumps(body), headers)
        r = c.getresponse()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read()
    finally:
        c.close()


def legacy_session(port: int) -> str:
    h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    st, hd, body = post(port, {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}}, h)
    if st != 200 or "mcp-session-id" not in hd:
        raise RuntimeError(f"initialize: HTTP {st} {body[:200]!r}")
    sid = hd["mcp-session-id"]
    st, _, _ = post(port, {"jsonrpc": "2.0", "method": "notifications/initialized"},
                    {**h, "Mcp-Session-Id": sid, "MCP-Protocol-Version": LEGACY})
    if st not in (200, 202):
        raise RuntimeError(f"initialized: HTTP {st}")
    return sid


def load(port: int, pid: int, body: dict, headers: dict[str, str]) -> dict:
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(body, f)
    cmd = [*rt(), "taskset", "-c", ARGS.client_cpu, ARGS.loadgen, "--url", f"http://127.0.0.1:{port}/mcp",
           "--body-file", f.name, "-c", str(ARGS.conns), "-d", str(ARGS.duration), "-w", str(ARGS.warmup),
           "--max-requests", str(ARGS.max_requests), "--expect", '"text":"5"']
    for k, v in headers.items():
        cmd += ["-H", f"{k}: {v}"]
    lg = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        time.sleep(ARGS.warmup)
        c0, t0 = cpu_s(pid), time.monotonic()
        redis0 = REDIS.commands()
        out, err = lg.communicate(timeout=ARGS.duration + 30)
        c1, t1 = cpu_s(pid), time.monotonic()
        redis1 = REDIS.commands()
    finally:
        if lg.poll() is None:
            lg.kill()
        os.unlink(f.name)
    if lg.returncode != 0:
        raise RuntimeError(f"loadgen rc={lg.returncode}: {err[-300:]}")
    r = json.loads(out)
    busy = (c1 - c0) / (t1 - t0)
    r["cpu_us_per_call"] = busy / r["rps"] * 1e6 if r["rps"] else None
    r["server_cpu"] = busy
    r["redis_commands"] = redis1 - redis0 - 1  # minus our first INFO (the second counts it)
    return r


def bench_pair(kind: str) -> dict[str, list[dict]]:
    """kind = modern | legacy: rounds × {no Redis, Redis}, order alternating per round."""
    res: dict[str, list[dict]] = {"memory": [], "redis": []}
    for rnd in range(ARGS.rounds):
        order = ["memory", "redis"] if rnd % 2 == 0 else ["redis", "memory"]
        for cfg in order:
            p, port = start_server(ARGS.server, REDIS.url if cfg == "redis" else None, ARGS.server_cpu)
            try:
                if kind == "modern":
                    headers = modern_headers("tools/call", "add")
                    body = call_body("add", {"a": 2, "b": 3}, True)
                else:
                    sid = legacy_session(port)
                    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
                               "Mcp-Session-Id": sid, "MCP-Protocol-Version": LEGACY}
                    body = call_body("add", {"a": 2, "b": 3}, False)
                st, _, b = post(port, body, headers)
                if st != 200 or b'"text":"5"' not in b:
                    raise RuntimeError(f"{kind} check: HTTP {st} {b[:200]!r}")
                r = load(port, p.pid, body, headers)
            finally:
                stop(p)
            res[cfg].append(r)
            log(f"{kind:6s} r{rnd} {cfg:6s} {r['rps']:8.0f} req/s  CPU/call {r['cpu_us_per_call']:6.1f} us  "
                f"p50 {r['p50_us']:6.0f} us  p99 {r['p99_us']:6.0f} us  errors {r['errors']}  "
                f"redis commands {r['redis_commands']}")
    return res


class Listener(threading.Thread):
    """One `subscriptions/listen` stream (raw SSE): arrival times of resources/updated."""

    def __init__(self, port: int, name: str):
        super().__init__(daemon=True)
        self.port, self.name = port, name
        self.arrivals: list[float] = []
        self.acked = threading.Event()
        self.cond = threading.Condition()
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=ARGS.events * 2 + 30)

    def run(self) -> None:
        body = {"jsonrpc": "2.0", "id": f"listen-{self.name}", "method": "subscriptions/listen",
                "params": {"notifications": {"resourceSubscriptions": [WATCHED]}, "_meta": META}}
        self.conn.request("POST", "/mcp", json.dumps(body), modern_headers("subscriptions/listen", None))
        r = self.conn.getresponse()
        if r.status != 200:
            raise RuntimeError(f"listen on {self.port}: HTTP {r.status}")
        while True:
            line = r.readline()
            if not line:
                return
            if not line.startswith(b"data:"):
                continue
            now = time.perf_counter()
            m = json.loads(line[5:])
            if m.get("method") == "notifications/subscriptions/acknowledged":
                self.acked.set()
            elif m.get("method") == "notifications/resources/updated":
                with self.cond:
                    self.arrivals.append(now)
                    self.cond.notify_all()

    def wait_count(self, n: int, timeout: float) -> bool:
        with self.cond:
            return self.cond.wait_for(lambda: len(self.arrivals) >= n, timeout)


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]


def bench_fanout() -> dict:
    procs = [start_server(ARGS.server, REDIS.url, str(i % 2)) for i in range(3)]
    try:
        listeners = [Listener(port, str(i)) for i, (_, port) in enumerate(procs)]
        for li in listeners:
            li.start()
        for li in listeners:
            if not li.acked.wait(10):
                raise RuntimeError(f"listener {li.name} not acknowledged")
        time.sleep(0.5)  # the replicas' Redis subscriptions are up
        port0 = procs[0][1]
        body = call_body("test_trigger_resource_update", {}, True)
        headers = modern_headers("tools/call", "test_trigger_resource_update")
        sent: list[float] = []
        lost = 0
        t_end = time.monotonic() + ARGS.fanout_seconds
        for i in range(ARGS.events):
            if time.monotonic() > t_end:
                break
            sent.append(time.perf_counter())
            st, _, _ = post(port0, body, headers)
            if st != 200:
                raise RuntimeError(f"trigger: HTTP {st}")
            for li in listeners:
                if not li.wait_count(i + 1, 2.0):
                    lost += 1
            time.sleep(0.01)
        n = len(sent)
        lat = {li.name: [(li.arrivals[k] - sent[k]) * 1e3 for k in range(min(n, len(li.arrivals)))]
               for li in listeners}
    finally:
        for p, _ in procs:
            stop(p)
    local, remote = lat["0"], lat["1"] + lat["2"]
    return {"events": n, "lost": lost,
            "local_ms": {"p50": pct(local, 0.5), "p99": pct(local, 0.99)},
            "remote_ms": {"p50": pct(remote, 0.5), "p99": pct(remote, 0.99)}}


def med(rs: list[dict], k: str) -> float:
    return statistics.median(r[k] for r in rs)


def main() -> None:
    global ARGS, REDIS
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--server", default=str(ROOT / "target/release/everything"))
    ap.add_argument("--loadgen", default=str(BENCH / "loadgen/target/release/loadgen"))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--duration", type=float, default=5)
    ap.add_argument("--warmup", type=float, default=1)
    ap.add_argument("--conns", type=int, default=16)
    ap.add_argument("--max-requests", type=int, default=2_000_000)
    ap.add_argument("--events", type=int, default=300)
    ap.add_argument("--fanout-seconds", type=float, default=60)
    ap.add_argument("--server-cpu", default="0")
    ap.add_argument("--client-cpu", default="1")
    ap.add_argument("--only", default="modern,legacy,fanout")
    ap.add_argument("--rt", type=int, default=0, help="run servers and loadgen under SCHED_FIFO at this priority")
    ARGS = ap.parse_args()
    for f in (ARGS.server, ARGS.loadgen):
        if not Path(f).exists():
            raise SystemExit(f"{f} missing (see --help)")
    tmp = Path(tempfile.mkdtemp(prefix="oxmcp-bench-scaleout-"))
    REDIS = Redis(tmp)
    load1 = os.getloadavg()
    out: dict = {"server": ARGS.server, "loadavg_start": load1}
    try:
        only = ARGS.only.split(",")
        for kind in ("modern", "legacy"):
            if kind in only:
                out[kind] = bench_pair(kind)
        if "fanout" in only:
            out["fanout"] = bench_fanout()
    finally:
        stop(REDIS.p)
    out["loadavg_end"] = os.getloadavg()
    print(f"\nload average at start {load1[0]:.1f} / end {out['loadavg_end'][0]:.1f} (2 cores)")
    for kind in ("modern", "legacy"):
        if kind not in out:
            continue
        m, r = out[kind]["memory"], out[kind]["redis"]
        ratios = [b["rps"] / a["rps"] for a, b in zip(m, r)]
        cpu = [b["cpu_us_per_call"] / a["cpu_us_per_call"] for a, b in zip(m, r)]
        print(f"\n{kind}: median of {ARGS.rounds} rounds, c={ARGS.conns}, {ARGS.duration:g} s each")
        print("| config | req/s | CPU us/call | p50 us | p99 us | Redis commands in window |")
        print("|---|---|---|---|---|---|")
        for name, rs in (("no Redis (in memory)", m), ("OXMCP_REDIS_URL set", r)):
            print(f"| {name} | {med(rs, 'rps'):.0f} | {med(rs, 'cpu_us_per_call'):.1f} | {med(rs, 'p50_us'):.0f} | "
                  f"{med(rs, 'p99_us'):.0f} | {statistics.median(x['redis_commands'] for x in rs):.0f} |")
        print(f"Redis/no-Redis per round: throughput {', '.join(f'{x:.3f}' for x in ratios)}; "
              f"CPU per call {', '.join(f'{x:.3f}' for x in cpu)}")
    if "fanout" in out:
        f = out["fanout"]
        print(f"\nfan-out: {f['events']} events, 3 replicas, {f['lost']} missed (2 s limit each)")
        print(f"| stream | p50 ms | p99 ms |\n|---|---|---|\n| same replica as the trigger | "
              f"{f['local_ms']['p50']:.2f} | {f['local_ms']['p99']:.2f} |\n| other replicas (through Redis) | "
              f"{f['remote_ms']['p50']:.2f} | {f['remote_ms']['p99']:.2f} |")
    (tmp / "results.json").write_text(json.dumps(out, indent=1))
    print(f"\nraw: {tmp / 'results.json'}")


if __name__ == "__main__":
    main()
