"""Syscalls, context switches and CPU per call of one server over a fixed number of calls, by thread.

The companion of percall.py for the cost of a thread hop: `perf stat` of the server's
threads (software counters: they work on a VM without a PMU, where `-e instructions` does not,
and valgrind would serialise the threads whose turn-taking is being measured) around
`loadgen --max-requests N` after a warm-up run. Server on CPU 0, loadgen on CPU 1 (`-c 16`).

    python3 bench/hopstat.py --cmd 'node bench/servers/oxmcp_node.mjs --http 127.0.0.1:{port}' \\
        --env OXMCP_NATIVE=/tmp/oxmcp-bench/node/oxmcp.node -n 20000 --per-thread

Prints one JSON line per repetition: syscalls, context switches and CPU µs per call (all the
server's threads), and with --per-thread the same for each busy thread. The counts are steady
under load; CPU µs is not (read it against a run of the other build at the same moment).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import run  # noqa: E402  (run.py's /proc helpers)
from onecall import OneServer, server_args  # noqa: E402

EVENTS = ["raw_syscalls:sys_enter", "context-switches", "task-clock"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    server_args(ap)
    ap.add_argument("-n", "--calls", type=int, default=20000, help="calls counted per repetition")
    ap.add_argument("--warm", type=int, default=5000, help="calls before counting")
    ap.add_argument("--reps", type=int, default=2)
    ap.add_argument("--per-thread", action="store_true")
    a = ap.parse_args()

    with OneServer(a.cmd, a.kind, a.env, prefix=["taskset", "-c", "0"]) as srv:
        srv.wait_answering(timeout=60)
        p = srv.proc

        def load(n: int) -> dict:
            lg = srv.loadgen(a.loadgen, a.conns, max_requests=n, cpus="1")
            return json.loads(subprocess.run(lg, capture_output=True, text=True, timeout=400, check=True).stdout)

        load(a.warm)
        for _ in range(a.reps):
            tids = [t for pid in run.tree(p.pid) for t in os.listdir(f"/proc/{pid}/task")]
            st = subprocess.Popen(["perf", "stat", "--per-thread", "-x", ",", "-e", ",".join(EVENTS),
                                   "-t", ",".join(tids)], stderr=subprocess.PIPE, text=True)
            time.sleep(0.3)
            r = load(a.calls)
            st.send_signal(signal.SIGINT)
            err = st.communicate(timeout=30)[1]
            ok = r["ok"]
            threads: dict[str, dict[str, float]] = {}
            for line in err.splitlines():
                f = line.split(",")
                if len(f) > 3 and f[3] in EVENTS:
                    try:
                        threads.setdefault(f[0], {})[f[3]] = float(f[1])
                    except ValueError:
                        pass

            def per_call(vals: dict[str, float]) -> dict:
                return {"syscalls": round(vals.get(EVENTS[0], 0) / ok, 2),
                        "switches": round(vals.get(EVENTS[1], 0) / ok, 2),
                        "cpu_us": round(vals.get(EVENTS[2], 0) * 1000 / ok, 1)}

            total = {e: sum(t.get(e, 0) for t in threads.values()) for e in EVENTS}
            out = {"calls": ok, "errors": r["errors"], "rps": round(r["rps"]), "per_call": per_call(total),
                   "p50_us": r["p50_us"], "p99_us": r["p99_us"], "loadavg": round(os.getloadavg()[0], 2)}
            if a.per_thread:
                busy = {k: v for k, v in threads.items() if v.get(EVENTS[2], 0) * 1000 / ok >= 0.5}
                out["threads"] = {k: per_call(v) for k, v in busy.items()}
            print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
