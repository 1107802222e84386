"""The workload suite's stateful workloads (bench/workloads.py drives them): what one request at a
time through bench/loadgen cannot measure.

  fanout    N open `subscriptions/listen` streams (raw sockets, one asyncio loop), then `events`
            sequential `touch` calls (`notify_resource_updated`): per event the time from sending
            the call until the last stream has the notification, and the server's CPU per event;
            RSS per open stream.
  sessions  N legacy sessions (`initialize`), then `notifications/initialized` and one
            `tools/call add` in each: initialize/s, the server's CPU per initialize and per
            call, RSS per session (the sessions stay open).
  tasks     `conns` threads, each: `tools/call job` creating a task, `tasks/get` until it is
            terminal (its `result` is the fetched result): tasks/s, polls per task, the server's
            CPU per task, RSS per task kept (finished tasks are held for their TTL).

Every loop is bounded in count and in time; loopback only; every answer is checked.
"""

from __future__ import annotations

import asyncio
import http.client
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import run
from run import LEGACY, MODERN

TASKS_CAPS = {"extensions": {"io.modelcontextprotocol/tasks": {}}}
WATCHED = "bench://watched"


def modern(method: str, params: dict, caps: dict | None = None, rid: object = 1) -> dict:
    p = dict(params)
    p["_meta"] = {"io.modelcontextprotocol/protocolVersion": MODERN,
                  "io.modelcontextprotocol/clientCapabilities": caps or {}}
    return {"jsonrpc": "2.0", "id": rid, "method": method, "params": p}


def hdrs(m: dict, proto: str, session: str | None = None) -> dict[str, str]:
    h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
         "MCP-Protocol-Version": proto}
    if proto == MODERN:
        h["Mcp-Method"] = m["method"]
        p = m.get("params") or {}
        name = p.get("name") or p.get("uri") or p.get("taskId")
        if name:
            h["Mcp-Name"] = name
    if session:
        h["Mcp-Session-Id"] = session
    return h


class Conn:
    """One keep-alive HTTP/1.1 connection (per thread), reopened once on a broken pipe."""

    def __init__(self, port: int):
        self.port = port
        self.c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)

    def post(self, m: dict, proto: str, session: str | None = None):
        for attempt in (0, 1):
            try:
                self.c.request("POST", "/mcp", body=run.enc(m), headers=hdrs(m, proto, session))
                r = self.c.getresponse()
                body = r.read()
                h = {k.lower(): v for k, v in r.getheaders()}
                return r.status, h, run.parse_body(h.get("content-type", ""), body, m.get("id")) if body else None
            except (http.client.HTTPException, OSError):
                self.c.close()
                self.c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
                if attempt:
                    raise
        raise AssertionError("unreachable")


def result(r: dict | None) -> dict:
    res = (r or {}).get("result")
    if not isinstance(res, dict):
        raise ValueError(f"no result: {str(r)[:300]}")
    return res


def text(res: dict) -> str:
    c = res.get("content") or []
    return c[0].get("text", "") if c else ""


def tls_conn(local: threading.local, port: int) -> Conn:
    if not hasattr(local, "c"):
        local.c = Conn(port)
    return local.c


# ------------------------------------------------------------------------------------ fan-out

ACK = b"notifications/subscriptions/acknowledged"
UPDATED = b"notifications/resources/updated"


class Stream:
    def __init__(self) -> None:
        self.times: list[float] = []
        self.acked = False
        self.head = b""
        self.writer: asyncio.StreamWriter | None = None


async def _stream(port: int, req: bytes, st: Stream, progress: asyncio.Condition) -> None:
    reader, st.writer = await asyncio.open_connection("127.0.0.1", port)
    st.writer.write(req)
    await st.writer.drain()
    tail = b""
    keep = max(len(ACK), len(UPDATED)) - 1
    while True:
        chunk = await reader.read(65536)
        if not chunk:
            return
        now = time.perf_counter()
        if len(st.head) < 400:
            st.head += chunk[:400]
        data = tail + chunk
        tail = data[-keep:]
        n = data.count(UPDATED)
        changed = False
        if not st.acked and ACK in data:
            st.acked, changed = True, True
        if n:
            st.times.extend([now] * n)
            changed = True
        if changed:
            async with progress:
                progress.notify_all()


def _nomark(_: str) -> None:
    pass


