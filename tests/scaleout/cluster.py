"""A scale-out deployment on loopback: one Redis, N replicas of an everything server, nginx in front.

Every process is our own: Redis on a free port with no persistence (AOF with `redis_persist`), the replicas on free ports
(`--http 127.0.0.1:PORT`), nginx with its config, pid, logs and temp files inside a temp dir
(`nginx -p TMP -c TMP/nginx.conf`, `daemon off;`). The nginx config is rendered from
deploy/nginx/oxmcp.conf (the file deploy/ ships): only the replica `server` lines and the
`listen` port are replaced, and one test-only header added, so the balancer the tests use is the
one that is deployed.

With `redis_tls` (default: `OXMCP_SCALEOUT_REDIS_TLS=1` in the environment) Redis serves TLS only, on
its `--tls-port`, with a certificate of a CA made here and an ACL user instead of the default user;
the replicas reach it as `rediss://USER:PASSWORD@` with `OXMCP_REDIS_TLS_CA` (as managed Redis is).

The test-only header: `X-Upstream: 127.0.0.1:PORT` on every proxied answer (the shipped file
names no replica to clients). `Cluster.replica_of(header)` names the replica (0..N-1) that served
a request, which is how the tests prove where a call landed.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NGINX_TEMPLATE = ROOT / "deploy" / "nginx" / "oxmcp.conf"
STATE_KEY = "scaleout-test-state-key-0123456789abcdef"
# The ACL user of a TLS Redis (`redis_tls`).
REDIS_USER, REDIS_PASSWORD = "oxmcp", "scaleout-Redis-pw-4417"

# How each language's everything server is started (as tests/conformance/run.sh and
# scripts/test-all.sh start them): argv before `--http HOST:PORT`.
SERVERS = {
    "rust": [str(ROOT / "target" / "debug" / "everything")],
    "python": [str(ROOT / ".venv" / "bin" / "python"), str(ROOT / "examples" / "python" / "everything.py")],
    "node": ["node", str(ROOT / "examples" / "node" / "everything.mjs")],
}


def which(name: str, *extra: str) -> str:
    """The path of a program the stage needs; fails loudly when it is missing (never skips)."""
    found = shutil.which(name) or next((p for p in extra if os.access(p, os.X_OK)), None)
    if not found:
        raise RuntimeError(f"{name} is not installed: the scale-out tests need Debian's redis-server and nginx "
                           "(scripts/setup.sh installs them with apt-get as root)")
    return found


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_port(port: int, proc: subprocess.Popen[bytes], what: str, log: Path, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while True:
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited with {proc.returncode} before listening:\n{tail(log)}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            if time.monotonic() > deadline:
                raise RuntimeError(f"{what} did not listen on {port} within {timeout} s:\n{tail(log)}") from None
            time.sleep(0.05)


def tail(log: Path, n: int = 30) -> str:
    try:
        return "\n".join(log.read_text(errors="replace").splitlines()[-n:])
    except OSError:
        return "(no log)"


def stop_proc(proc: subprocess.Popen[bytes] | None, sig: int = signal.SIGTERM, timeout: float = 10) -> None:
    if proc is None or proc.poll() is not None:
        return
    proc.send_signal(sig)
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(5)


# Which replica answered, for the tests only (see the module docstring).
UPSTREAM_HEADER = "        add_header X-Upstream $upstream_addr always;"


def render_nginx(template: str, listen: int, upstreams: list[int]) -> str:
    """deploy/nginx/oxmcp.conf with our replicas and port: the text between the markers and the
    `listen` line change, and `X-Upstream` is added after `proxy_pass`; nothing else."""
    servers = "".join(f"    server 127.0.0.1:{p} max_fails=1 fail_timeout=5s;\n" for p in upstreams)
    out, n = re.subn(r"(    # replicas: begin\n).*?(    # replicas: end\n)", lambda m: m[1] + servers + m[2],
                     template, flags=re.S)
    if n != 1:
        raise RuntimeError(f"{NGINX_TEMPLATE}: no '# replicas: begin/end' block")
    out, n = re.subn(r"^    listen \d+;$", f"    listen 127.0.0.1:{listen};", out, flags=re.M)
    if n != 1:
        raise RuntimeError(f"{NGINX_TEMPLATE}: no 'listen PORT;' line")
    out, n = re.subn(r"^(        proxy_pass http://oxmcp_replicas;\n)", rf"\1{UPSTREAM_HEADER}\n", out, flags=re.MULTILINE)
    if n != 1:
        raise RuntimeError(f"{NGINX_TEMPLATE}: no 'proxy_pass http://oxmcp_replicas;' line")
    return out


def nginx_main_conf(tmp: Path, site: Path) -> str:
    """The top-level config: foreground, everything (pid, logs, temp files) inside `tmp`."""
    return f"""daemon off;
