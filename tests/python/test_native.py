"""Through the core (in-memory client → core HTTP handler → dispatch → Python handlers)."""

from __future__ import annotations

import asyncio
import runpy
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from oxmcp import Client, Context, McpError, Server, ToolError, ToolResult

ROOT = Path(__file__).resolve().parents[2]
CAPS = {"elicitation": {}, "sampling": {}, "roots": {}}


@pytest.fixture(scope="module")
def everything() -> Server:
    return runpy.run_path(str(ROOT / "examples" / "python" / "everything.py"))["server"]


def text(result: dict[str, Any]) -> str:
    return result["content"][0]["text"]


async def test_discover_lists_and_caching(everything: Server) -> None:
    async with Client(everything) as c:
        d = await c.discover()
        assert d["resultType"] == "complete" and "2026-07-28" in d["supportedVersions"]
        assert {"tools", "resources", "prompts", "completions"} <= set(d["capabilities"])
        assert d["instructions"] == "Conformance fixtures for the oxmcp Python binding."
        tools = await c.list_tools()
        assert [t["name"] for t in tools] == [t["name"] for t in everything.list_tools()]
        assert tools == await c.list_tools()  # deterministic order
        for method in ("tools/list", "prompts/list", "resources/list", "resources/templates/list"):
            r = await c.request(method)
            assert isinstance(r["ttlMs"], int) and r["cacheScope"] in ("public", "private")


async def test_every_content_kind(everything: Server) -> None:
    async with Client(everything) as c:
        assert text(await c.call_tool("test_simple_text")) == "This is a simple text response for testing."
        img = (await c.call_tool("test_image_content"))["content"][0]
        assert img["type"] == "image" and img["mimeType"] == "image/png" and img["data"]
        aud = (await c.call_tool("test_audio_content"))["content"][0]
        assert aud["type"] == "audio" and aud["mimeType"] == "audio/wav"
        res = (await c.call_tool("test_embedded_resource"))["content"][0]
        assert res["resource"]["uri"] == "test://embedded-resource" and res["resource"]["mimeType"] == "text/plain"
        mixed = (await c.call_tool("test_multiple_content_types"))["content"]
        assert [m["type"] for m in mixed] == ["text", "image", "resource"]
        err = await c.call_tool("test_error_handling")
        assert err["isError"] is True and "intentionally" in text(err)


async def test_structured_output_and_validation_before_python() -> None:
    calls: list[Any] = []
    s = Server("v")

    @s.tool
    def add(a: int, b: int) -> int:
        calls.append((a, b))
        return a + b

    async with Client(s) as c:
        r = await c.call_tool("add", {"a": 2, "b": 3})
        assert r["structuredContent"] == {"result": 5} and text(r) == "5"
        bad = await c.call_tool("add", {"a": "two", "b": 3})
        assert bad["isError"] is True
        missing = await c.call_tool("add", {"a": 1})
        assert missing["isError"] is True
        with pytest.raises(McpError) as e:
            await c.call_tool("nope", {})
        assert e.value.code == -32602
    assert calls == [(2, 3)]  # the core rejected the bad calls before Python ran


async def test_validation_mode_jsonrpc_error() -> None:
    s = Server("v", validation="jsonrpc_error")

    @s.tool
    def add(a: int) -> int:
        return a

    async with Client(s) as c:
        with pytest.raises(McpError) as e:
            await c.call_tool("add", {"a": "x"})
        assert e.value.code == -32602


async def test_errors_are_safe_and_logged(caplog: pytest.LogCaptureFixture) -> None:
    s = Server("e")

    @s.tool
    def boom() -> str:
        raise RuntimeError("password=hunter2")

    @s.tool
    async def aboom() -> str:
        raise ToolError("visible")

    async with Client(s) as c:
        r = await c.call_tool("boom")
        # The core's one text, as in Rust and Node (tests/it/isolation.rs, tests/node/tools.test.mjs).
        assert r["isError"] and text(r) == "Error executing tool boom"
        assert text(await c.call_tool("aboom")) == "visible"
    assert "hunter2" in caplog.text


async def test_progress_and_log_notifications(everything: Server) -> None:
    async with Client(everything, log_level="debug") as c:
        r = await c.call_tool("test_tool_with_progress", {}, progress_token="progress-test-1")
        assert text(r) == "Tool with progress completed"
        progress = [n["params"] for n in c.notifications if n["method"] == "notifications/progress"]
        assert [(p["progressToken"], p["progress"], p["total"]) for p in progress] == [
            ("progress-test-1", 0, 100), ("progress-test-1", 50, 100), ("progress-test-1", 100, 100)]
        c.notifications.clear()
        await c.call_tool("test_tool_with_logging")
        logs = [n["params"]["data"] for n in c.notifications if n["method"] == "notifications/message"]
        assert logs == ["Tool execution started", "Tool processing data", "Tool execution completed"]
    async with Client(everything) as c:  # no logLevel: no log messages
        await c.call_tool("test_logging_tool")
        assert not [n for n in c.notifications if n["method"] == "notifications/message"]


