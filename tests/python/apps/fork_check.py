"""Fork safety: build a server, (optionally) use it, os.fork(), then serve and call in the child.

    python fork_check.py before-use|after-use

Exit status 0 when the child and the parent both work after the fork; the child's verdict
comes back through a pipe. Every wait is bounded.
"""

import asyncio
import json
import os
import socket
import sys
import urllib.request

from oxmcp import Client, Server

server = Server("forky")


@server.tool
def add(a: int, b: int) -> int:
    return a + b


@server.tool
async def pid() -> int:
    await asyncio.sleep(0)
    return os.getpid()


async def in_memory() -> tuple[int, int]:
    async with Client(server, timeout=10) as c:
        r = await c.call_tool("add", {"a": 2, "b": 3})
        p = await c.call_tool("pid")
        return r["structuredContent"]["result"], p["structuredContent"]["result"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def http_call(port: int, name: str, arguments: dict) -> dict:
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                       "params": {"name": name, "arguments": arguments, "_meta": meta}}).encode()
    req = urllib.request.Request(f"http://127.0.0.1:{port}/mcp", data=body, method="POST", headers={
        "content-type": "application/json", "accept": "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": name})
    with urllib.request.urlopen(req, timeout=10) as resp:
        return json.loads(resp.read())


async def serve_and_call() -> tuple[int, int]:
    port = free_port()
    serving = asyncio.ensure_future(server.run_async("http", port=port))
    try:
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                await asyncio.sleep(0.02)
        r = await asyncio.to_thread(http_call, port, "add", {"a": 20, "b": 22})
        p = await asyncio.to_thread(http_call, port, "pid", {})
        return r["result"]["structuredContent"]["result"], p["result"]["structuredContent"]["result"]
    finally:
        serving.cancel()
        await asyncio.wait({serving}, timeout=10)


def child(w: int) -> None:
    try:
        total, seen_pid = asyncio.run(asyncio.wait_for(in_memory(), 20))
        assert (total, seen_pid) == (5, os.getpid()), (total, seen_pid)
        total, seen_pid = asyncio.run(asyncio.wait_for(serve_and_call(), 20))
        assert (total, seen_pid) == (42, os.getpid()), (total, seen_pid)
        os.write(w, b"ok")
    except BaseException as e:  # noqa: BLE001 - report anything to the parent
        os.write(w, f"child failed: {e!r}".encode()[:4000])
    finally:
        os._exit(0)


def main() -> int:
    mode = sys.argv[1]
    if mode == "after-use":
        assert asyncio.run(in_memory()) == (5, os.getpid())  # runtime, pool and dispatcher running
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        child(w)
    os.close(w)
    import select

    ready, _, _ = select.select([r], [], [], 60)
    verdict = os.read(r, 4096).decode() if ready else "child timed out"
    if not ready:
        os.kill(pid, 9)
    os.waitpid(pid, 0)
    # The parent is unaffected by the child's runtime and pool.
    assert asyncio.run(in_memory()) == (5, os.getpid())
    print(verdict)
    return 0 if verdict == "ok" else 1


if __name__ == "__main__":
    sys.exit(main())
