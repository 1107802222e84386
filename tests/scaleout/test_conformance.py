"""The official conformance suite through nginx (3 replicas, round-robin, no stickiness) scores
what it scores against one replica alone: same passed count, same failing scenarios.

Both requirement sets, run as the conformance stage of scripts/test-all.sh runs them: the
2026-07-28 set with the Tasks extension's scenarios (task records in Redis, shared by the
replicas), and the 2025-11-25 set with the unscored scenarios we hold ourselves to (legacy
sessions: the session record in Redis, server->client answers and cancels forwarded between the
replicas), each with the language's expected-failures file."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from cluster import ROOT, Cluster

RUN = ROOT / "tests" / "conformance" / "run.sh"
EXPECTED = ROOT / "tests" / "conformance" / "expected-failures"
# revision -> the extra run.sh options for it (those of scripts/test-all.sh's conformance stage)
SETS = {
    "2026-07-28": ["--require-tasks"],
    "2025-11-25": ["--require-unscored"],
}


def conformance(lang: str, revision: str, url: str, out: Path) -> dict:
    summary = out / "summary.json"
    args = ["-r", revision, *SETS[revision]]
    expect = EXPECTED / f"{lang}.txt"
    if expect.exists():
        args += ["--expect-file", str(expect)]
    p = subprocess.run(["bash", str(RUN), *args, "--url", url, "--out", str(out), "--summary-json", str(summary),
                        "--timeout", "240"], capture_output=True, text=True, timeout=300)
    assert summary.exists(), f"run.sh exited {p.returncode} without a summary:\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}"
    d = json.loads(summary.read_text())
    d["log"] = p.stdout[-4000:]
    return d


@pytest.mark.parametrize("revision", list(SETS))
def test_conformance_through_nginx_scores_as_one_replica(cluster: Cluster, lang: str, revision: str,
                                                         tmp_path: Path) -> None:
    one = conformance(lang, revision, cluster.direct_url(0), tmp_path / "one")
    lb = conformance(lang, revision, cluster.url, tmp_path / "lb")
    spread = cluster.served_by()
    assert all(spread.count(i) >= 10 for i in range(cluster.replicas)), f"not spread over the replicas: {spread}"
    assert one["passed"] > 0, one["log"]
    assert (lb["passed"], lb["failed"]) == (one["passed"], one["failed"]), lb["log"]
    assert sorted(lb["unexpected"]) == sorted(one["unexpected"]), lb["log"]