async def test_mrtr_elicitation_round_trip(everything: Server) -> None:
    async with Client(everything, capabilities=CAPS) as c:
        r1 = await c.call_tool("test_input_required_result_elicitation")
        assert r1["resultType"] == "input_required"
        req = r1["inputRequests"]["user_name"]
        assert req["method"] == "elicitation/create"
        assert req["params"]["requestedSchema"]["properties"]["name"] == {"type": "string"}
        r2 = await c.call_tool("test_input_required_result_elicitation",
                               input_responses={"user_name": {"action": "accept", "content": {"name": "Alice"}}},
                               request_state=r1.get("requestState"))
        assert r2["resultType"] == "complete" and text(r2) == "Hello, Alice!"


async def test_mrtr_multiple_inputs_and_multi_round(everything: Server) -> None:
    async with Client(everything, capabilities=CAPS) as c:
        r = await c.call_tool("test_input_required_result_multiple_inputs")
        assert {v["method"] for v in r["inputRequests"].values()} == {
            "elicitation/create", "sampling/createMessage", "roots/list"}
        answers = {"user_name": {"action": "accept", "content": {"name": "A"}},
                   "capital_question": {"role": "assistant", "content": {"type": "text", "text": "Paris"},
                                        "model": "m"},
                   "client_roots": {"roots": [{"uri": "file:///tmp"}]}}
        done = await c.call_tool("test_input_required_result_multiple_inputs", input_responses=answers,
                                 request_state=r["requestState"])
        assert done["resultType"] == "complete", done
        r1 = await c.call_tool("test_input_required_result_multi_round")
        a1 = {"round1": {"action": "accept", "content": {"name": "Bo"}}}
        r2 = await c.call_tool("test_input_required_result_multi_round", input_responses=a1,
                               request_state=r1["requestState"])
        assert r2["resultType"] == "input_required" and r2["requestState"] != r1["requestState"]
        assert list(r2["inputRequests"]) == ["round2"]
        r3 = await c.call_tool("test_input_required_result_multi_round",
                               input_responses={"round2": {"action": "accept", "content": {"name": "Bo"}}},
                               request_state=r2["requestState"])
        assert r3["resultType"] == "complete" and "Bo, Bo" in text(r3)


async def test_mrtr_tampered_state_and_capability_checks(everything: Server) -> None:
    async with Client(everything, capabilities=CAPS) as c:
        r1 = await c.call_tool("test_input_required_result_tampered_state")
        with pytest.raises(McpError):
            await c.call_tool("test_input_required_result_tampered_state",
                              input_responses={"user_name": {"action": "accept", "content": {"name": "x"}}},
                              request_state=r1["requestState"] + "-TAMPERED")
    async with Client(everything, capabilities={"sampling": {}}) as c:
        r = await c.call_tool("test_input_required_result_capabilities")
        assert [v["method"] for v in r["inputRequests"].values()] == ["sampling/createMessage"]
    async with Client(everything) as c:
        with pytest.raises(McpError) as e:
            await c.call_tool("test_missing_capability")
        assert e.value.code == -32021 and e.value.data == {"requiredCapabilities": {"sampling": {}}}


async def test_input_required_is_not_swallowed_by_except_exception() -> None:
    s = Server("m")

    @s.tool
    async def careful(ctx: Context) -> str:
        try:
            answer = await ctx.elicit("k", "Sure?", {"type": "object", "properties": {"ok": {"type": "boolean"}}})
        except Exception:  # noqa: BLE001  must not catch InputRequired
            return "swallowed"
        return f"answered {answer.action}"

    async with Client(s, capabilities={"elicitation": {}}) as c:
        r = await c.call_tool("careful")
        assert r["resultType"] == "input_required"


