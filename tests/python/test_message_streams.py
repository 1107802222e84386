"""A low-level ``Server.run(read_stream, write_stream, options)`` over anyio memory streams, as the
``mcp`` SDK runs it: the core serves the connection as it serves stdio (the handshake, its limits,
cancellation, server-to-client requests), and the end of the read stream ends it."""

from __future__ import annotations

import asyncio
import io
from typing import Any

import anyio
import pytest

INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}


def _message(body: dict[str, Any]) -> Any:
    from oxmcp.shared.message import SessionMessage
    from oxmcp.types import jsonrpc_message_adapter

    return SessionMessage(jsonrpc_message_adapter.validate_python(body))


def _body(item: Any) -> dict[str, Any]:
    message = item.message
    message = getattr(message, "root", message)
    return message.model_dump(by_alias=True, exclude_none=True, mode="json")


def _server(started: asyncio.Event | None = None, cancelled: asyncio.Event | None = None) -> Any:
    import oxmcp.types as types
    from oxmcp.server.lowlevel import Server

    server = Server("streams", version="3.1")

    @server.list_tools()
    async def list_tools() -> list[types.Tool]:
        return [types.Tool(name="echo", inputSchema={"type": "object", "properties": {"t": {"type": "string"}}}),
                types.Tool(name="slow", inputSchema={"type": "object"})]

    @server.call_tool()
    async def call_tool(name: str, arguments: dict[str, Any]) -> Any:
        if name == "slow":
            assert started is not None and cancelled is not None
            started.set()
            try:
                await asyncio.sleep(60)
            finally:
                cancelled.set()
        return [types.TextContent(type="text", text=arguments["t"] * 2)]

    return server


