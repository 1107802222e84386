"""The ``mcp`` SDK's 2026-07-28 HTTP entry, ``mcp.server._streamable_http_modern.handle_modern_request``,
over real HTTP (uvicorn on 127.0.0.1) and on trio: each request is the core's (its header checks, its
answers), the caller's lifespan value is what handlers see, and the core's guard refusals are worded as
the SDK's. Also ``mcp.shared.transport_context`` and the refusals of the SDK internals oxmcp leaves to
its core."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from procs import free_port, stop, wait_listening

SERVER = textwrap.dedent('''
    import contextlib, json, sys
    import uvicorn
    from oxmcp import _dropin
    _dropin.install()
    from mcp.server import Server
    from mcp.server._streamable_http_modern import handle_modern_request
    from mcp_types import ListToolsResult, LoggingMessageNotification, LoggingMessageNotificationParams, Tool

    @contextlib.asynccontextmanager
    async def lifespan(server):
        yield {"db": "ready"}

    async def list_tools(ctx, params):
        await ctx.session.report_progress(1.0, total=2.0)
        await ctx.session.send_notification(LoggingMessageNotification(
            params=LoggingMessageNotificationParams(level="info", data="listing")), related_request_id=ctx.request_id)
        caps = ctx.session.client_capabilities
        seen = {"db": ctx.lifespan_context["db"], "anonymous": ctx.session.client_params is None,
                "caps": None if caps is None else caps.model_dump(exclude_none=True)}
        return ListToolsResult(tools=[Tool(name="echo", description=json.dumps(seen),
                                           input_schema={"type": "object"})])

    server = Server("modern", lifespan=lifespan, on_list_tools=list_tools)

    async def app(scope, receive, send):
        if scope["type"] == "lifespan":
            while (await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
            return
        async with server.lifespan(server) as state:
            await handle_modern_request(server, None, True, state, scope, receive, send)

    uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
''')

META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}
LIST = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": META}}


@pytest.fixture(scope="module")
def port(tmp_path_factory: pytest.TempPathFactory) -> Any:
    script = tmp_path_factory.mktemp("modern") / "server.py"
    script.write_text(SERVER)
    port = free_port()
    proc = subprocess.Popen([sys.executable, str(script), str(port)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, env=os.environ.copy())
    wait_listening(port, proc, timeout=30)
    yield port
    stop(proc)


def _post(port: int, body: Any, method: str = "tools/list", *, host: str | None = None,
          verb: str = "POST") -> tuple[int, dict[str, str], bytes]:
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
               "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": method}
    if host is not None:
        headers["Host"] = host
    data = json.dumps(body).encode() if verb == "POST" else None
    req = urllib.request.Request(f"http://127.0.0.1:{port}/mcp", data=data, method=verb, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, {k.lower(): v for k, v in r.headers.items()}, r.read()
    except urllib.error.HTTPError as e:
        return e.code, {k.lower(): v for k, v in e.headers.items()}, e.read()


def _described(answer: dict[str, Any]) -> list[tuple[str, Any]]:
    return [(t["name"], json.loads(t["description"])) for t in answer["result"]["tools"]]


def test_a_request_is_answered_by_the_core_with_the_callers_lifespan_value(port: int) -> None:
    status, headers, body = _post(port, LIST)
    assert status == 200, body
    # No progressToken and no logLevel: nothing to stream, so one JSON answer.
    assert headers["content-type"].startswith("application/json")
    assert "mcp-session-id" not in headers
    answer = json.loads(body)
    assert answer["id"] == 1
    assert _described(answer) == [("echo", {"db": "ready", "anonymous": True, "caps": {}})]


def test_the_handlers_progress_and_log_stream_before_the_answer(port: int) -> None:
    meta = {**META, "progressToken": "tok", "io.modelcontextprotocol/logLevel": "info",
            "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}}
    status, headers, body = _post(port, {**LIST, "params": {"_meta": meta}})
    assert status == 200, body
    assert headers["content-type"].startswith("text/event-stream")
    events = [json.loads(line[5:]) for line in body.decode().splitlines() if line.startswith("data:")]
    assert [e.get("method") for e in events] == ["notifications/progress", "notifications/message", None]
    assert (events[0]["params"]["progressToken"], events[0]["params"]["progress"]) == ("tok", 1)
    assert events[1]["params"]["data"] == "listing"
    assert _described(events[2]) == [("echo", {"db": "ready", "anonymous": False, "caps": {"elicitation": {}}})]


def test_the_cores_header_checks_and_answers_apply(port: int) -> None:
    status, _, body = _post(port, LIST, method="prompts/list")
    assert status == 400
    assert json.loads(body)["error"]["code"] == -32020  # HEADER_MISMATCH: Mcp-Method disagrees with the body
    notification = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}
    assert _post(port, notification, method="notifications/cancelled")[:1] == (202,)
    status, headers, _ = _post(port, None, verb="GET")
    assert (status, headers.get("allow")) == (405, "POST")


def test_a_host_outside_the_cores_rule_is_refused_in_the_sdks_words(port: int) -> None:
    # No security settings: the core's own Host rule (loopback names) still applies.
    status, _, body = _post(port, LIST, host="evil.example")
    assert (status, body) == (421, b"Invalid Host header")


def test_on_trio_requests_are_served_on_an_asyncio_loop_of_the_servers_own() -> None:
    import asyncio

    import anyio

    from oxmcp.server._streamable_http_modern import handle_modern_request
    from oxmcp.server.lowlevel import Server
    from oxmcp.types import ListToolsResult, Tool

    loops: list[Any] = []

    async def list_tools(ctx: Any, params: Any) -> ListToolsResult:
        loops.append(asyncio.get_running_loop())
        await asyncio.sleep(0.2)  # both requests are in flight at once
        return ListToolsResult(tools=[Tool(name="t", input_schema={"type": "object"})])

    server = Server("trio", on_list_tools=list_tools)
    answers: list[list[dict[str, Any]]] = [[], []]

    async def one(sent: list[dict[str, Any]], state: Any) -> None:
        data = json.dumps(LIST).encode()
        headers = [(b"host", b"127.0.0.1"), (b"content-type", b"application/json"),
                   (b"accept", b"application/json"), (b"mcp-protocol-version", b"2026-07-28"),
                   (b"mcp-method", b"tools/list")]
        scope = {"type": "http", "method": "POST", "path": "/mcp", "root_path": "", "headers": headers,
                 "query_string": b""}

        async def receive() -> dict[str, Any]:
            return {"type": "http.request", "body": data, "more_body": False}

        async def send(message: dict[str, Any]) -> None:
            sent.append(message)

        await handle_modern_request(server, None, True, state, scope, receive, send)

    async def main() -> None:
        async with server.lifespan(server) as state, anyio.create_task_group() as tg:
            for sent in answers:
                tg.start_soon(one, sent, state)

    anyio.run(main, backend="trio")
    for sent in answers:
        assert sent[0]["status"] == 200
        body = b"".join(m.get("body", b"") for m in sent[1:])
        assert [t["name"] for t in json.loads(body)["result"]["tools"]] == ["t"]
    assert len(loops) == 2 and loops[0] is loops[1]
    assert getattr(server, "_modern_loop", None) is None  # the loop ended with the last request


def test_one_server_is_served_with_one_set_of_security_settings() -> None:
    import asyncio

    from oxmcp.server._streamable_http_modern import handle_modern_request
    from oxmcp.server.lowlevel import Server
    from oxmcp.server.transport_security import TransportSecuritySettings

    server = Server("settings")

    async def call(settings: Any) -> int:
        sent: list[dict[str, Any]] = []

        async def receive() -> dict[str, Any]:
            return {"type": "http.request", "body": json.dumps(LIST).encode(), "more_body": False}

        async def send(message: dict[str, Any]) -> None:
            sent.append(message)

        scope = {"type": "http", "method": "POST", "path": "/mcp", "root_path": "", "query_string": b"",
                 "headers": [(b"host", b"good.example"), (b"content-type", b"application/json"),
                             (b"accept", b"application/json"), (b"mcp-protocol-version", b"2026-07-28"),
                             (b"mcp-method", b"tools/list")]}
        await handle_modern_request(server, settings, True, {}, scope, receive, send)
        return int(sent[0]["status"])

    good = TransportSecuritySettings(allowed_hosts=["good.example"])
    assert asyncio.run(call(good)) == 200
    with pytest.raises(RuntimeError, match="other security settings"):
        asyncio.run(call(TransportSecuritySettings(allowed_hosts=["other.example"])))


def test_transport_context_and_the_refused_sdk_internals() -> None:
    import dataclasses

    from oxmcp.server import _streamable_http_modern, runner
    from oxmcp.shared.exceptions import McpError, NoBackChannelError
    from oxmcp.shared.transport_context import TransportContext

    ctx = TransportContext(kind="streamable-http", can_send_request=False)
    assert (ctx.kind, ctx.can_send_request, ctx.headers) == ("streamable-http", False, None)
    with pytest.raises(dataclasses.FrozenInstanceError):
        ctx.kind = "stdio"  # type: ignore[misc]
    err = NoBackChannelError("roots/list")
    assert isinstance(err, McpError) and (err.error.code, err.method) == (-32600, "roots/list")
    with pytest.raises(NotImplementedError, match="oxmcp core"):
        _streamable_http_modern._SingleExchangeDispatchContext(request_id=1)
    with pytest.raises(AttributeError, match="oxmcp core's dispatch"):
        runner.serve_one  # noqa: B018
    assert Path(_streamable_http_modern.__file__).name == "_streamable_http_modern.py"
