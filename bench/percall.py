"""CPU per call of one server under a short bounded load, optionally under `perf record`.

The development companion of run.py: on a busy machine req/s is noise, but the
server's CPU time per completed request, and a profile, are not. One server, one phase:

    python3 bench/percall.py --cmd 'target/release/bench-server --http 127.0.0.1:{port}' --kind add
    python3 bench/percall.py --cmd '/tmp/oxmcp-bench/venv/bin/python bench/servers/oxmcp_py.py --http 127.0.0.1:{port}' \
        --env PYTHONPERFSUPPORT=1 --perf /tmp/py.data              # then: perf report -i /tmp/py.data
    python3 bench/percall.py --cmd 'node --perf-basic-prof bench/servers/oxmcp_node.mjs --http 127.0.0.1:{port}' \
        --env OXMCP_NATIVE=/tmp/oxmcp-bench/node/oxmcp.node --perf /tmp/node.data

The server runs under `taskset -c 0`, bench/loadgen on CPU 1 (`-c 16` by default). Prints one
JSON line: requests, req/s, p50/p99 µs, CPU µs per call (utime+stime of the server's process
tree over the measured window, as run.py counts it), the server's share of its core.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import run  # noqa: E402  (run.py's /proc helpers)
from onecall import OneServer, server_args  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    server_args(ap, duration=5)
    ap.add_argument("--perf", help="perf record -g the server into this file during the measured window")
    ap.add_argument("--perf-freq", type=int, default=999)
    a = ap.parse_args()

    with OneServer(a.cmd, a.kind, a.env, prefix=["taskset", "-c", "0"]) as srv:
        srv.wait_answering(timeout=30)
        lg = srv.loadgen(a.loadgen, a.conns, duration=a.duration, warmup=a.warmup, cpus="1")
        t0 = time.monotonic()
        gen = subprocess.Popen(lg, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(a.warmup)
        pids = run.tree(srv.proc.pid)
        c0, w0 = run.cpu_s(pids), time.monotonic()
        perf = None
        if a.perf:
            perf = subprocess.Popen(["perf", "record", "-F", str(a.perf_freq), "-g", "-o", a.perf,
                                     "-p", ",".join(map(str, pids)), "--", "sleep", str(a.duration)],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(max(0.0, t0 + a.warmup + a.duration - time.monotonic()))
        c1, w1 = run.cpu_s(run.tree(srv.proc.pid)), time.monotonic()
        out, err = gen.communicate(timeout=a.duration + 30)
        if gen.returncode:
            raise SystemExit(f"loadgen failed: {err[-400:]}")
        r = json.loads(out)
        if perf is not None:
            perf.wait(timeout=a.duration + 60)
        ok = r.get("ok", 0)
        print(json.dumps({
            "kind": a.kind, "conns": a.conns, "requests": ok, "errors": r.get("errors"),
            "rps": round(r.get("rps", 0)), "p50_us": r.get("p50_us"), "p99_us": r.get("p99_us"),
            "cpu_us_per_call": round((c1 - c0) * 1e6 / ok, 1) if ok else None,
            "server_cpu_pct": round(100 * (c1 - c0) / (w1 - w0)),
            "loadavg": os.getloadavg()[0],
        }))


if __name__ == "__main__":
    main()
