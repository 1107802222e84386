"""The `metrics` option from Python over real HTTP: a scripted workload, then a scrape shows its
exact counts, the same names as the Rust (core/tests/metrics.rs) and Node
(tests/node/metrics.test.mjs) servers give, since the core counts them. promtool (from
scripts/setup.sh) checks the scrape and the alert rules in deploy/prometheus/."""

from __future__ import annotations

import re
import shutil
import subprocess
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from procs import ROOT, start_script, stop
from test_access_everywhere import Http

SERVER = """
import sys
from oxmcp import Server
mcp = Server("metrics", metrics={"token": "s3cret"})

@mcp.tool()
def add(a: int, b: int) -> int:
    return a + b

@mcp.tool()
def fail() -> str:
    raise ValueError("no")

@mcp.resource("test://r/{i}")
def r(i: str) -> str:
    return i

mcp.run("http", host="127.0.0.1", port=int(sys.argv[1]))
"""


def promtool() -> str:
    found = shutil.which("promtool") or str(ROOT / ".cache/tools/promtool")
    assert Path(found).exists(), "promtool is missing: bash scripts/setup.sh takes it from Debian's prometheus package"
    return found


def scrape(port: int, token: str | None) -> tuple[int, str]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    req = urllib.request.Request(f"http://127.0.0.1:{port}/metrics", headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def test_a_scrape_counts_the_workload_exactly(tmp_path: Any) -> None:
    proc, port = start_script(tmp_path, SERVER)
    try:
        c = Http(port, "")
        for _ in range(2):
            assert c.post("tools/call", {"name": "add", "arguments": {"a": 1, "b": 2}}, modern=True)["result"]["content"]
        assert c.post("tools/call", {"name": "fail", "arguments": {}}, modern=True)["result"]["isError"] is True
        for name in ("nope", "other-nope"):
            assert c.post("tools/call", {"name": name, "arguments": {}}, modern=True)["error"]["code"] == -32602
        for uri in ("test://r/1", "test://r/2"):
            assert "result" in c.post("resources/read", {"uri": uri}, modern=True)
        assert scrape(port, None)[0] == 401
        status, text = scrape(port, "s3cret")
    finally:
        stop(proc)
    assert status == 200
    samples = [line for line in text.splitlines() if not line.startswith("#")]
    for want in [
        'oxmcp_requests_total{method="tools/call",era="modern",outcome="ok"} 3',
        'oxmcp_requests_total{method="tools/call",era="modern",outcome="invalid_params"} 2',
        'oxmcp_calls_total{kind="tool",name="add",outcome="ok"} 2',
        'oxmcp_calls_total{kind="tool",name="fail",outcome="is_error"} 1',
        'oxmcp_calls_total{kind="tool",name="unknown",outcome="error"} 2',
        'oxmcp_calls_total{kind="resource",name="test://r/{i}",outcome="ok"} 2',
        'oxmcp_call_duration_seconds_count{kind="tool",name="add"} 2',
        "oxmcp_calls_in_flight 0",
        "oxmcp_auth_failures_total 1",
    ]:
        assert want in samples, f"missing {want!r} in:\n{text}"
    for absent in ("nope", "test://r/1", "oxmcp_redis_"):
        assert absent not in text
    assert len([s for s in samples if s.startswith("oxmcp_calls_total{")]) == 4, text
    # Every series the dashboard and the alert rules query is one the server exports (Redis's
    # only with Redis, which this server has not).
    exported = {line.split()[2] for line in text.splitlines() if line.startswith("# TYPE ")}
    # Families with labels and no series yet are not written; this workload refuses nothing and
    # makes no task.
    exported |= {"oxmcp_rejections_total", "oxmcp_task_status_changes_total"}
    for f in ("deploy/grafana/oxmcp-dashboard.json", "deploy/prometheus/oxmcp-alerts.yaml"):
        for name in set(re.findall(r"\b(oxmcp_[a-z_]+)", (ROOT / f).read_text())) - {"oxmcp_redis_up"}:
            family = re.sub(r"_(bucket|count|sum)$", "", name)
            assert family in exported or family.startswith("oxmcp_redis_"), f"{f}: {name} is not exported"
    # Prometheus's own linter reads the scrape (names, suffixes, HELP and TYPE lines).
    lint = subprocess.run([promtool(), "check", "metrics"], check=False, input=text, capture_output=True, text=True, timeout=30)
    assert lint.returncode == 0, lint.stdout + lint.stderr


def test_the_alert_rules_pass_promtool() -> None:
    rules = ROOT / "deploy/prometheus/oxmcp-alerts.yaml"
    r = subprocess.run([promtool(), "check", "rules", str(rules)], check=False, capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "SUCCESS" in r.stdout


def test_the_prometheus_rule_carries_the_same_alerts() -> None:
    """deploy/k8s/prometheus-rule.yaml is the alert file's groups, indented under `spec:`."""
    alerts = (ROOT / "deploy/prometheus/oxmcp-alerts.yaml").read_text()
    groups = alerts[alerts.index("groups:"):]
    rule = (ROOT / "deploy/k8s/prometheus-rule.yaml").read_text()
    assert "kind: PrometheusRule" in rule
    spec = rule[rule.index("\nspec:\n") + len("\nspec:\n"):]
    assert spec == "".join("  " + line if line.strip() else line for line in groups.splitlines(keepends=True))


def test_metrics_on_the_endpoint_path_stop_the_start() -> None:
    source = ('from oxmcp import Server\n'
              'Server("m", metrics={"path": "/mcp"}).run("http", host="127.0.0.1", port=0)\n')
    import sys
    proc = subprocess.run([sys.executable, "-c", source], capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode != 0
    assert 'metrics.path "/mcp" is a path the MCP endpoint serves' in proc.stderr, proc.stderr


REDIS_SERVER = """
import sys
from oxmcp import Server
mcp = Server("metrics", metrics={"token": "s3cret"}, redis_url=sys.argv[2], state_key="metrics-test-state-key-0123456")

@mcp.tool()
def add(a: int, b: int) -> int:
    return a + b

mcp.run("http", host="127.0.0.1", port=int(sys.argv[1]))
"""


def sample(text: str, name: str) -> float:
    """The value of the one sample `name` (with its labels) in a scrape."""
    for line in text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[-1])
    raise AssertionError(f"no {name} in:\n{text}")


def test_redis_counters_and_a_session_store_out_of_reach(tmp_path: Any) -> None:
    from test_redis import start_redis

    redis, redis_port = start_redis()
    proc, port = start_script(tmp_path, REDIS_SERVER, f"redis://127.0.0.1:{redis_port}/")
    try:
        c = Http(port, "")
        # A legacy session lives in Redis: its creation is a round trip.
        assert "result" in c.post("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                                 "clientInfo": {"name": "t", "version": "1"}}, modern=False)
        assert c.session
        _, text = scrape(port, "s3cret")
        assert sample(text, "oxmcp_redis_up") == 1
        assert sample(text, "oxmcp_redis_round_trips_total") >= 1
        assert sample(text, "oxmcp_redis_errors_total") == 0
        stop(redis)
        # The store is out of reach: a new session is refused 503 and counted as the store's
        # refusal, not as the session cap's; a stateless modern call still works.
        fresh = Http(port, "")
        refused = fresh.post("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                            "clientInfo": {"name": "t", "version": "1"}}, modern=False)
        assert refused["error"]["code"] == -31503, refused
        assert c.post("tools/call", {"name": "add", "arguments": {"a": 1, "b": 2}}, modern=True)["result"]
        _, text = scrape(port, "s3cret")
        assert sample(text, 'oxmcp_rejections_total{status="503",reason="session_store"}') == 1
        assert 'reason="max_sessions"' not in text
        assert sample(text, "oxmcp_redis_errors_total") >= 1
        assert sample(text, "oxmcp_redis_up") == 0
    finally:
        stop(proc)
        stop(redis)