async def test_prompt_mrtr_resources_prompts_completions(everything: Server) -> None:
    async with Client(everything, capabilities=CAPS) as c:
        r = await c.get_prompt("test_input_required_result_prompt")
        assert r["resultType"] == "input_required"
        done = await c.request("prompts/get", {"name": "test_input_required_result_prompt",
                                               "inputResponses": {"topic": {"action": "accept",
                                                                            "content": {"topic": "owls"}}},
                                               "requestState": r["requestState"]})
        assert done["messages"][0]["content"]["text"] == "Write about owls."
        t = await c.read_resource("test://static-text")
        assert t["contents"][0]["text"] == "This is the content of the static text resource."
        b = await c.read_resource("test://static-binary")
        assert b["contents"][0]["mimeType"] == "image/png" and b["contents"][0]["blob"]
        with pytest.raises(McpError) as e:
            await c.read_resource("test://nonexistent-resource-for-conformance-testing")
        assert e.value.code == -32602
        p = await c.get_prompt("test_prompt_with_arguments", {"arg1": "testValue1", "arg2": "testValue2"})
        assert "testValue1" in p["messages"][0]["content"]["text"] and "testValue2" in p["messages"][0]["content"]["text"]
        with pytest.raises(McpError):
            await c.get_prompt("test_prompt_with_arguments", {"arg1": "only one"})
        img = await c.get_prompt("test_prompt_with_image")
        assert img["messages"][0]["content"]["type"] == "image"
        emb = await c.get_prompt("test_prompt_with_embedded_resource", {"resourceUri": "test://example-resource"})
        assert emb["messages"][0]["content"]["resource"]["uri"] == "test://example-resource"
        comp = await c.complete({"type": "ref/prompt", "name": "test_prompt_with_arguments"}, "arg1", "test")
        assert comp["values"] == ["test", "testing", "tested"]


async def test_sync_and_async_side_by_side_and_blocking_sync_does_not_delay_async() -> None:
    s = Server("conc", max_workers=4)
    release = threading.Event()

    @s.tool
    def blocking() -> str:
        release.wait(10)  # a sync handler that blocks its pool thread
        return "unblocked"

    @s.tool
    async def quick(n: int) -> int:
        await asyncio.sleep(0)
        return n

    @s.tool
    def sync_quick(n: int) -> int:
        return n * 2

    async with Client(s) as c:
        slow = asyncio.ensure_future(c.call_tool("blocking"))
        await asyncio.sleep(0.1)
        t0 = time.monotonic()
        results = await asyncio.gather(*(c.call_tool("quick", {"n": i}) for i in range(20)),
                                       *(c.call_tool("sync_quick", {"n": i}) for i in range(5)))
        elapsed = time.monotonic() - t0
        assert not slow.done()
        assert [r["structuredContent"]["result"] for r in results] == list(range(20)) + [0, 2, 4, 6, 8]
        assert elapsed < 5.0, elapsed  # not behind the blocker, which waits up to 10 s
        release.set()
        assert text(await asyncio.wait_for(slow, 10)) == "unblocked"


async def test_cancellation_cancels_the_asyncio_task() -> None:
    # The core's in-flight guard (640d157): the response future dropped while the request is
    # still in JSON mode fires the request's token, which cancels the handler's asyncio task.
    s = Server("cancel")
    cancelled = asyncio.Event()
    started = asyncio.Event()

    @s.tool
    async def wait_forever() -> str:
        started.set()
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return "finished"

    async with Client(s) as c:
        native = s.native
        headers = [("content-type", "application/json"), ("accept", "application/json, text/event-stream"),
                   ("mcp-protocol-version", "2026-07-28"), ("mcp-method", "tools/call"),
                   ("mcp-name", "wait_forever"), ("host", "localhost")]
        body = (b'{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"wait_forever","_meta":'
                b'{"io.modelcontextprotocol/protocolVersion":"2026-07-28",'
                b'"io.modelcontextprotocol/clientCapabilities":{},"progressToken":1}}}')
        task = asyncio.ensure_future(native.handle_http("POST", "/mcp", headers, body))
        await asyncio.wait_for(started.wait(), 5)
        await asyncio.sleep(0.05)
        # The client goes away: the core drops the request and cancels the handler.
        if task.done():
            _status, _headers, _body, stream = task.result()
            assert stream is not None
            await stream.close()
        else:
            task.cancel()
        await asyncio.wait_for(cancelled.wait(), 5)
        assert c is not None


async def test_context_fields() -> None:
    s = Server("ctx")
    seen: dict[str, Any] = {}

    @s.tool
    def inspect_ctx(ctx: Context) -> str:
        seen.update(request_id=ctx.request_id, era=ctx.era, version=ctx.protocol_version,
                    info=ctx.client_info, caps=ctx.client_capabilities, cancelled=ctx.cancelled,
                    sampling=ctx.supports("sampling"), meta=ctx.meta)
        return "ok"

    async with Client(s, capabilities={"sampling": {}}, client_info={"name": "tester", "version": "9"}) as c:
        await c.call_tool("inspect_ctx")
    assert seen["era"] == "modern" and seen["version"] == "2026-07-28" and isinstance(seen["request_id"], int)
    assert seen["info"] == {"name": "tester", "version": "9"} and seen["caps"] == {"sampling": {}}
    assert seen["sampling"] is True and seen["cancelled"] is False
    assert seen["meta"]["io.modelcontextprotocol/protocolVersion"] == "2026-07-28"


