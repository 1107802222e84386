#!/usr/bin/env python3
"""N replicas of the Rust workload server behind nginx (round robin), sharing one Redis: workload 10
through a scale-out deployment, as one server to bench/workloads.py.

    wl_cluster.py --port PORT --replicas 3 --bin target/release/workload-server --redis redis://127.0.0.1:P

The deployment is tests/scaleout/cluster.py's (the nginx config rendered from deploy/nginx/oxmcp.conf,
replicas on free loopback ports, everything in a temp dir), with the Redis of the benchmark run (whose INFO
counters the run reads) instead of one of its own, and nginx listening on PORT. The replicas and nginx
are this process's children, so the run's CPU and RSS figures of the server tree are the whole
deployment's. It serves until SIGTERM or SIGINT, then stops every process it started.
"""

from __future__ import annotations

import argparse
import collections
import os
import shutil
import signal
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "tests" / "scaleout"))
from cluster import Cluster


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--port", type=int, required=True, help="nginx's port")
    ap.add_argument("--replicas", type=int, default=3)
    ap.add_argument("--bin", required=True, help="the workload server (built with --release)")
    ap.add_argument("--redis", required=True, help="OXMCP_REDIS_URL of every replica")
    a = ap.parse_args()
    # The run's server options (limits, state key, WL_*) go to every replica; Cluster passes no other
    # OXMCP_* variable of this environment on. Audit logging stays as the one-replica server has it.
    env = {k: v for k, v in os.environ.items() if k.startswith(("OXMCP_", "WL_"))}
    env.setdefault("OXMCP_LOG", "warn")
    env["OXMCP_REDIS_URL"] = a.redis

    def stop(*_: object) -> None:
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    tmp = Path(tempfile.mkdtemp(prefix="oxmcp-wl-cluster-"))
    try:
        with Cluster("workload", tmp, replicas=a.replicas, redis=False, env=env, cmd=[a.bin], nginx_port=a.port) as c:
            print(f"{c.url} replicas {c.ports}", flush=True)
            try:
                while True:
                    signal.pause()
            finally:
                # Into the server's log of the run: proof that the balancer spread the requests.
                served = collections.Counter(c.served_by())
                print("requests per replica:", [served.get(i, 0) for i in range(a.replicas)], flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