async def _fanout(port: int, n: int, events: int, limit_s: float, pid: int, mark) -> dict:
    m = modern("subscriptions/listen", {"notifications": {"resourceSubscriptions": [WATCHED]}}, rid="listen")
    body = run.enc(m)
    head = "".join(f"{k}: {v}\r\n" for k, v in hdrs(m, MODERN).items())
    req = (f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{head}Content-Length: {len(body)}\r\n\r\n"
           ).encode() + body
    progress = asyncio.Condition()
    streams = [Stream() for _ in range(n)]
    tasks = []
    rss0 = run.rss(run.tree(pid))
    t_open = time.monotonic()
    try:
        for i in range(0, n, 50):  # in batches: the listen backlog
            tasks += [asyncio.create_task(_stream(port, req, st, progress)) for st in streams[i:i + 50]]
            await asyncio.sleep(0.005)

        async def wait(pred, timeout: float) -> bool:
            async with progress:
                try:
                    await asyncio.wait_for(progress.wait_for(pred), timeout)
                    return True
                except asyncio.TimeoutError:
                    return False
        if not await wait(lambda: all(s.acked for s in streams), 30):
            bad = next(s for s in streams if not s.acked)
            raise RuntimeError(f"{sum(s.acked for s in streams)}/{n} listen streams acknowledged; one answered: "
                               f"{bad.head[:300]!r}")
        open_s = time.monotonic() - t_open
        await asyncio.sleep(0.2)
        rss1 = run.rss(run.tree(pid))
        touch = Conn(port)
        tm = modern("tools/call", {"name": "touch", "arguments": {}})
        st, _, r = await asyncio.to_thread(touch.post, tm, MODERN)  # the check before the events
        if st != 200 or text(result(r)) != "touched":
            raise RuntimeError(f"touch: HTTP {st} {str(r)[:200]}")
        if not await wait(lambda: all(len(s.times) >= 1 for s in streams), 10):
            raise RuntimeError(f"{sum(len(s.times) >= 1 for s in streams)}/{n} streams got the first event")
        last, first, cpu = [], [], 0.0
        end = time.monotonic() + limit_s
        await asyncio.to_thread(mark, "start")
        for k in range(1, events + 1):
            if time.monotonic() > end:
                break
            c0 = run.cpu_s(run.tree(pid))
            t0 = time.perf_counter()
            st, _, r = await asyncio.to_thread(touch.post, tm, MODERN)
            if st != 200:
                raise RuntimeError(f"touch: HTTP {st}")
            if not await wait(lambda k=k: all(len(s.times) > k for s in streams), 10):
                raise RuntimeError(f"event {k}: {sum(len(s.times) > k for s in streams)}/{n} streams got it in 10 s")
            cpu += run.cpu_s(run.tree(pid)) - c0
            arr = [s.times[k] for s in streams]
            last.append((max(arr) - t0) * 1e6)
            first.append((min(arr) - t0) * 1e6)
            await asyncio.sleep(0.02)
        await asyncio.to_thread(mark, "end")
        done = len(last)
        last.sort()
        return {"listeners": n, "events": done, "open_s": open_s,
                "last_p50_us": last[done // 2], "last_max_us": last[-1], "first_p50_us": sorted(first)[done // 2],
                "cpu_us_per_event": cpu / done * 1e6, "cpu_us_per_delivery": cpu / done / n * 1e6,
                "rss_per_listener": (rss1 - rss0) / n, "rss_listening": rss1, "peak_rss": rss1}
    finally:
        for st in streams:
            if st.writer:
                st.writer.close()
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def fanout(port: int, n: int, events: int, limit_s: float, pid: int, mark=_nomark) -> dict:
    """`mark("start")` / `mark("end")` around the measured events (callgrind's counters)."""
    return asyncio.run(_fanout(port, n, events, limit_s, pid, mark))


# ------------------------------------------------------------------------------------ sessions

def sessions(port: int, n: int, conns: int, limit_s: float, pid: int, mark=_nomark) -> dict:
    local = threading.local()
    ids: list[str | None] = [None] * n
    end = time.monotonic() + limit_s

    def init(i: int) -> None:
        if time.monotonic() > end:
            return
        st, h, r = tls_conn(local, port).post(run.init_msg(i), LEGACY)
        if st != 200 or "protocolVersion" not in result(r) or "mcp-session-id" not in h:
            raise RuntimeError(f"initialize: HTTP {st} {str(r)[:200]}")
        ids[i] = h["mcp-session-id"]

    add = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "add", "arguments": {"a": 2, "b": 3}}}
    inited = {"jsonrpc": "2.0", "method": "notifications/initialized"}

    def one_call(i: int) -> None:
        sid = ids[i]
        if sid is None or time.monotonic() > end:
            return
        c = tls_conn(local, port)
        st, _, _ = c.post(inited, LEGACY, sid)
        if st not in (200, 202):
            raise RuntimeError(f"notifications/initialized: HTTP {st}")
        st, _, r = c.post(add, LEGACY, sid)
        if st != 200 or text(result(r)) != "5":
            raise RuntimeError(f"tools/call in a session: HTTP {st} {str(r)[:200]}")

    init(0)  # the check before the load
    one_call(0)
    pids = run.tree(pid)
    rss0 = run.rss(pids)
    mark("start")
    with ThreadPoolExecutor(conns) as ex:
        c0, t0 = run.cpu_s(pids), time.perf_counter()
        list(ex.map(init, range(1, n)))
        c1, t1 = run.cpu_s(pids), time.perf_counter()
        made = sum(x is not None for x in ids)
        list(ex.map(one_call, range(1, n)))
        c2, t2 = run.cpu_s(pids), time.perf_counter()
    mark("end")
    time.sleep(0.2)
    rss1 = run.rss(run.tree(pid))
    if made < 2:
        raise RuntimeError(f"only {made}/{n} sessions in {limit_s:.0f} s")
    return {"sessions": made, "complete": made == n, "init_per_s": (made - 1) / (t1 - t0), "cpu_us_per_init": (c1 - c0) / (made - 1) * 1e6,
            "calls_per_s": (made - 1) / (t2 - t1), "cpu_us_per_session_call": (c2 - c1) / (made - 1) * 1e6,
            "rss_per_session": (rss1 - rss0) / (made - 1), "peak_rss": rss1,
            "rps": (made - 1) / (t1 - t0), "cpu_us_per_req": (c1 - c0) / (made - 1) * 1e6}


