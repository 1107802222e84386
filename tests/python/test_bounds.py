"""Bounds on what a caller can make the server hold, from Python over real HTTP: the same core rule
and error as in Rust (tests/it/http_legacy.rs) and Node (tests/node/bounds.test.mjs)."""

from __future__ import annotations

from typing import Any

from procs import start_script, stop
from test_access_everywhere import Http

SERVER = """
import sys
from oxmcp import Server
mcp = Server("bounds", max_subscriptions=2)

@mcp.resource("test://r/{i}")
def r(i: str) -> str:
    return i

mcp.run("http", host="127.0.0.1", port=int(sys.argv[1]))
"""


def test_subscriptions_are_bounded_per_session(tmp_path: Any) -> None:
    proc, port = start_script(tmp_path, SERVER)
    try:
        c = Http(port, "")
        c.initialize()
        for i in range(2):
            assert "result" in c.post("resources/subscribe", {"uri": f"test://r/{i}"}, modern=False)
        over = c.post("resources/subscribe", {"uri": "test://r/2"}, modern=False)
        assert over["error"]["code"] == -32602, over
        assert "Too many subscriptions" in over["error"]["message"]
        assert "result" in c.post("resources/subscribe", {"uri": "test://r/0"}, modern=False), "held already"
        long = c.post("resources/subscribe", {"uri": "test://" + "x" * 9000}, modern=False)
        assert long["error"]["code"] == -32602 and "URI too long" in long["error"]["message"]
        assert "result" in c.post("ping", {}, modern=False)
    finally:
        stop(proc)


TASKS_SERVER = """
import sys
from oxmcp import Server
mcp = Server("listen-bounds", max_listen_task_ids=3)

@mcp.tool(task=True)
async def job() -> str:
    return "done"

mcp.run("http", host="127.0.0.1", port=int(sys.argv[1]))
"""


def test_task_ids_per_listen_are_bounded(tmp_path: Any) -> None:
    import http.client
    import json

    proc, port = start_script(tmp_path, TASKS_SERVER)
    try:
        meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}}}

        def listen(n: int) -> tuple[int, str]:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            body = {"jsonrpc": "2.0", "id": 1, "method": "subscriptions/listen",
                    "params": {"notifications": {"taskIds": [f"t{i}" for i in range(n)]}, "_meta": meta}}
            conn.request("POST", "/mcp", json.dumps(body), {
                "content-type": "application/json", "accept": "application/json, text/event-stream",
                "mcp-protocol-version": "2026-07-28", "mcp-method": "subscriptions/listen"})
            r = conn.getresponse()
            first = r.readline().decode() if r.getheader("content-type", "").startswith("text/event-stream") \
                else r.read().decode()
            conn.close()
            return r.status, first

        status, text = listen(4)
        assert '"code":-32602' in text.replace(" ", "") and "Too many taskIds" in text, (status, text)
        status, text = listen(3)
        assert status == 200 and "error" not in text, text
    finally:
        stop(proc)


# One server for the per-caller bounds: two named callers, a task tool that sleeps (and can be
# cancelled) and answers its label, the options under test from argv (small, to go past them).
CALLERS_SERVER = """
import asyncio, json, sys
from oxmcp import Server
mcp = Server("bounds", tokens={"alice": "alice-1", "bob": "bob-1"}, **json.loads(sys.argv[2]))

@mcp.tool(task=True)
async def job(seconds: float = 0, label: str = "") -> str:
    await asyncio.sleep(seconds)
    return label

@mcp.tool()
def greet(name: str) -> str:
    return f"Hello, {name}!"

@mcp.resource("test://r/{i}")
def r(i: str) -> str:
    return i

mcp.run("http", host="127.0.0.1", port=int(sys.argv[1]))
"""

TASKS = {"io.modelcontextprotocol/tasks": {}}


