#!/usr/bin/env python3
"""HTTP/2 against HTTP/1.1, and TLS against plain text, on the Rust bench server, from one run.

    python3 bench/h2.py --duration 8 --rounds 3

Load: h2load (Debian `nghttp2-client`; bench/setup.sh installs it), one client thread pinned to
CPU 1, the server pinned to CPU 0 (as bench/run.py pins them). `tools/call add` (2026-07-28, no
session) in a closed loop:
  h1 c=16 / c=64   HTTP/1.1, 16 or 64 keep-alive connections, one request at a time on each;
  h2 m=16 / m=64   HTTP/2, one connection carrying 16 or 64 concurrent streams;
each in plain text (h2c by prior knowledge) and over TLS (ALPN; a P-256 certificate made for the
run with the openssl CLI). Server CPU time (utime+stime from /proc) over the measured window,
divided by the calls answered = CPU us per call. Every phase must answer 2xx only; the answer
itself is checked once per server start (`text` "3"). The phases of a round run in a rotated
order; ratios are computed inside each round. Bounded: each phase is `--warmup` + `--duration`
seconds, on 127.0.0.1.

Prints a Markdown table (medians over rounds, [min-max] when rounds > 1) and the ratios; raw
records go to --out/h2.jsonl.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import ssl
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import http.client
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
from run import MODERN, add_msg, check_add, cpu_s, enc, free_port, headers, stop, tree  # noqa: E402

PHASES = [(p, n, tls) for tls in (False, True) for p, n in (("h1", 16), ("h1", 64), ("h2", 16), ("h2", 64))]


def log(*a: object) -> None:
    print(time.strftime("%H:%M:%S"), *a, file=sys.stderr, flush=True)


def make_cert(d: Path) -> tuple[Path, Path]:
    """A self-signed P-256 certificate for 127.0.0.1 (h2load does not verify; the check call does)."""
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                    "-keyout", "key.pem", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                    "-days", "1", "-out", "cert.pem"], cwd=d, check=True, capture_output=True, timeout=60)
    return d / "cert.pem", d / "key.pem"


def start_server(a: argparse.Namespace, port: int, tls: tuple[Path, Path] | None) -> subprocess.Popen:
    env = dict(os.environ)
    if tls:
        env["OXMCP_TLS_CERT"], env["OXMCP_TLS_KEY"] = str(tls[0]), str(tls[1])
    return subprocess.Popen(["taskset", "-c", a.server_cpus, a.server, "--http", f"127.0.0.1:{port}"], env=env,
                            stdout=subprocess.DEVNULL, stderr=open(Path(a.out) / "server.stderr.log", "ab"),
                            start_new_session=True)


def check_call(port: int, cafile: Path | None, deadline: float) -> None:
    """One tools/call add over HTTP/1.1 (TLS checked against the run's certificate), polled until ready."""
    m = add_msg(MODERN)
    last = ""
    while time.monotonic() < deadline:
        try:
            if cafile:
                ctx = ssl.create_default_context(cafile=str(cafile))
                c = http.client.HTTPSConnection("127.0.0.1", port, timeout=5, context=ctx)
            else:
                c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            c.request("POST", "/mcp", body=enc(m), headers=headers(m, MODERN, None))
            r = c.getresponse()
            body = json.loads(r.read())
            c.close()
            err = check_add(body) if r.status == 200 else f"HTTP {r.status}"
            if err is None:
                return
            raise RuntimeError(err)
        except (OSError, ValueError, http.client.HTTPException) as e:
            last = repr(e)
        time.sleep(0.02)
    raise RuntimeError(f"the server did not answer tools/call add: {last}")


H2LOAD_RE = {
    "rps": re.compile(r"finished in [\d.]+\w*, ([\d.]+) req/s"),
    "done": re.compile(r"requests: \d+ total, \d+ started, (\d+) done, (\d+) succeeded, (\d+) failed, (\d+) errored"),
    "codes": re.compile(r"status codes: (\d+) 2xx, (\d+) 3xx, (\d+) 4xx, (\d+) 5xx"),
    "lat": re.compile(r"time for request:\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)"),
}


def us(t: str) -> float:
    for unit, f in (("us", 1.0), ("ms", 1e3), ("s", 1e6)):
        if t.endswith(unit):
            return float(t[: -len(unit)]) * f
    return float(t)


def phase(a: argparse.Namespace, proc: subprocess.Popen, port: int, proto: str, n: int, tls: bool, body: Path) -> dict:
    scheme = "https" if tls else "http"
    cmd = ["taskset", "-c", a.client_cpus, a.h2load, "-t", "1", "-D", str(a.duration),
           f"--warm-up-time={a.warmup}", "-d", str(body)]
    cmd += ["--h1", "-c", str(n), "-m", "1"] if proto == "h1" else ["-c", "1", "-m", str(n)]
    for k, v in headers(add_msg(MODERN), MODERN, None).items():
        cmd += ["-H", f"{k}: {v}"]
    cmd.append(f"{scheme}://127.0.0.1:{port}/mcp")
    # Server CPU over the measured window (h2load's warm-up first), read from /proc by a timer.
    pids = tree(proc.pid)
    marks: dict[str, tuple[float, float]] = {}
    t0 = time.monotonic()
    timers = [threading.Timer(a.warmup + 0.2, lambda: marks.__setitem__("c0", (time.monotonic(), cpu_s(pids)))),
              threading.Timer(a.warmup + a.duration - 0.2,
                              lambda: marks.__setitem__("c1", (time.monotonic(), cpu_s(pids))))]
    for t in timers:
        t.start()
    try:
        cp = subprocess.run(cmd, capture_output=True, text=True, timeout=a.warmup + a.duration + 60)
    finally:
        for t in timers:
            t.cancel()
    out = cp.stdout
    if cp.returncode != 0 or "c1" not in marks:
        raise RuntimeError(f"h2load rc={cp.returncode} after {time.monotonic() - t0:.1f} s: {cp.stderr[-300:]} {out[-300:]}")
    rps = float(H2LOAD_RE["rps"].search(out).group(1))
    done, ok, failed, errored = map(int, H2LOAD_RE["done"].search(out).groups())
    c2, c3, c4, c5 = map(int, H2LOAD_RE["codes"].search(out).groups())
    lat = H2LOAD_RE["lat"].search(out)
    (w0, cpu0), (w1, cpu1) = marks["c0"], marks["c1"]
    util = (cpu1 - cpu0) / (w1 - w0)
    return {"proto": proto, "n": n, "tls": tls, "rps": rps, "done": done, "non_2xx": c3 + c4 + c5,
            "failed": failed + errored, "mean_us": us(lat.group(3)) if lat else None,
            "server_cpu": util, "cpu_us_per_call": util / rps * 1e6 if rps else None}


def label(proto: str, n: int, tls: bool) -> str:
    what = f"HTTP/1.1, {n} connections" if proto == "h1" else f"HTTP/2, 1 connection, {n} streams"
    return what + (", TLS" if tls else "")


def fmt(vals: list[float], digits: int = 1) -> str:
    if not vals:
        return "-"
    m = statistics.median(vals)
    s = f"{m:,.{digits}f}"
    return s + (f" [{min(vals):,.{digits}f}-{max(vals):,.{digits}f}]" if len(vals) > 1 else "")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--server", default=str(BENCH.parent / "target/bench-tls/release/bench-server"),
                    help="the Rust bench server, a release build with the `tls` feature (bench/setup.sh builds "
                         "it: cargo build --release -p oxmcp-examples --bin bench-server --no-default-features "
                         "--features oxmcp/tls --target-dir target/bench-tls)")
    ap.add_argument("--h2load", default=shutil.which("h2load") or "h2load")
    ap.add_argument("--duration", type=int, default=8, help="measured seconds per phase")
    ap.add_argument("--warmup", type=int, default=2, help="h2load warm-up seconds per phase (not measured)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--server-cpus", default="0")
    ap.add_argument("--client-cpus", default="1")
    ap.add_argument("--out", default=None, help="folder for h2.jsonl and the server's stderr (default: a new temp folder)")
    a = ap.parse_args()
    a.duration, a.warmup, a.rounds = max(1, min(a.duration, 60)), max(1, min(a.warmup, 10)), max(1, min(a.rounds, 10))
    if not Path(a.server).exists():
        sys.exit(f"no server at {a.server} (see --help)")
    if not shutil.which(a.h2load):
        sys.exit("h2load not found (Debian: apt-get install nghttp2-client; bench/setup.sh does)")
    a.out = a.out or tempfile.mkdtemp(prefix="oxmcp-h2-")
    Path(a.out).mkdir(parents=True, exist_ok=True)
    with open("/proc/loadavg") as f:
        load0 = f.read().split()[:3]
    log(f"load average at start: {' '.join(load0)}; out: {a.out}")
    certdir = Path(tempfile.mkdtemp(prefix="oxmcp-h2-cert-"))
    cert = make_cert(certdir)
    body = certdir / "add.json"
    body.write_bytes(enc(add_msg(MODERN)))
    records: list[dict] = []
    jl = open(Path(a.out) / "h2.jsonl", "a")
    try:
        for rnd in range(a.rounds):
            # One server per transport security (its start-up is not measured); phases rotated.
            for tls in (False, True):
                phases = [p for p in PHASES if p[2] == tls]
                k = rnd % len(phases)
                phases = phases[k:] + phases[:k]
                port = free_port()
                proc = start_server(a, port, cert if tls else None)
                try:
                    check_call(port, cert[0] if tls else None, time.monotonic() + 30)
                    for proto, n, t in phases:
                        r = phase(a, proc, port, proto, n, t, body)
                        r["round"] = rnd
                        records.append(r)
                        jl.write(json.dumps(r) + "\n")
                        jl.flush()
                        log(f"r{rnd} {label(proto, n, t):42s} {r['rps']:9.0f} req/s  CPU/call "
                            f"{r['cpu_us_per_call']:6.1f} us  server {r['server_cpu'] * 100:3.0f}%  "
                            f"non-2xx {r['non_2xx']} failed {r['failed']}")
                        if r["non_2xx"] or r["failed"]:
                            raise RuntimeError(f"{label(proto, n, t)}: {r['non_2xx']} non-2xx, {r['failed']} failed")
                        if proc.poll() is not None:
                            raise RuntimeError("the server exited")
                finally:
                    stop(proc)
    finally:
        jl.close()
        shutil.rmtree(certdir, ignore_errors=True)
    with open("/proc/loadavg") as f:
        load1 = f.read().split()[:3]

    by: dict[tuple, list[dict]] = {}
    for r in records:
        by.setdefault((r["proto"], r["n"], r["tls"]), []).append(r)
    print(f"\nload average {' '.join(load0)} at start, {' '.join(load1)} at end; {a.rounds} round(s) of "
          f"{a.warmup} s + {a.duration} s per phase\n")
    print("| transport | req/s | server CPU µs per call | mean latency µs |")
    print("|---|---:|---:|---:|")
    for key in PHASES:
        rs = by.get(key, [])
        print(f"| {label(*key)} | {fmt([r['rps'] for r in rs], 0)} | {fmt([r['cpu_us_per_call'] for r in rs])} "
              f"| {fmt([r['mean_us'] for r in rs if r['mean_us']], 0)} |")

    def ratio(num: tuple, den: tuple) -> list[float]:
        out = []
        for rnd in range(a.rounds):
            x = [r for r in by.get(num, []) if r["round"] == rnd]
            y = [r for r in by.get(den, []) if r["round"] == rnd]
            if x and y:
                out.append(x[0]["cpu_us_per_call"] / y[0]["cpu_us_per_call"])
        return out

    def diff(num: tuple, den: tuple) -> list[float]:
        out = []
        for rnd in range(a.rounds):
            x = [r for r in by.get(num, []) if r["round"] == rnd]
            y = [r for r in by.get(den, []) if r["round"] == rnd]
            if x and y:
                out.append(x[0]["cpu_us_per_call"] - y[0]["cpu_us_per_call"])
        return out

    print("\n| CPU per call, within each round | ratio | difference µs |")
    print("|---|---:|---:|")
    for n in (16, 64):
        for tls in (False, True):
            s = " (TLS)" if tls else ""
            print(f"| HTTP/2 {n} streams / HTTP/1.1 {n} connections{s} | {fmt(ratio(('h2', n, tls), ('h1', n, tls)), 2)} "
                  f"| {fmt(diff(('h2', n, tls), ('h1', n, tls)))} |")
    for proto, n in (("h1", 16), ("h1", 64), ("h2", 16), ("h2", 64)):
        print(f"| TLS / plain text, {label(proto, n, False)} | {fmt(ratio((proto, n, True), (proto, n, False)), 2)} "
              f"| {fmt(diff((proto, n, True), (proto, n, False)))} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
