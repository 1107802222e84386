"""deploy/ can't run here (no Docker, no cluster), so hold it to what is tested: the files parse,
name only options that exist, probe health paths a real server answers, and say what the nginx
config the scale-out tests run says."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import yaml

from cluster import NGINX_TEMPLATE, ROOT, SERVERS, UPSTREAM_HEADER, free_port, render_nginx, stop_proc, wait_port

DEPLOY = ROOT / "deploy"
COMPOSE = DEPLOY / "docker-compose.yml"
K8S = DEPLOY / "k8s"
# kustomize's own files: the kustomization and the field specs it names under `configurations`.
KUSTOMIZE = {"kustomization.yaml", "kustomizeconfig.yaml"}


def k8s_docs() -> list[dict[str, Any]]:
    docs = []
    for f in sorted(K8S.glob("*.yaml")):
        if f.name in KUSTOMIZE:
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
    assert sorted(kust["resources"]) == sorted(f.name for f in K8S.glob("*.yaml") if f.name not in KUSTOMIZE)
    assert kust["configurations"] == ["kustomizeconfig.yaml"]
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
    assert "127.0.0.1:8080:8080" in compose["services"]["nginx"]["ports"] and re.search(r"^\s+listen 8080;", conf, re.M)
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
    # Only the replica lines, the port and the tests' own X-Upstream differ from the deployed file.
    changed = set(site.read_text().splitlines()) ^ set(NGINX_TEMPLATE.read_text().splitlines())
    assert UPSTREAM_HEADER in changed
    assert all("server " in x or "listen " in x or x == UPSTREAM_HEADER for x in changed), changed


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


# ---- what deploy/ must secure: auth, loopback, Redis, the balancer's answers ------------------

PLACEHOLDER = "REPLACE-ME"
COMPOSE_ENV = DEPLOY / "oxmcp.env"


def env_file(path: Path) -> dict[str, str]:
    """KEY=VALUE lines (the format of compose's --env-file and kustomize's `envs`)."""
    out = {}
    for line in path.read_text().splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            key, sep, value = line.partition("=")
            assert sep, f"{path}: not KEY=VALUE: {line!r}"
            out[key.strip()] = value.strip()
    return out


def k8s_doc(kind: str, name: str) -> dict[str, Any]:
    return next(d for d in k8s_docs() if d["kind"] == kind and d["metadata"]["name"] == name)


def container(deployment: dict[str, Any]) -> dict[str, Any]:
    (c,) = deployment["spec"]["template"]["spec"]["containers"]
    return dict(c)


def labels(deployment: dict[str, Any]) -> dict[str, str]:
    return dict(deployment["spec"]["template"]["metadata"]["labels"])


def test_compose_takes_tokens_and_secrets_from_its_env_file_and_binds_loopback() -> None:
    compose = yaml.safe_load(COMPOSE.read_text())
    env = compose["x-replica"]["environment"]
    # Every secret is interpolated from the env file (compose stops when one is unset).
    for var in ("OXMCP_TOKENS", "OXMCP_STATE_KEY"):
        assert re.fullmatch(rf"\$\{{{var}:\?[^}}]+\}}", env[var]), env[var]
    assert re.fullmatch(r"redis://:\$\{REDIS_PASSWORD:\?[^}]+\}@redis:6379", env["OXMCP_REDIS_URL"])
    assert "OXMCP_TOKENS_FILE" not in env
    assert f"--env-file {COMPOSE_ENV.relative_to(ROOT)}" in COMPOSE.read_text()
    assert env_file(COMPOSE_ENV) == {"OXMCP_TOKENS": PLACEHOLDER, "OXMCP_STATE_KEY": PLACEHOLDER,
                                     "REDIS_PASSWORD": PLACEHOLDER}
    # Published on loopback only: a TLS-terminating proxy of the host's own goes in front.
    for name, service in compose["services"].items():
        for port in service.get("ports", []):
            assert str(port).startswith("127.0.0.1:"), (name, port)
    assert compose["services"]["nginx"]["ports"] == ["127.0.0.1:8080:8080"]
    assert "ports" not in compose["services"]["redis"]


def test_compose_redis_has_a_password_and_keeps_its_data() -> None:
    compose = yaml.safe_load(COMPOSE.read_text())
    redis = compose["services"]["redis"]
    cmd = redis["command"]
    assert cmd[0] == "redis-server"
    password = re.fullmatch(r"redis://:(.+)@redis:6379", compose["x-replica"]["environment"]["OXMCP_REDIS_URL"])
    assert password and cmd[cmd.index("--requirepass") + 1] == password[1]
    assert cmd[cmd.index("--appendonly") + 1] == "yes"
    volume, mount = redis["volumes"][0].split(":")
    assert mount == "/data" and volume in compose["volumes"]
    assert "REDISCLI_AUTH" in redis["environment"] and "redis-cli" in redis["healthcheck"]["test"]


def test_replicas_trust_only_their_proxy_and_keep_the_failed_authentication_limit() -> None:
    """The replicas read the client address from the proxy's X-Forwarded-For (trusted_proxies),
    so the failed-authentication limit stays on, per client: no deploy file turns it off."""
    import ipaddress

    compose = yaml.safe_load(COMPOSE.read_text())
    env = compose["x-replica"]["environment"]
    assert "OXMCP_AUTH_FAILURE_LIMIT" not in env
    nginx_ip = compose["services"]["nginx"]["networks"]["default"]["ipv4_address"]
    (subnet,) = [c["subnet"] for c in compose["networks"]["default"]["ipam"]["config"]]
    assert ipaddress.ip_address(nginx_ip) in ipaddress.ip_network(subnet)
    # nginx, exactly: not the subnet, whose other members (replicas, Redis) are no proxies.
    assert env["OXMCP_TRUSTED_PROXIES"] == nginx_ip
    k8s_env = {e["name"]: e for e in container(k8s_doc("Deployment", "oxmcp"))["env"]}
    assert "OXMCP_AUTH_FAILURE_LIMIT" not in k8s_env
    nets = [ipaddress.ip_network(n) for n in k8s_env["OXMCP_TRUSTED_PROXIES"]["value"].split(",")]
    assert nets and all(n.is_private for n in nets), nets
    # Trusting those is trusting the ingress controller only because the NetworkPolicy admits
    # nothing else to the oxmcp pods' MCP port (Prometheus reaches the metrics port, 9464, only).
    policies = [d for d in k8s_docs() if d["kind"] == "NetworkPolicy"
                and d["spec"]["podSelector"].get("matchLabels", {}).get("app.kubernetes.io/name") == "oxmcp"]
    assert policies, "a NetworkPolicy for the oxmcp pods"
    for p in policies:
        for rule in p["spec"]["ingress"]:
            ports = {port["port"] for port in rule["ports"]}
            for peer in rule["from"]:
                who = peer.get("podSelector", {}).get("matchLabels", {}).get("app.kubernetes.io/name")
                assert who == "ingress-nginx" or (who == "prometheus" and ports == {9464}), (peer, ports)
    # The proxy appends to X-Forwarded-For (the walk reads it right to left).
    assert "proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;" in (DEPLOY / "nginx" / "oxmcp.conf").read_text()


def test_the_shipped_placeholders_stop_the_server() -> None:
    """An operator who forgets to fill deploy/oxmcp.env gets a server that refuses to start,
    not one that serves without a token or with a guessable one."""
    placeholders = env_file(COMPOSE_ENV)
    for var, refusal in (("OXMCP_TOKENS", "tokens: expected NAME=TOKEN entries"),
                         ("OXMCP_STATE_KEY", "state_key must be at least 16 bytes")):
        env = {"PATH": "/usr/bin:/bin", "OXMCP_TOKENS": "alice=" + "a" * 32,
               "OXMCP_REDIS_URL": "redis://:pw@127.0.0.1:9", "OXMCP_STATE_KEY": "k" * 32,
               var: placeholders[var]}
        p = subprocess.run([*SERVERS["rust"], "--http", f"127.0.0.1:{free_port()}"], env=env, cwd=ROOT,
                           check=False, capture_output=True, text=True, timeout=30)
        assert p.returncode != 0 and refusal in p.stderr, (var, p.returncode, p.stderr)


def test_k8s_takes_every_secret_from_the_generated_secret() -> None:
    kust = yaml.safe_load((K8S / "kustomization.yaml").read_text())
    (gen,) = kust["secretGenerator"]
    keys = env_file(K8S / gen["envs"][0])
    assert keys == {"tokens": PLACEHOLDER, "state-key": PLACEHOLDER, "redis-password": PLACEHOLDER,
                    "metrics-token": PLACEHOLDER}
    refs = {}
    for d in k8s_docs():
        for c in d.get("spec", {}).get("template", {}).get("spec", {}).get("containers", []):
            for e in c.get("env", []):
                if "valueFrom" in e:
                    ref = e["valueFrom"]["secretKeyRef"]
                    assert ref["name"] == gen["name"], e
                    refs[(d["metadata"]["name"], e["name"])] = ref["key"]
    assert refs == {("oxmcp", "OXMCP_TOKENS"): "tokens", ("oxmcp", "OXMCP_STATE_KEY"): "state-key",
                    ("oxmcp", "REDIS_PASSWORD"): "redis-password",
                    ("oxmcp", "METRICS_TOKEN"): "metrics-token",
                    ("oxmcp-redis", "REDIS_PASSWORD"): "redis-password"}
    # Prometheus scrapes with the same token, from the same generated Secret (kustomizeconfig.yaml
    # has kustomize rewrite the name there too).
    (endpoint,) = k8s_doc("ServiceMonitor", "oxmcp")["spec"]["endpoints"]
    assert endpoint["authorization"]["credentials"] == {"name": gen["name"], "key": "metrics-token"}
    metrics = next(e["value"] for e in container(k8s_doc("Deployment", "oxmcp"))["env"] if e["name"] == "OXMCP_METRICS")
    assert json.loads(metrics)["token"] == "$(METRICS_TOKEN)"
    env = [e["name"] for e in container(k8s_doc("Deployment", "oxmcp"))["env"]]
    url = next(e["value"] for e in container(k8s_doc("Deployment", "oxmcp"))["env"] if e["name"] == "OXMCP_REDIS_URL")
    # $(VAR) expands only from a variable defined before it.
    assert url == "redis://:$(REDIS_PASSWORD)@oxmcp-redis:6379"
    assert env.index("REDIS_PASSWORD") < env.index("OXMCP_REDIS_URL")
    assert env.index("METRICS_TOKEN") < env.index("OXMCP_METRICS")
    # No secret written into a manifest.
    for d in k8s_docs():
        assert d["kind"] != "Secret", d["metadata"]["name"]


def test_k8s_redis_has_a_password_keeps_its_data_and_admits_only_oxmcp() -> None:
    redis = k8s_doc("Deployment", "oxmcp-redis")
    c = container(redis)
    args = c["args"]
    assert args[0] == "redis-server" and "command" not in c  # the image's entrypoint drops root
    assert args[args.index("--requirepass") + 1] == "$(REDIS_PASSWORD)"
    assert args[args.index("--appendonly") + 1] == "yes"
    assert {"name": "REDISCLI_AUTH", "value": "$(REDIS_PASSWORD)"} in c["env"]
    assert redis["spec"]["strategy"]["type"] == "Recreate"  # one ReadWriteOnce volume
    (mount,) = c["volumeMounts"]
    assert mount["mountPath"] == "/data"
    (vol,) = redis["spec"]["template"]["spec"]["volumes"]
    assert vol["name"] == mount["name"]
    pvc = k8s_doc("PersistentVolumeClaim", vol["persistentVolumeClaim"]["claimName"])
    assert pvc["spec"]["accessModes"] == ["ReadWriteOnce"]

    oxmcp = k8s_doc("Deployment", "oxmcp")
    policies = [d for d in k8s_docs() if d["kind"] == "NetworkPolicy"]
    to_redis = [p for p in policies if p["spec"]["podSelector"]["matchLabels"].items() <= labels(redis).items()]
    (p,) = to_redis
    assert p["spec"]["policyTypes"] == ["Ingress"]
    (rule,) = p["spec"]["ingress"]
    assert rule["from"] == [{"podSelector": {"matchLabels": labels(oxmcp)}}]
    assert rule["ports"] == [{"protocol": "TCP", "port": 6379}]
    to_oxmcp = [p for p in policies if p["spec"]["podSelector"]["matchLabels"].items() <= labels(oxmcp).items()]
    (p,) = to_oxmcp
    assert p["spec"]["policyTypes"] == ["Ingress"]
    # Two ways in, each from one namespace's pods to one port: the ingress controller to the MCP
    # port, Prometheus to the metrics port.
    (mcp_rule, metrics_rule) = p["spec"]["ingress"]
    for rule, port in ((mcp_rule, 8000), (metrics_rule, 9464)):
        (peer,) = rule["from"]
        assert set(peer) == {"namespaceSelector", "podSelector"}, peer
        assert rule["ports"] == [{"protocol": "TCP", "port": port}]
    assert mcp_rule["from"][0]["podSelector"]["matchLabels"] == {"app.kubernetes.io/name": "ingress-nginx"}
    assert metrics_rule["from"][0]["podSelector"]["matchLabels"] == {"app.kubernetes.io/name": "prometheus"}


def test_k8s_ingress_serves_tls_only() -> None:
    ingress = k8s_doc("Ingress", "oxmcp")
    hosts = [r["host"] for r in ingress["spec"]["rules"]]
    (tls,) = ingress["spec"]["tls"]
    assert tls["hosts"] == hosts and tls["secretName"]
    assert ingress["metadata"]["annotations"]["nginx.ingress.kubernetes.io/force-ssl-redirect"] == "true"


def nginx_directives() -> str:
    return re.sub(r"#.*", "", NGINX_TEMPLATE.read_text())


def test_nginx_names_no_replica_and_answers_its_own_errors_in_json_rpc() -> None:
    conf = nginx_directives()
    assert "x-upstream" not in conf.lower() and "$upstream_addr" not in conf
    # A replica's own 503 (a legacy session with Redis down) is already JSON-RPC: let it through.
    assert "proxy_intercept_errors" not in conf
    (codes, target) = re.findall(r"^\s+error_page ([\d ]+) (@\w+);", conf, re.MULTILINE)[0]
    assert codes.split() == ["502", "503", "504"]
    block = re.search(rf"location {target} \{{(.*?)\n    \}}", conf, re.DOTALL)
    assert block, target
    assert re.search(r"^\s+default_type application/json;", block[1], re.MULTILINE)
    ret = re.search(r"^\s+return (\d+) '([^']+)';", block[1], re.MULTILINE)
    assert ret and ret[1] in ("502", "503", "504")
    body = ret[2]
    msg = json.loads(body)
    assert msg["jsonrpc"] == "2.0" and msg["id"] is None and msg["error"]["code"] == -32603
    assert msg["error"]["message"]


def test_nginx_answers_json_rpc_when_no_replica_answers(tmp_path: Path) -> None:
    """The shipped config on loopback with every replica down: the client gets JSON-RPC, not HTML."""
    from cluster import nginx_main_conf, which

    port = free_port()
    site = tmp_path / "oxmcp.conf"
    site.write_text(render_nginx(NGINX_TEMPLATE.read_text(), port, [free_port(), free_port()]))
    conf = tmp_path / "nginx.conf"
    conf.write_text(nginx_main_conf(tmp_path, site))
    log = tmp_path / "nginx.stderr"
    with open(log, "wb") as err:
        proc = subprocess.Popen([which("nginx", "/usr/sbin/nginx"), "-p", str(tmp_path), "-c", str(conf)],
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err)
    try:
        wait_port(port, proc, "nginx", log, 20)
        for method in ("POST", "GET", "DELETE"):
            rq = urllib.request.Request(f"http://127.0.0.1:{port}/mcp", method=method,
                                        data=b'{"jsonrpc":"2.0","id":1,"method":"ping"}' if method == "POST" else None,
                                        headers={"Content-Type": "application/json"})
            try:
                urllib.request.urlopen(rq, timeout=10)
                raise AssertionError("no replica is up, yet nginx answered 2xx")
            except urllib.error.HTTPError as e:
                assert e.code == 502, (method, e.code)
                assert e.headers["Content-Type"] == "application/json", e.headers
                msg = json.loads(e.read())
                assert msg["error"]["code"] == -32603 and msg["id"] is None, msg
    finally:
        stop_proc(proc, signal.SIGQUIT)
