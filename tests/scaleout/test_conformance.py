"""The official conformance suite through nginx (3 replicas, round-robin, no stickiness) scores
what it scores against one replica alone: same passed count, same failing scenarios."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from cluster import ROOT, Cluster

RUN = ROOT / "tests" / "conformance" / "run.sh"
# The stateless revision: every request stands alone, so round-robin must not change a verdict.
# With the Tasks extension's scenarios (task records in Redis, shared by the replicas).
REVISIONS = "2026-07-28"
REQUIRE = ["--require-tasks"]


def conformance(url: str, out: Path) -> dict:
    summary = out / "summary.json"
    p = subprocess.run(["bash", str(RUN), "-r", REVISIONS, *REQUIRE, "--url", url, "--out", str(out), "--summary-json",
                        str(summary), "--timeout", "240"], capture_output=True, text=True, timeout=300)
    assert summary.exists(), f"run.sh exited {p.returncode} without a summary:\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}"
    d = json.loads(summary.read_text())
    d["log"] = p.stdout[-4000:]
    return d


def test_conformance_through_nginx_scores_as_one_replica(cluster: Cluster, tmp_path: Path) -> None:
    one = conformance(cluster.direct_url(0), tmp_path / "one")
    lb = conformance(cluster.url, tmp_path / "lb")
    spread = cluster.served_by()
    assert all(spread.count(i) >= 10 for i in range(cluster.replicas)), f"not spread over the replicas: {spread}"
    assert one["passed"] > 0, one["log"]
    assert (lb["passed"], lb["failed"]) == (one["passed"], one["failed"]), lb["log"]
    assert sorted(lb["unexpected"]) == sorted(one["unexpected"]), lb["log"]