worker_processes 1;
pid {tmp}/nginx.pid;
error_log {tmp}/error.log warn;
events {{ worker_connections 512; }}
http {{
    log_format upstream '$request_method $status "$upstream_addr" "$http_mcp_method"';
    access_log {tmp}/access.log upstream;
    client_body_temp_path {tmp}/client_body;
    proxy_temp_path {tmp}/proxy;
    fastcgi_temp_path {tmp}/fastcgi;
    uwsgi_temp_path {tmp}/uwsgi;
    scgi_temp_path {tmp}/scgi;
    include {site};
}}
"""


@dataclass
class Cluster:
    lang: str
    tmp: Path
    replicas: int = 3
    redis: bool = True
    redis_url: bool = True  # hand OXMCP_REDIS_URL to the replicas
    redis_persist: bool = False  # Redis with AOF persistence (appendonly yes, fsync always), as deploy/ runs it
    redis_tls: bool = field(default_factory=lambda: os.environ.get("OXMCP_SCALEOUT_REDIS_TLS") == "1")
    env: dict[str, str] = field(default_factory=dict)
    cmd: list[str] | None = None  # a replica's argv before `--http HOST:PORT` (default: SERVERS[lang])

    redis_port: int = 0
    nginx_port: int = 0
    ports: list[int] = field(default_factory=list)
    procs: list[subprocess.Popen[bytes] | None] = field(default_factory=list)
    redis_proc: subprocess.Popen[bytes] | None = None
    nginx_proc: subprocess.Popen[bytes] | None = None

    # ---- lifecycle ---------------------------------------------------------------------------
    def start(self) -> Cluster:
        self.tmp.mkdir(parents=True, exist_ok=True)
        try:
            if self.redis:
                self.redis_port = free_port()
                self.start_redis()
            self.ports = [free_port() for _ in range(self.replicas)]
            self.procs = [None] * self.replicas
            for i in range(self.replicas):
                self.start_replica(i)
            self.start_nginx()
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        stop_proc(self.nginx_proc, signal.SIGQUIT)
        self.nginx_proc = None
        for i, p in enumerate(self.procs):
            stop_proc(p)
            self.procs[i] = None
        self.stop_redis()

    def __enter__(self) -> Cluster:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ---- Redis ---------------------------------------------------------------------------------
    @property
    def redis_address(self) -> str:
        if self.redis_tls:
            return f"rediss://{REDIS_USER}:{REDIS_PASSWORD}@127.0.0.1:{self.redis_port}/"
        return f"redis://127.0.0.1:{self.redis_port}"

    @property
    def redis_ca(self) -> Path:
        return self.tmp / "redis-pki" / "ca.pem"

    def make_redis_pki(self) -> list[str]:
        """A CA and Redis's certificate for 127.0.0.1 (once per cluster); redis-server's TLS arguments."""
        d = self.tmp / "redis-pki"
        if not (d / "redis.pem").exists():
            d.mkdir(exist_ok=True)
            openssl = which("openssl")
            ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]

            def run(*a: str) -> None:
                subprocess.run([openssl, *a], cwd=d, check=True, capture_output=True)

            run("req", "-x509", *ec, "-keyout", "ca.key", "-subj", "/CN=oxmcp scale-out test CA", "-days", "2",
                "-out", "ca.pem")
            run("req", *ec, "-keyout", "redis.key", "-subj", "/CN=127.0.0.1", "-out", "redis.csr")
            (d / "ext.cnf").write_text("subjectAltName=IP:127.0.0.1\n")
            run("x509", "-req", "-in", "redis.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
                "-days", "2", "-extfile", "ext.cnf", "-out", "redis.pem")
        return ["--port", "0", "--tls-port", str(self.redis_port), "--tls-cert-file", str(d / "redis.pem"),
                "--tls-key-file", str(d / "redis.key"), "--tls-ca-cert-file", str(d / "ca.pem"),
                "--tls-auth-clients", "no", "--user", "default", "off",
                "--user", REDIS_USER, "on", f">{REDIS_PASSWORD}", "~*", "&*", "+@all"]

    def start_redis(self) -> None:
        exe = which("redis-server", "/usr/bin/redis-server")
        log = self.tmp / "redis.log"
        d = self.tmp / "redis"
        d.mkdir(exist_ok=True)
        aof = ["--appendonly", "yes", "--appendfsync", "always"] if self.redis_persist else ["--appendonly", "no"]
        listen = self.make_redis_pki() if self.redis_tls else ["--port", str(self.redis_port)]
        self.redis_proc = subprocess.Popen(
            [exe, *listen, "--bind", "127.0.0.1", "--save", "", *aof,
             "--dir", str(d), "--logfile", str(log)],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        wait_port(self.redis_port, self.redis_proc, "redis-server", log, 20)

    def stop_redis(self) -> None:
        stop_proc(self.redis_proc)
        self.redis_proc = None

    # ---- replicas -------------------------------------------------------------------------------
    def replica_env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("OXMCP_")}
        env["OXMCP_STATE_KEY"] = STATE_KEY
        env["OXMCP_LOG"] = "info"  # the audit record of every call (tests read where a call ran, how it ended)
        if self.redis and self.redis_url:
            env["OXMCP_REDIS_URL"] = self.redis_address
            if self.redis_tls:
                env["OXMCP_REDIS_TLS_CA"] = str(self.redis_ca)
        env.update(self.env)
        return env

    def start_replica(self, i: int) -> None:
        cmd = [*(self.cmd or SERVERS[self.lang]), "--http", f"127.0.0.1:{self.ports[i]}"]
        log = self.tmp / f"replica-{i}.log"
        with open(log, "ab") as out:
            self.procs[i] = subprocess.Popen(cmd, cwd=ROOT, env=self.replica_env(), stdin=subprocess.DEVNULL,
                                             stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        wait_port(self.ports[i], self.procs[i], f"{self.lang} replica {i}", log)

    def kill_replica(self, i: int) -> None:
        """SIGKILL: the replica dies as a crashed process does, with no drain."""
        p = self.procs[i]
        if p is not None and p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait(10)
        self.procs[i] = None

    def replica_log(self, i: int) -> str:
        return tail(self.tmp / f"replica-{i}.log", 200)

    # ---- nginx ----------------------------------------------------------------------------------
    def start_nginx(self) -> None:
        exe = which("nginx", "/usr/sbin/nginx")
        self.nginx_port = self.nginx_port or free_port()
        site = self.tmp / "oxmcp.conf"
        site.write_text(render_nginx(NGINX_TEMPLATE.read_text(), self.nginx_port, self.ports))
        conf = self.tmp / "nginx.conf"
        conf.write_text(nginx_main_conf(self.tmp, site))
        log = self.tmp / "error.log"
        self.nginx_proc = subprocess.Popen([exe, "-p", str(self.tmp), "-c", str(conf)], stdin=subprocess.DEVNULL,
                                           stdout=subprocess.DEVNULL, stderr=open(self.tmp / "nginx.stderr", "wb"))
        wait_port(self.nginx_port, self.nginx_proc, "nginx", self.tmp / "nginx.stderr", 20)

    def served_by(self) -> list[int]:
        """The replica of every proxied request in nginx's access log so far."""
        log = (self.tmp / "access.log").read_text()
        return [self.replica_of(m[1]) for m in re.finditer(r'^\S+ \d+ "([^"-][^"]*)"', log, flags=re.M)]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.nginx_port}/mcp"

    def direct_url(self, i: int) -> str:
        return f"http://127.0.0.1:{self.ports[i]}/mcp"

    def replica_of(self, upstream: str | None) -> int:
        """The replica index from an `X-Upstream` value (the last address when nginx tried several)."""
        if not upstream:
            raise AssertionError("the answer has no X-Upstream header")
        last = upstream.replace(" : ", ",").split(",")[-1].strip()
        port = int(last.rsplit(":", 1)[1])
        return self.ports.index(port)


if __name__ == "__main__":  # manual use: python tests/scaleout/cluster.py rust  (Ctrl-C stops it)
    import tempfile

    with Cluster(sys.argv[1] if len(sys.argv) > 1 else "rust", Path(tempfile.mkdtemp(prefix="oxmcp-scaleout-"))) as c:
        print(c.url, c.ports, c.redis_address, flush=True)
        try:
            signal.pause()
        except KeyboardInterrupt:
            pass
