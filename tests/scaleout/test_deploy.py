"""deploy/ can't run here (no Docker, no cluster), so hold it to what is tested: the files parse,
name only options that exist, probe health paths a real server answers, and say what the nginx
config the scale-out tests run says."""

from __future__ import annotations

import re
import subprocess
import urllib.request
from pathlib import Path
from typing import Any

import yaml

from cluster import NGINX_TEMPLATE, ROOT, SERVERS, free_port, render_nginx, stop_proc, wait_port

DEPLOY = ROOT / "deploy"
COMPOSE = DEPLOY / "docker-compose.yml"
K8S = DEPLOY / "k8s"


def k8s_docs() -> list[dict[str, Any]]:
    docs = []
    for f in sorted(K8S.glob("*.yaml")):
        if f.name == "kustomization.yaml":
            continue
        docs += [d for d in yaml.safe_load_all(f.read_text()) if d]
    return docs


def option_env_names() -> set[str]:
    """OXMCP_<OPTION> for every option row of docs/OPTIONS.md (`a`, `b` cells name options)."""
    names: set[str] = set()
    for line in (ROOT / "docs" / "OPTIONS.md").read_text().splitlines():
        if line.startswith("| `"):
            cell = line.split("|")[1]
            names |= {f"OXMCP_{n.upper()}" for n in re.findall(r"`([a-z_]+)`", cell)}
    return names


def deploy_env_names() -> set[str]:
    names = set(re.findall(r"\bOXMCP_[A-Z_]+\b", COMPOSE.read_text()))
    for d in k8s_docs():
        for c in d.get("spec", {}).get("template", {}).get("spec", {}).get("containers", []):
            names |= {e["name"] for e in c.get("env", []) if e["name"].startswith("OXMCP_")}
    return names


def test_deploy_files_parse_and_name_real_options() -> None:
    compose = yaml.safe_load(COMPOSE.read_text())
    assert {"redis", "nginx", "replica-1", "replica-2", "replica-3"} <= set(compose["services"])
    kinds = {(d["kind"], d["metadata"]["name"]) for d in k8s_docs()}
    assert {("Deployment", "oxmcp"), ("Service", "oxmcp"), ("Deployment", "oxmcp-redis"),
            ("Service", "oxmcp-redis"), ("Ingress", "oxmcp")} <= kinds, kinds
    kust = yaml.safe_load((K8S / "kustomization.yaml").read_text())
    assert sorted(kust["resources"]) == sorted(f.name for f in K8S.glob("*.yaml") if f.name != "kustomization.yaml")
    used = deploy_env_names()
    assert {"OXMCP_REDIS_URL", "OXMCP_STATE_KEY"} <= used, used
    unknown = used - option_env_names()
    assert not unknown, f"deploy/ sets variables that are no option in docs/OPTIONS.md: {sorted(unknown)}"


def test_nginx_upstreams_match_compose_and_ingress_matches_nginx() -> None:
    conf = NGINX_TEMPLATE.read_text()
    compose = yaml.safe_load(COMPOSE.read_text())
    upstreams = re.findall(r"^\s+server (\S+):(\d+) ", conf, flags=re.M)
    assert sorted(h for h, _ in upstreams) == sorted(s for s in compose["services"] if s.startswith("replica-"))
    assert {p for _, p in upstreams} == {"8000"} and "0.0.0.0:8000" in (DEPLOY / "Dockerfile").read_text()
    assert "8080:8080" in compose["services"]["nginx"]["ports"] and re.search(r"^\s+listen 8080;", conf, re.M)
    for forbidden in ("ip_hash", "hash ", "sticky", "non_idempotent"):
        assert forbidden not in re.sub(r"#.*", "", conf), forbidden
    ingress = next(d for d in k8s_docs() if d["kind"] == "Ingress")
    a = {k.split("/", 1)[1]: v for k, v in ingress["metadata"]["annotations"].items()}
    directive = lambda name: re.search(rf"^\s+{name} ([^;]+);", conf, re.M)[1]  # noqa: E731
    assert a["proxy-buffering"] == directive("proxy_buffering")
    assert a["proxy-http-version"] == directive("proxy_http_version")
    assert a["proxy-read-timeout"] + "s" == directive("proxy_read_timeout")
    assert a["proxy-next-upstream"] == directive("proxy_next_upstream")
    assert not any("affinity" in k or "hash" in k for k in a), a
    svc = next(d for d in k8s_docs() if d["kind"] == "Service" and d["metadata"]["name"] == "oxmcp")
    assert svc["spec"].get("sessionAffinity", "None") == "None"


def test_rendered_nginx_config_is_valid(tmp_path: Path) -> None:
    from cluster import nginx_main_conf, which

    site = tmp_path / "oxmcp.conf"
    site.write_text(render_nginx(NGINX_TEMPLATE.read_text(), 8080, [9001, 9002, 9003]))
    conf = tmp_path / "nginx.conf"
    conf.write_text(nginx_main_conf(tmp_path, site))
    p = subprocess.run([which("nginx", "/usr/sbin/nginx"), "-t", "-p", str(tmp_path), "-c", str(conf)],
                       capture_output=True, text=True, timeout=30)
    assert p.returncode == 0, p.stderr
    # Only the replica lines and the port differ from the deployed file.
    changed = set(site.read_text().splitlines()) ^ set(NGINX_TEMPLATE.read_text().splitlines())
    assert all("server " in x or "listen " in x for x in changed), changed


def test_probe_paths_answer_on_a_real_server(tmp_path: Path) -> None:
    """Every httpGet probe path (k8s) and the compose healthcheck URL answer 200 on the Rust
    everything server, as the image runs it (a non-loopback Host, as the kubelet sends)."""
    paths = set()
    for d in k8s_docs():
        for c in d.get("spec", {}).get("template", {}).get("spec", {}).get("containers", []):
            for probe in ("readinessProbe", "livenessProbe", "startupProbe"):
                if "httpGet" in c.get(probe, {}):
                    paths.add(c[probe]["httpGet"]["path"])
    test = yaml.safe_load(COMPOSE.read_text())["x-replica"]["healthcheck"]["test"]
    paths |= {re.sub(r"^http://[^/]+", "", x) for x in test if x.startswith("http://")}
    assert paths, "no health probes in deploy/"
    port = free_port()
    log = tmp_path / "server.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen([*SERVERS["rust"], "--http", f"127.0.0.1:{port}"], stdout=out,
                                stderr=subprocess.STDOUT, cwd=ROOT)
    try:
        wait_port(port, proc, "everything", log)
        for path in sorted(paths):
            rq = urllib.request.Request(f"http://127.0.0.1:{port}{path}", headers={"Host": f"10.1.2.3:{port}"})
            with urllib.request.urlopen(rq, timeout=5) as r:
                assert r.status == 200, (path, r.status)
    finally:
        stop_proc(proc)
