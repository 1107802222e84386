"""Instructions per request of one server, counted by callgrind: repeatable on a busy machine.

The companion of percall.py. CPU time per call moves with the machine's load and
clock; instruction counts do not (the same binary and inputs give the same count within
~0.5 %), so a before/after of one change, or of two commits, is read here:

    python3 bench/callgrind.py --cmd 'target/release/bench-server --http 127.0.0.1:{port}' --kind add
    python3 bench/callgrind.py --cmd '/tmp/bench-rust-target/release/ceiling --port {port}' --kind add --top 30

The server runs under `valgrind --tool=callgrind`; bench/loadgen sends 200 warm-up requests,
the counters are zeroed, then `-n` measured requests (4 connections) and a dump. Prints one
JSON line (instructions per request) and, with `--top N`, the N functions with the most
instructions of their own per request. Kernel time is not counted: compare syscalls with
`strace -c` when two builds differ in it.
"""

from __future__ import annotations

import argparse
import collections
import glob
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from onecall import OneServer  # noqa: E402

BENCH = Path(__file__).parent


def self_costs(path: str) -> collections.Counter:
    """Instructions of each function's own code (callees excluded) in one callgrind dump."""
    cost: collections.Counter = collections.Counter()
    fn, ob, call_line = None, "", False
    with open(path) as f:
        for line in f:
            if line.startswith("ob="):
                ob = line[3:].strip().rsplit("/", 1)[-1]
            elif line.startswith("fn="):
                fn = f"{line[3:].strip()} [{ob}]"
            elif line.startswith("calls="):
                call_line = True  # the next cost line is the callee's inclusive cost
            elif line[:1].isdigit() or line[:1] in "+-*":
                parts = line.split()
                if call_line:
                    call_line = False
                elif len(parts) >= 2 and fn:
                    cost[fn] += int(parts[1])
    return cost


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cmd", required=True, help="server command; {port} is replaced")
    ap.add_argument("--kind", choices=["add", "list"], default="add")
    ap.add_argument("-n", "--requests", type=int, default=2000)
    ap.add_argument("--top", type=int, default=0)
    ap.add_argument("--out", default=None, help="callgrind file prefix (default: a temporary one)")
    ap.add_argument("--loadgen", default=str(BENCH / "loadgen/target/release/loadgen"))
    a = ap.parse_args()

    out = a.out or tempfile.mktemp(prefix="oxmcp-callgrind-")
    for f in glob.glob(out + "*"):
        os.unlink(f)
    valgrind = ["valgrind", "--tool=callgrind", "--compress-strings=no", "--compress-pos=no",
                f"--callgrind-out-file={out}"]
    try:
        with OneServer(a.cmd, a.kind, prefix=valgrind) as srv:
            srv.wait_answering(timeout=120, poll=0.2)  # valgrind starts slowly
            lg = srv.loadgen(a.loadgen, 4, timeout=60)
            subprocess.run([*lg, "--max-requests", "200"], capture_output=True, check=True, timeout=600)
            subprocess.run(["callgrind_control", "-z", str(srv.proc.pid)], capture_output=True, check=True,
                           timeout=60)
            r = subprocess.run([*lg, "--max-requests", str(a.requests)], capture_output=True, text=True,
                               check=True, timeout=900)
            ok = json.loads(r.stdout)["ok"]
            subprocess.run(["callgrind_control", "-d", str(srv.proc.pid)], capture_output=True, check=True,
                           timeout=60)
            dumps = sorted(glob.glob(out + ".*"))
            if not dumps or not ok:
                raise SystemExit("no callgrind dump or no successful request")
            costs = self_costs(dumps[-1])
        total = sum(costs.values())
        print(json.dumps({"cmd": a.cmd, "kind": a.kind, "requests": ok,
                          "instructions_per_request": round(total / ok)}))
        for name, v in costs.most_common(a.top):
            print(f"{v // ok:8d} {100 * v / total:5.1f}%  {name[:150]}")
    finally:
        if a.out is None:  # a temporary prefix: the dumps go with it
            for f in glob.glob(out + "*"):
                os.unlink(f)


if __name__ == "__main__":
    main()