# ------------------------------------------------------------------------------------ tasks

def tasks(port: int, conns: int, duration: float, max_tasks: int, pid: int, mark=_nomark) -> dict:
    create = modern("tools/call", {"name": "job", "arguments": {}}, TASKS_CAPS)
    lock = threading.Lock()
    counts = {"tasks": 0, "polls": 0}
    stop_at = [0.0]

    def cycle(c: Conn) -> int:
        st, _, r = c.post(create, MODERN)
        res = result(r)
        if st != 200 or res.get("resultType") != "task" or not res.get("taskId"):
            raise RuntimeError(f"tools/call did not create a task: HTTP {st} {str(r)[:300]}")
        get = modern("tasks/get", {"taskId": res["taskId"]}, TASKS_CAPS)
        for polls in range(1, 201):
            st, _, r = c.post(get, MODERN)
            t = result(r)
            if t.get("status") in ("completed", "failed", "cancelled"):
                if t["status"] != "completed" or text(t.get("result") or {}) != "job done":
                    raise RuntimeError(f"task ended {str(t)[:300]}")
                return polls
        raise RuntimeError("task not terminal after 200 polls")

    def worker() -> None:
        c = Conn(port)
        while time.monotonic() < stop_at[0]:
            with lock:
                if counts["tasks"] >= max_tasks:
                    return
            p = cycle(c)
            with lock:
                counts["tasks"] += 1
                counts["polls"] += p

    cycle(Conn(port))  # the check before the load
    pids = run.tree(pid)
    rss0 = run.rss(pids)
    mark("start")
    c0, t0 = run.cpu_s(pids), time.perf_counter()
    stop_at[0] = time.monotonic() + duration
    with ThreadPoolExecutor(conns) as ex:
        for f in [ex.submit(worker) for _ in range(conns)]:
            f.result()
    c1, t1 = run.cpu_s(pids), time.perf_counter()
    mark("end")
    rss1 = run.rss(run.tree(pid))
    n = counts["tasks"]
    return {"tasks": n, "tasks_per_s": n / (t1 - t0), "polls_per_task": counts["polls"] / n,
            "cpu_us_per_task": (c1 - c0) / n * 1e6, "server_cpu": (c1 - c0) / (t1 - t0),
            "rss_per_task": (rss1 - rss0) / n, "peak_rss": rss1,
            "rps": n / (t1 - t0), "cpu_us_per_req": (c1 - c0) / n * 1e6}