async def test_runtime_add_and_remove() -> None:
    s = Server("dyn")

    @s.tool
    def base() -> str:
        return "base"

    async with Client(s) as c:
        assert [t["name"] for t in await c.list_tools()] == ["base"]

        def extra(x: int) -> int:
            """Added at runtime."""
            return x + 1

        s.add_tool(extra, name="extra")
        assert [t["name"] for t in await c.list_tools()] == ["base", "extra"]
        assert (await c.call_tool("extra", {"x": 1}))["structuredContent"] == {"result": 2}
        assert s.remove_tool("extra") is True
        assert [t["name"] for t in await c.list_tools()] == ["base"]
        with pytest.raises(McpError):
            await c.call_tool("extra", {"x": 1})


async def test_the_completion_cap_is_the_cores() -> None:
    """150 values from a Python handler: the core sends 100, with total and hasMore (the same rule
    and numbers as Rust and Node: tests/node/tools.test.mjs)."""
    s = Server("cap")

    @s.prompt(completions={"x": [f"v{i:03}" for i in range(150)]})
    def p(x: str) -> str:
        return x

    async with Client(s) as c:
        comp = await c.complete({"type": "ref/prompt", "name": "p"}, "x", "")
        assert comp["values"] == [f"v{i:03}" for i in range(100)]
        assert comp["total"] == 150 and comp["hasMore"] is True
        few = await c.complete({"type": "ref/prompt", "name": "p"}, "x", "v14")
        assert few["values"] == [f"v14{i}" for i in range(10)] and "hasMore" not in few


async def test_values_cross_the_native_boundary_unchanged() -> None:
    """The binding's own JSON <-> Python conversion (both ways) keeps every JSON value as it is,
    ints at the edges of the i64/u64 ranges included, and reads every result shape a tool gives:
    the usual one (text blocks, structuredContent, isError) directly, any other through serde."""
    s = Server("values")
    seen: list[Any] = []

    @s.tool(input_schema={"type": "object", "properties": {"v": {}}})
    def echo(v: Any = None) -> ToolResult:
        seen.append(v)
        return ToolResult("echoed", structured_content={"v": v})

    @s.tool(input_schema={"type": "object"})
    def failing() -> ToolResult:
        return ToolResult([{"type": "text", "text": "a"}, {"type": "text", "text": "b"}], is_error=True)

    @s.tool(input_schema={"type": "object"})
    def annotated() -> ToolResult:
        return ToolResult([{"type": "text", "text": "hi", "annotations": {"audience": ["user"]}}],
                          meta={"k": 1})

    value = {"max": 2**63 - 1, "min": -2**63, "u64": 2**64 - 1, "f": 1.5, "tiny": 5e-324, "s": "é☃\x00",
             "t": True, "n": None, "l": [1, [2, {"x": False}], []], "o": {}, "neg": -1, "zero": 0.0}
    async with Client(s) as c:
        r = await c.call_tool("echo", {"v": value})
        assert seen == [value] and r["structuredContent"] == {"v": value}, r
        assert type(seen[0]["max"]) is int and type(seen[0]["f"]) is float and type(seen[0]["zero"]) is float
        for v in (None, [], "x", 3, 2**64 - 1, -7.25):
            assert (await c.call_tool("echo", {"v": v}))["structuredContent"] == {"v": v}
        f = await c.call_tool("failing")
        assert f["isError"] is True and [b["text"] for b in f["content"]] == ["a", "b"] and "structuredContent" not in f
        a = await c.call_tool("annotated")
        assert a["content"] == [{"type": "text", "text": "hi", "annotations": {"audience": ["user"]}}], a
        assert a["_meta"]["k"] == 1


async def test_blocked_sync_handlers_run_side_by_side_up_to_the_pool_size() -> None:
    """Sync handlers that block (GIL released) run side by side, one per pool worker: a blocked
    handler never holds up the calls queued behind it while a worker is free."""
    s = Server("pool", max_workers=4)
    barrier = threading.Barrier(4, timeout=5)

    @s.tool
    def meet() -> str:
        barrier.wait()  # returns only once four calls run at the same time
        return "met"

    async with Client(s) as c:
        for _ in range(3):
            rs = await asyncio.gather(*(c.call_tool("meet") for _ in range(4)))
            assert [text(r) for r in rs] == ["met"] * 4, rs  # the barrier (5 s) met: four at once
