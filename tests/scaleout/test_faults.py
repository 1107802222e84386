"""Faults that tasks and sessions must outlive, per language, with 3 replicas behind nginx:

- a replica SIGKILLed with tasks running on it: each of them ends `failed` ("The server running
  this task stopped") within the lease time, read through any other replica;
- Redis partitioned (a TCP proxy between the replicas and Redis that the test pauses) while tasks
  finish: each task settles with its result once the partition heals;
- Redis restarted with AOF persistence (as deploy/ runs it): a legacy session and a finished task
  still answer.

Plain JSON-RPC over HTTP (urllib), so the test reads every status and error as sent.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cluster import Cluster, free_port

MODERN = "2026-07-28"
LEGACY = "2025-11-25"
TASKS = {"extensions": {"io.modelcontextprotocol/tasks": {}}}
NAMED = ("tools/call", "tasks/get", "tasks/update", "tasks/cancel")
LEASE_MS = 1500


def post(url: str, body: dict[str, Any], headers: dict[str, str], timeout: float = 10) -> tuple[int, dict[str, str], Any]:
    """One POST; the status, the headers and the JSON-RPC message (the last one of an SSE answer)."""
    h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream", **headers}
    req = urllib.request.Request(url, data=json.dumps(body).encode(), headers=h, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            status, hdrs, raw = r.status, dict(r.headers), r.read().decode()
    except urllib.error.HTTPError as e:
        status, hdrs, raw = e.code, dict(e.headers), e.read().decode()
    if not raw.strip():
        return status, hdrs, None
    if raw.lstrip().startswith(("event:", "data:", "id:", ":")):
        data = [line[5:].strip() for line in raw.splitlines() if line.startswith("data:")]
        return status, hdrs, json.loads(data[-1]) if data and data[-1] else None
    return status, hdrs, json.loads(raw)


def modern(url: str, method: str, params: dict[str, Any], rid: int = 1, timeout: float = 10) -> tuple[int, Any]:
    """A 2026-07-28 request declaring the tasks extension."""
    params = {**params, "_meta": {"io.modelcontextprotocol/protocolVersion": MODERN,
                                  "io.modelcontextprotocol/clientCapabilities": TASKS,
                                  "io.modelcontextprotocol/clientInfo": {"name": "scaleout-faults", "version": "0"}}}
    h = {"MCP-Protocol-Version": MODERN, "Mcp-Method": method}
    name = params.get("name") or params.get("taskId")
    if name and method in NAMED:
        h["Mcp-Name"] = name
    status, _, msg = post(url, {"jsonrpc": "2.0", "id": rid, "method": method, "params": params}, h, timeout)
    return status, msg


def create_task(url: str, seconds: float, label: str) -> str:
    status, msg = modern(url, "tools/call", {"name": "slow_compute", "arguments": {"seconds": seconds, "label": label}})
    assert status == 200 and msg and "result" in msg, (status, msg)
    assert msg["result"].get("resultType") == "task", msg
    return str(msg["result"]["taskId"])


def task(url: str, tid: str) -> tuple[int, Any]:
    return modern(url, "tasks/get", {"taskId": tid}, timeout=15)


def poll(url: str, tid: str, until: float, done: Any = lambda t: t["status"] != "working") -> dict[str, Any]:
    """tasks/get until `done(task)` or the monotonic deadline `until` (then the last answer fails the test)."""
    last: Any = None
    while True:
        status, msg = task(url, tid)
        last = (status, msg)
        if status == 200 and msg and "result" in msg and done(msg["result"]):
            return dict(msg["result"])
        if time.monotonic() > until:
            raise AssertionError(f"task {tid} did not settle in time; last answer {last}")
        time.sleep(0.1)


# ---- a replica killed with tasks running on it ---------------------------------------------------

@pytest.fixture
def leased(lang: str, tmp_path: Path) -> Iterator[Cluster]:
    c = Cluster(lang, tmp_path / "cluster", env={"OXMCP_TASK_LEASE_MS": str(LEASE_MS)})
    c.start()
    try:
        yield c
    finally:
        c.stop()


def test_tasks_of_a_killed_replica_end_failed_within_the_lease(leased: Cluster) -> None:
    c = leased
    victim, survivor = 0, 1
    doomed = [create_task(c.direct_url(victim), 60, f"doomed-{i}") for i in range(3)]
    control = create_task(c.direct_url(survivor), 60, "control")
    for tid in doomed:  # running, as every replica sees them
        assert poll(c.url, tid, time.monotonic() + 5, lambda t: True)["status"] == "working"
    c.kill_replica(victim)
    killed = time.monotonic()
    # Within the lease (plus one poll and the renewal slack), read through the other replicas.
    for tid in doomed:
        t = poll(c.url, tid, killed + LEASE_MS / 1000 + 3)
        assert t["status"] == "failed", t
        assert "server running this task stopped" in t["error"]["message"].lower(), t
        assert t["error"]["code"] == -32603, t
        assert "stopped" in t.get("statusMessage", "").lower(), t
    assert time.monotonic() - killed < LEASE_MS / 1000 + 3
    # Read again elsewhere: the same terminal state (settled once, in the store).
    for tid in doomed:
        status, msg = task(c.direct_url(2), tid)
        assert status == 200 and msg["result"]["status"] == "failed", msg
    # A task on a live replica keeps its lease: still working well past the lease time.
    time.sleep(max(0.0, LEASE_MS / 1000 * 1.5 - (time.monotonic() - killed)))
    status, msg = task(c.url, control)
    assert status == 200 and msg["result"]["status"] == "working", msg
    status, msg = modern(c.url, "tasks/cancel", {"taskId": control})
    assert status == 200, msg


# ---- Redis partitioned while tasks finish ----------------------------------------------------------

class Partition:
    """A TCP proxy on loopback between the replicas and Redis, on a thread of its own. `cut()`
    severs every connection and then holds new ones open without forwarding a byte (a partition:
    commands time out); `heal()` drops the held ones (clients reconnect) and forwards again."""

    def __init__(self) -> None:
        self.port = free_port()
        self.target = 0
        self.loop = asyncio.new_event_loop()
        self.cut_off = False
        self.pipes: set[asyncio.StreamWriter] = set()
        self.held: set[asyncio.StreamWriter] = set()
        ready = threading.Event()
        self.thread = threading.Thread(target=self._run, args=(ready,), daemon=True)
        self.thread.start()
        if not ready.wait(10):
            raise RuntimeError("the partition proxy did not start")

    def _run(self, ready: threading.Event) -> None:
        asyncio.set_event_loop(self.loop)

        async def main() -> None:
            self.server = await asyncio.start_server(self._client, "127.0.0.1", self.port)
            ready.set()

        self.loop.run_until_complete(main())
        self.loop.run_forever()

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.cut_off:
            self.held.add(writer)
            try:
                while await reader.read(65536):
                    pass  # swallowed: the other side never answers
            finally:
                self.held.discard(writer)
                writer.close()
            return
        try:
            ur, uw = await asyncio.open_connection("127.0.0.1", self.target)
        except OSError:
            writer.close()
            return
        self.pipes.update((writer, uw))

        async def pump(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
            try:
                while data := await r.read(65536):
                    w.write(data)
                    await w.drain()
            except (OSError, asyncio.CancelledError):
                pass
            finally:
                self.pipes.discard(w)
                w.close()

        await asyncio.gather(pump(reader, uw), pump(ur, writer))

    def _call(self, fn: Any) -> None:
        done = threading.Event()

        def run() -> None:
            try:
                fn()
            finally:
                done.set()

        self.loop.call_soon_threadsafe(run)
        if not done.wait(5):
            raise RuntimeError("the partition proxy is stuck")

    def cut(self) -> None:
        def go() -> None:
            self.cut_off = True
            for w in list(self.pipes):
                w.transport.abort()
        self._call(go)

    def heal(self) -> None:
        def go() -> None:
            self.cut_off = False
            for w in list(self.held):
                w.transport.abort()
        self._call(go)

    def close(self) -> None:
        def go() -> None:
            self.server.close()
            for w in list(self.pipes) + list(self.held):
                w.transport.abort()
        self._call(go)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)


@pytest.fixture
def partitioned(lang: str, tmp_path: Path) -> Iterator[tuple[Cluster, Partition]]:
    proxy = Partition()
    c = Cluster(lang, tmp_path / "cluster", env={
        "OXMCP_REDIS_URL": f"redis://127.0.0.1:{proxy.port}",
        "OXMCP_REDIS_TIMEOUT_MS": "300",  # a partition shows within 0.6 s (and the option is honoured)
        "OXMCP_TASK_LEASE_MS": "20000",  # longer than the partition: no task is failed for it
    })
    try:  # Cluster.start, with the proxy between the replicas and Redis
        c.tmp.mkdir(parents=True, exist_ok=True)
        c.redis_port = free_port()
        c.start_redis()
        proxy.target = c.redis_port
        c.ports = [free_port() for _ in range(c.replicas)]
        c.procs = [None] * c.replicas
        for i in range(c.replicas):
            c.start_replica(i)
        c.start_nginx()
        yield c, proxy
    finally:
        c.stop()
        proxy.close()


def test_task_ends_held_through_a_redis_partition_are_written_when_it_heals(
        partitioned: tuple[Cluster, Partition]) -> None:
    c, proxy = partitioned
    tasks = {create_task(c.direct_url(i), 1.5, f"partitioned-{i}"): f"partitioned-{i}" for i in range(c.replicas)}
    proxy.cut()
    cut = time.monotonic()
    # The partition is real: a read of the store fails (fast: the timeout is 300 ms), never a wrong answer.
    status, msg = task(c.url, next(iter(tasks)))
    assert msg and msg.get("error", {}).get("code") == -32603, (status, msg)
    assert time.monotonic() - cut < 3, "a read did not fail fast under the partition"
    # Every handler finishes inside the partition (1.5 s, with a progress message every 0.25 s
    # that must not wait on Redis), and its replica holds the end it could not write.
    while not all("task store unreachable" in c.replica_log(i) for i in range(c.replicas)):
        assert time.monotonic() - cut < 6, [c.replica_log(i) for i in range(c.replicas)]
        time.sleep(0.1)
    for tid in tasks:  # still unreadable: the partition holds
        status, msg = task(c.url, tid)
        assert msg and msg.get("error", {}).get("code") == -32603, (status, msg)
    proxy.heal()
    healed = time.monotonic()
    for tid, label in tasks.items():
        t = poll(c.url, tid, healed + 10)
        assert t["status"] == "completed", t
        assert label in json.dumps(t["result"]), t
        assert not t["result"].get("isError"), t
    assert time.monotonic() - healed < 10


# ---- Redis restarted with persistence -----------------------------------------------------------------

@pytest.fixture
def persistent(lang: str, tmp_path: Path) -> Iterator[Cluster]:
    c = Cluster(lang, tmp_path / "cluster", redis_persist=True)
    c.start()
    try:
        yield c
    finally:
        c.stop()


def legacy(url: str, method: str, params: dict[str, Any], session: str | None, rid: int | None = 1
           ) -> tuple[int, dict[str, str], Any]:
    h = {"MCP-Protocol-Version": LEGACY}
    if session:
        h["Mcp-Session-Id"] = session
    body: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params}
    if rid is not None:
        body["id"] = rid
    return post(url, body, h)


def test_sessions_and_tasks_survive_a_redis_restart_with_persistence(persistent: Cluster) -> None:
    c = persistent
    status, hdrs, msg = legacy(c.url, "initialize", {
        "protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "scaleout-faults", "version": "0"}},
        None)
    assert status == 200 and msg and "result" in msg, (status, msg)
    sid = next(v for k, v in hdrs.items() if k.lower() == "mcp-session-id")
    status, _, _ = legacy(c.url, "notifications/initialized", {}, sid, None)
    assert status == 202, status
    tid = create_task(c.url, 0.2, "persisted")
    done = poll(c.url, tid, time.monotonic() + 10)
    assert done["status"] == "completed", done

    c.stop_redis()
    c.start_redis()  # the same port and directory: Redis replays its AOF

    # The replicas reconnect on their next command (one may fail with 503 meanwhile: "retry
    # later"); a session or task that Redis lost answers 404 / "Task not found" instead.
    deadline = time.monotonic() + 10
    while True:
        status, _, msg = legacy(c.url, "tools/call", {"name": "greet", "arguments": {"name": "again"}}, sid)
        if status != 503 or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert status == 200 and msg and "result" in msg, (status, msg)
    for rid in range(2, 2 + c.replicas):  # every replica, round-robin
        status, _, msg = legacy(c.url, "tools/call", {"name": "greet", "arguments": {"name": "again"}}, sid, rid)
        assert status == 200 and msg and "result" in msg, (status, msg)
        assert "again" in json.dumps(msg["result"]), msg
        status, msg = task(c.url, tid)
        if msg and msg.get("error", {}).get("code") == -32603:  # this replica's first command since
            status, msg = task(c.url, tid)
        assert status == 200 and "result" in msg and msg["result"]["status"] == "completed", (status, msg)
        assert "persisted" in json.dumps(msg["result"]["result"]), msg