class Caller:
    """One caller's requests, with the HTTP status: modern ones (declaring the tasks extension) and
    those of one legacy session."""

    def __init__(self, port: int, token: str) -> None:
        self.url = f"http://127.0.0.1:{port}/mcp"
        self.token = token
        self.session: str | None = None

    def post(self, method: str, params: dict[str, Any], *, modern: bool = True) -> tuple[int, dict[str, Any]]:
        import json
        import urllib.error
        import urllib.request

        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
                   "Authorization": f"Bearer {self.token}"}
        if modern:
            params = {**params, "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                                          "io.modelcontextprotocol/clientCapabilities": {"extensions": TASKS}}}
            headers.update({"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": method})
            if method == "tools/call":
                headers["Mcp-Name"] = params["name"]
            elif "taskId" in params:
                headers["Mcp-Name"] = params["taskId"]
        else:
            headers["MCP-Protocol-Version"] = "2025-11-25"
            if self.session:
                headers["Mcp-Session-Id"] = self.session
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).encode()
        req = urllib.request.Request(self.url, data=body, method="POST", headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=20) as r:
                status, raw = r.status, r.read().decode()
                if method == "initialize":
                    self.session = r.headers.get("Mcp-Session-Id")
        except urllib.error.HTTPError as e:
            status, raw = e.code, e.read().decode()
        if raw.startswith(("event:", "data:")):
            raw = next(line[5:] for line in raw.splitlines() if line.startswith("data:"))
        out: dict[str, Any] = json.loads(raw)
        return status, out

    def initialize(self) -> tuple[int, dict[str, Any]]:
        self.session = None
        return self.post("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                        "clientInfo": {"name": "t", "version": "1"}}, modern=False)

    def task(self, seconds: float = 0, label: str = "t") -> tuple[int, dict[str, Any]]:
        return self.post("tools/call", {"name": "job", "arguments": {"seconds": seconds, "label": label}})

    def settled(self, task_id: str) -> dict[str, Any]:
        import time

        deadline = time.monotonic() + 10
        while True:
            t: dict[str, Any] = self.post("tasks/get", {"taskId": task_id})[1]["result"]
            if t["status"] in ("completed", "failed", "cancelled"):
                return t
            assert time.monotonic() < deadline, t
            time.sleep(0.05)


def start_callers(tmp_path: Any, **options: Any) -> tuple[Any, Caller, Caller]:
    import json

    proc, port = start_script(tmp_path, CALLERS_SERVER, json.dumps(options))
    return proc, Caller(port, "alice-1"), Caller(port, "bob-1")


def refused(answer: tuple[int, dict[str, Any]], status: int, code: int, text: str) -> None:
    assert answer[0] == status and answer[1].get("error", {}).get("code") == code, answer
    assert text in answer[1]["error"]["message"], answer


def test_subscription_bytes_are_bounded_per_session(tmp_path: Any) -> None:
    proc, alice, _ = start_callers(tmp_path, max_subscription_bytes=100)
    try:
        alice.initialize()
        uri = lambda i: f"test://r/{i}/" + "x" * 28
        for i in range(2):
            assert "result" in alice.post("resources/subscribe", {"uri": uri(i)}, modern=False)[1]
        refused(alice.post("resources/subscribe", {"uri": uri(2)}, modern=False), 200, -32602,
                "may total 100 bytes")
        assert "result" in alice.post("resources/subscribe", {"uri": uri(0)}, modern=False)[1], "held already"
    finally:
        stop(proc)


def test_sessions_are_bounded_per_caller(tmp_path: Any) -> None:
    proc, alice, bob = start_callers(tmp_path, max_sessions_per_caller=2)
    try:
        for _ in range(2):
            assert alice.initialize()[0] == 200 and alice.session
        first = alice.session
        refused(alice.initialize(), 503, -32603, "too many sessions")
        assert alice.session is None
        assert bob.initialize()[0] == 200 and bob.session, "another caller is not affected"
        import urllib.request

        req = urllib.request.Request(alice.url, method="DELETE", headers={
            "Authorization": "Bearer alice-1", "Mcp-Session-Id": str(first), "MCP-Protocol-Version": "2025-11-25"})
        with urllib.request.urlopen(req, timeout=10) as r:
            assert r.status == 200
        assert alice.initialize()[0] == 200, "ending one makes room"
    finally:
        stop(proc)


def test_an_idle_session_is_ended(tmp_path: Any) -> None:
    import time

    proc, alice, _ = start_callers(tmp_path, session_idle_ms=1000)
    try:
        alice.initialize()
        for _ in range(3):
            time.sleep(0.4)
            assert alice.post("ping", {}, modern=False)[0] == 200, "used, it lives on"
        time.sleep(1.5)
        status, body = alice.post("ping", {}, modern=False)
        assert status == 404, (status, body)
    finally:
        stop(proc)


def test_tasks_are_bounded_per_caller_finished_ones_included(tmp_path: Any) -> None:
    proc, alice, bob = start_callers(tmp_path, max_tasks_per_caller=2)
    try:
        for _ in range(2):
            status, r = alice.task()
            assert status == 200, r
            alice.settled(r["result"]["taskId"])
        refused(alice.task(), 429, -31429, "Too many tasks")
        assert bob.task()[1]["result"]["resultType"] == "task"
    finally:
        stop(proc)


def test_running_tasks_are_bounded_per_caller_and_hold_no_request_place(tmp_path: Any) -> None:
    proc, alice, bob = start_callers(tmp_path, max_in_flight=2, max_running_tasks_per_caller=2)
    try:
        ids = [alice.task(30)[1]["result"]["taskId"] for _ in range(2)]
        refused(alice.task(30), 429, -31429, "Too many running tasks")
        # Alice's running tasks hold none of the two in-flight places: bob is served.
        status, r = bob.post("tools/call", {"name": "greet", "arguments": {"name": "bob"}})
        assert status == 200 and r["result"]["content"][0]["text"] == "Hello, bob!", r
        assert bob.task()[1]["result"]["resultType"] == "task"
        assert alice.post("tasks/cancel", {"taskId": ids[0]})[0] == 200
        assert alice.settled(ids[0])["status"] == "cancelled"
        import time

        deadline = time.monotonic() + 5
        while (again := alice.task(30))[0] != 200:
            assert time.monotonic() < deadline, again
            time.sleep(0.05)
        for i in (ids[1], again[1]["result"]["taskId"]):
            alice.post("tasks/cancel", {"taskId": i})
    finally:
        stop(proc)


def test_a_task_result_over_the_cap_fails_the_task(tmp_path: Any) -> None:
    proc, alice, _ = start_callers(tmp_path, max_task_result_bytes=1000)
    try:
        t = alice.settled(alice.task(0, "x" * 1000)[1]["result"]["taskId"])
        assert t["status"] == "failed" and t["error"]["code"] == -32603, t
        assert "Task result too large" in t["error"]["message"] and "result" not in t, t
        assert alice.settled(alice.task(0, "small")[1]["result"]["taskId"])["status"] == "completed"
    finally:
        stop(proc)


def test_one_caller_at_every_bound_leaves_another_unaffected(tmp_path: Any) -> None:
    proc, alice, bob = start_callers(tmp_path, max_in_flight=2, max_sessions_per_caller=1, max_subscriptions=1,
                                     max_subscription_bytes=64, max_tasks_per_caller=3,
                                     max_running_tasks_per_caller=2, max_listen_task_ids=2)
    try:
        # Alice holds everything she may: a session with its subscription, two running tasks, then
        # three tasks (one running, two finished).
        assert alice.initialize()[0] == 200
        assert "result" in alice.post("resources/subscribe", {"uri": "test://r/0"}, modern=False)[1]
        refused(alice.post("resources/subscribe", {"uri": "test://r/1"}, modern=False), 200, -32602,
                "Too many subscriptions")
        running = [alice.task(30)[1]["result"]["taskId"] for _ in range(2)]
        refused(alice.task(30), 429, -31429, "Too many running tasks")
        alice.post("tasks/cancel", {"taskId": running[0]})
        alice.settled(running[0])
        alice.settled(alice.task(0)[1]["result"]["taskId"])
        refused(alice.task(30), 429, -31429, "Too many tasks")
        refused(alice.initialize(), 503, -32603, "too many sessions")
        # Bob gets all of it.
        assert bob.initialize()[0] == 200 and bob.session
        assert "result" in bob.post("resources/subscribe", {"uri": "test://r/1"}, modern=False)[1]
        assert bob.post("tools/call", {"name": "greet", "arguments": {"name": "bob"}})[0] == 200
        done = bob.settled(bob.task(0, "bob's")[1]["result"]["taskId"])
        assert done["status"] == "completed" and done["result"]["content"][0]["text"] == "bob's", done
        live = bob.task(30)[1]["result"]["taskId"]
        assert bob.post("tasks/cancel", {"taskId": live})[0] == 200
        for i in running:
            alice.post("tasks/cancel", {"taskId": i})
    finally:
        stop(proc)