def test_run_over_memory_streams_serves_through_the_core() -> None:
    async def main() -> None:
        started, cancelled = asyncio.Event(), asyncio.Event()
        server = _server(started, cancelled)
        to_server, server_read = anyio.create_memory_object_stream[Any](10)
        server_write, from_server = anyio.create_memory_object_stream[Any](10)
        run = asyncio.ensure_future(server.run(server_read, server_write, server.create_initialization_options()))
        async with to_server, from_server:
            await to_server.send(_message(INIT))
            init = _body(await from_server.receive())
            assert init["id"] == 1 and init["result"]["serverInfo"] == {"name": "streams", "version": "3.1"}
            await to_server.send(_message({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            await to_server.send(_message({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                                           "params": {"name": "echo", "arguments": {"t": "ab"}}}))
            answer = _body(await from_server.receive())
            assert answer["id"] == 2 and answer["result"]["content"] == [{"type": "text", "text": "abab"}]
            # The core's rules hold: an unknown method is its -32601.
            await to_server.send(_message({"jsonrpc": "2.0", "id": 3, "method": "no/such"}))
            assert _body(await from_server.receive())["error"]["code"] == -32601
            # A transport's error in the stream is logged; nothing is written for it.
            await to_server.send(RuntimeError("a line that was not JSON"))
            await to_server.send(_message({"jsonrpc": "2.0", "id": 4, "method": "ping"}))
            assert _body(await from_server.receive()) == {"jsonrpc": "2.0", "id": 4, "result": {}}
            # The end of the read stream cancels what is in flight and ends run().
            await to_server.send(_message({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
                                           "params": {"name": "slow", "arguments": {}}}))
            await asyncio.wait_for(started.wait(), 5)
            await to_server.aclose()
            await asyncio.wait_for(run, 5)
            # The handler's task is cancelled by the core; its `finally` may run just after run() ends.
            await asyncio.wait_for(cancelled.wait(), 5)
            with pytest.raises(anyio.EndOfStream):
                from_server.receive_nowait()

    asyncio.run(main())


def test_stdio_server_with_injected_streams_frames_one_message_a_line() -> None:
    from oxmcp.server.stdio import stdio_server

    async def main() -> str:
        stdin = io.StringIO('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",'
                            '"capabilities":{},"clientInfo":{"name":"t","version":"1"}}}\n'
                            'not json\n')
        stdout = io.StringIO()
        server = _server()
        async with stdio_server(stdin=anyio.AsyncFile(stdin), stdout=anyio.AsyncFile(stdout)) as (read, write):
            await asyncio.wait_for(server.run(read, write, server.create_initialization_options()), 10)
        return stdout.getvalue()

    import json

    lines = asyncio.run(main()).splitlines()
    answers = [json.loads(line) for line in lines]
    # `initialize` is answered before the next line is read; the line that is no message is logged.
    assert [a["id"] for a in answers] == [1]
    assert answers[0]["result"]["serverInfo"]["name"] == "streams"


def _echo_exchange() -> list[Any]:
    return [_message(INIT), _message({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            _message({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                      "params": {"name": "echo", "arguments": {"t": "ab"}}})]


def test_run_over_memory_streams_on_trio() -> None:
    """Under trio (through anyio) the same connection is served: the core's futures complete on an
    asyncio loop of the connection's own, and the end of the read stream still ends run()."""

    async def main() -> list[dict[str, Any]]:
        server = _server()
        to_server, server_read = anyio.create_memory_object_stream[Any](10)
        server_write, from_server = anyio.create_memory_object_stream[Any](10)
        answers = []
        async with anyio.create_task_group() as tg:
            tg.start_soon(server.run, server_read, server_write, server.create_initialization_options())
            async with to_server, from_server:
                for item in _echo_exchange():
                    await to_server.send(item)
                with anyio.fail_after(10):
                    answers = [_body(await from_server.receive()) for _ in range(2)]
                await to_server.aclose()
                with anyio.fail_after(10):  # run() ends with the read stream, closing its write stream
                    with pytest.raises(anyio.EndOfStream):
                        await from_server.receive()
        return answers

    answers = anyio.run(main, backend="trio")
    assert answers[0]["result"]["serverInfo"] == {"name": "streams", "version": "3.1"}
    assert answers[1]["result"]["content"] == [{"type": "text", "text": "abab"}]


def test_stdio_server_reads_a_replaced_sys_stdin(monkeypatch: pytest.MonkeyPatch) -> None:
    """With ``sys.stdin``/``sys.stdout`` replaced by files that are not descriptors 0 and 1, the streams
    read and write those, as the SDK's do: undecodable bytes become a parse error in the stream, and
    the next line is still read."""
    import sys
    from io import TextIOWrapper

    from oxmcp.server.stdio import stdio_server
    from oxmcp.shared.message import SessionMessage

    raw = io.BytesIO(b'\xff\xfe\n{"jsonrpc":"2.0","id":1,"method":"ping"}\n')
    monkeypatch.setattr(sys, "stdin", TextIOWrapper(raw, encoding="utf-8"))
    monkeypatch.setattr(sys, "stdout", TextIOWrapper(io.BytesIO(), encoding="utf-8"))

    async def main() -> tuple[Any, Any]:
        async with stdio_server() as (read, write):
            await write.aclose()
            async with read:
                return await read.receive(), await read.receive()

    first, second = asyncio.run(asyncio.wait_for(main(), 10))
    assert isinstance(first, Exception)
    assert isinstance(second, SessionMessage) and _body(second) == {"jsonrpc": "2.0", "id": 1, "method": "ping"}


def test_a_call_to_an_unlisted_tool_is_unchecked_and_logged(caplog: pytest.LogCaptureFixture) -> None:
    """mcp 1.x checks arguments only against a tool its list handler listed; for any other name the
    handler runs unchecked and a warning says so."""
    import logging

    from oxmcp.shared.memory import create_connected_server_and_client_session

    async def main() -> Any:
        async with create_connected_server_and_client_session(_server()) as client:
            return await client.call_tool("echo", {"t": 5}), await client.call_tool("other", {"t": "q"})

    with caplog.at_level(logging.WARNING):
        listed, unlisted = asyncio.run(asyncio.wait_for(main(), 20))
    assert listed.isError and listed.content[0].text == "Input validation error: 5 is not of type 'string'"
    assert not unlisted.isError and unlisted.content[0].text == "qq"  # the handler ran
    assert any("Tool 'other' not listed, no validation will be performed" in r.getMessage() for r in caplog.records)
