"""Argument conversion and return-value normalisation, calling entries directly (no native module)."""

from __future__ import annotations

import asyncio
import base64
import dataclasses
import enum
import logging
from typing import Any

import pytest
from pydantic import BaseModel

from oxmcp import (
    Audio,
    Context,
    EmbeddedResource,
    File,
    Image,
    McpError,
    Message,
    ResourceContents,
    ResourceLink,
    Server,
    ToolError,
    ToolResult,
)

PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")


class Color(enum.Enum):
    RED = "red"


class Pt(BaseModel):
    x: int
    y: int


@dataclasses.dataclass
class DPt:
    x: int


def call(fn: Any, args: dict[str, Any] | None = None, **kw: Any) -> tuple[str, Any]:
    s = Server("t", **kw.pop("server_kw", {}))
    entry = s.add_tool(fn, **kw)
    if entry.is_async:
        return asyncio.run(entry.call_async(args or {}))
    return entry.call_sync(args or {})


def test_arguments_are_converted_into_annotated_types() -> None:
    seen: dict[str, Any] = {}

    def f(p: Pt, d: DPt, c: Color, t: tuple[int, int], ctx: Context) -> str:
        seen.update(p=p, d=d, c=c, t=t, ctx=ctx)
        return "ok"

    assert call(f, {"p": {"x": 1, "y": 2}, "d": {"x": 3}, "c": "red", "t": [1, 2]}) == (
        "ok", {"content": [{"type": "text", "text": "ok"}]})
    assert seen["p"] == Pt(x=1, y=2) and seen["d"] == DPt(3) and seen["c"] is Color.RED and seen["t"] == (1, 2)
    assert isinstance(seen["ctx"], Context) and seen["ctx"].request_id is None


def test_scalars_and_wrapped_structured_output() -> None:
    def n() -> int:
        return 7

    assert call(n) == ("ok", {"content": [{"type": "text", "text": "7"}], "structuredContent": {"result": 7}})


def test_model_and_dataclass_returns_are_structured() -> None:
    def m() -> Pt:
        return Pt(x=1, y=2)

    def d() -> DPt:
        return DPt(5)

    assert call(m) == ("ok", {"content": [{"type": "text", "text": '{"x":1,"y":2}'}], "structuredContent": {"x": 1, "y": 2}})
    assert call(d)[1]["structuredContent"] == {"x": 5}


def test_dict_without_schema_is_json_text() -> None:
    def f():
        return {"a": [1, 2]}

    assert call(f) == ("ok", {"content": [{"type": "text", "text": '{"a":[1,2]}'}]})


def test_content_helpers() -> None:
    def img() -> Image:
        return Image(data=PNG, format="png")

    def aud() -> Audio:
        return Audio(data=b"RIFF", mime_type="audio/wav")

    def mixed() -> list[Any]:
        return ["hello", Image(data=PNG), EmbeddedResource("test://r", text="{}", mime_type="application/json"),
                ResourceLink("test://x", "x", mime_type="text/plain")]

    assert call(img)[1] == {"content": [{"type": "image", "data": base64.b64encode(PNG).decode(), "mimeType": "image/png"}]}
    assert call(aud)[1]["content"][0] == {"type": "audio", "data": base64.b64encode(b"RIFF").decode(), "mimeType": "audio/wav"}
    content = call(mixed, structured_output=False)[1]["content"]
    assert [c["type"] for c in content] == ["text", "image", "resource", "resource_link"]
    assert content[2]["resource"] == {"uri": "test://r", "mimeType": "application/json", "text": "{}"}
    assert content[3] == {"type": "resource_link", "uri": "test://x", "name": "x", "mimeType": "text/plain"}


def test_file_helper(tmp_path: Any) -> None:
    p = tmp_path / "notes.txt"
    p.write_text("hi")

    def f() -> File:
        return File(p)

    block = call(f)[1]["content"][0]
    assert block["type"] == "resource"
    assert block["resource"] == {"uri": p.resolve().as_uri(), "mimeType": "text/plain", "text": "hi"}


def test_full_tool_result() -> None:
    def f() -> ToolResult:
        return ToolResult(["a", Image(data=PNG)], {"k": 1}, meta={"com.example/x": True})

    out = call(f)[1]
    assert out["structuredContent"] == {"k": 1} and out["_meta"] == {"com.example/x": True}
    assert [c["type"] for c in out["content"]] == ["text", "image"]


def test_tool_error_and_other_exceptions(caplog: pytest.LogCaptureFixture) -> None:
    def bad() -> str:
        raise ToolError("date must be in the future")

    def boom() -> str:
        raise RuntimeError("secret internal detail")

    assert call(bad) == ("ok", {"content": [{"type": "text", "text": "date must be in the future"}], "isError": True})
    # An unexpected exception: the core chooses the text (test_native.py checks it end to end);
    # the entry hands over only the detail, and only in debug mode.
    with caplog.at_level(logging.ERROR, logger="oxmcp"):
        assert call(boom) == ("internal", None)
    assert "secret internal detail" in caplog.text  # the traceback goes to the log
    kind, detail = call(boom, server_kw={"debug": True})
    assert kind == "internal" and "secret internal detail" in detail and "Traceback" in detail


def test_mcp_error_becomes_jsonrpc_error() -> None:
    def f() -> str:
        raise McpError(-32602, "nope", {"why": 1})

    assert call(f) == ("mcp_error", (-32602, "nope", {"why": 1}))


def test_async_tools() -> None:
    async def f(a: int) -> int:
        await asyncio.sleep(0)
        return a * 2

    async def g() -> str:
        raise ToolError("async failure")

    assert call(f, {"a": 4})[1]["structuredContent"] == {"result": 8}
    assert call(g)[1]["isError"] is True


def test_invalid_arguments_in_python_go_to_the_core_as_violations() -> None:
    """pydantic's refusal is handed to the core as `{path, message}`; the core renders the text
    (tests/python/test_invalid_arguments.py checks it over HTTP)."""
    def f(a: int) -> int:
        return a

    kind, violations = call(f, {"a": "not a number"})
    assert kind == "invalid_arguments", (kind, violations)
    assert [v["path"] for v in violations] == [["a"]]
    assert "integer" in violations[0]["message"]


def test_resource_normalisation() -> None:
    s = Server("t")

    @s.resource("user://{id}/profile")
    def profile(id: int) -> dict[str, Any]:
        return {"id": id}

    @s.resource("bin://x")
    def blob() -> bytes:
        return b"\x00\x01"

    @s.resource("multi://x", mime_type="text/markdown")
    def multi() -> list[ResourceContents]:
        return [ResourceContents(text="# a"), ResourceContents(text="# b", uri="multi://x/b")]

    entries = {e.uri: e for e in s._resources.values()}
    assert entries["user://{id}/profile"].call_sync({"uri": "user://42/profile", "vars": {"id": "42"}}) == (
        "ok", [{"uri": "user://42/profile", "mimeType": "application/json", "text": '{"id":42}'}])
    assert entries["bin://x"].call_sync({"uri": "bin://x", "vars": {}}) == (
        "ok", [{"uri": "bin://x", "mimeType": "application/octet-stream", "blob": "AAE="}])
    assert entries["multi://x"].call_sync({"uri": "multi://x"})[1] == [
        {"uri": "multi://x", "mimeType": "text/markdown", "text": "# a"},
        {"uri": "multi://x/b", "mimeType": "text/markdown", "text": "# b"}]


def test_prompt_normalisation() -> None:
    s = Server("t")

    @s.prompt
    def one(topic: str) -> str:
        """One message."""
        return f"Tell me about {topic}"

    @s.prompt
    def convo(n: int) -> list[Message]:
        return [Message("hi"), Message(f"n={n + 1}", role="assistant")]

    assert s._prompts["one"].call_sync({"topic": "owls"}) == ("ok", {
        "messages": [{"role": "user", "content": {"type": "text", "text": "Tell me about owls"}}],
        "description": "One message."})
    assert s._prompts["convo"].call_sync({"n": "2"})[1]["messages"][1] == {
        "role": "assistant", "content": {"type": "text", "text": "n=3"}}


def test_completions() -> None:
    s = Server("t")

    @s.prompt(completions={"language": ["python", "perl", "rust"]})
    def review(code: str, language: str) -> str:
        return code

    @s.completion(prompt="review", argument="code")
    async def code_values(value: str, context: dict[str, str]) -> list[str]:
        return [value + "!", context.get("language", "")]

    router = s._completions[("ref/prompt", "review")]
    # A list goes to the core, which matches it (tests/python/test_completion_sources.py); a
    # function is called here.
    assert router.values == {"language": ["python", "perl", "rust"]}
    assert asyncio.run(router.call_async({"argument": "code", "value": "x", "context": {"language": "go"}})) == (
        "ok", {"values": ["x!", "go"]})
    assert router.call_sync({"argument": "unknown", "value": ""}) == ("ok", {"values": []})


def test_a_list_with_no_output_schema_goes_to_the_core_as_json() -> None:
    """Which lists become content is the core's rule (tests/python/test_core_rules.py checks the
    bytes over HTTP, the same as Node's); the binding only converts."""
    from oxmcp._results import CoreList, normalize_tool_result

    out = normalize_tool_result([1, {"k": "v"}, "x"], output_schema=None, wrap=False)
    assert isinstance(out, CoreList) and list(out) == [1, {"k": "v"}, "x"]

    def f():  # type: ignore[no-untyped-def]  (no annotation: no outputSchema)
        return ["a", b"\x00"]

    kind, items = call(f)
    assert kind == "list" and items[0] == "a" and len(items) == 2, (kind, items)


@pytest.mark.parametrize("ret, values", [
    (int, [0, 3, -7, 2**70]),
    (bool, [True, False]),
    (str, ["", "x", "é \"q\" \n"]),
])
def test_plain_returns_built_directly_match_the_normalisation(ret: Any, values: list[Any]) -> None:
    """The fast path of ``ToolEntry._finish`` gives what ``normalize_tool_result`` gives."""
    from oxmcp._results import normalize_tool_result

    s = Server("t")
    s._str_returns_are_data = ret is str  # FastMCP's rule: a `-> str` is data

    def fn(v: Any) -> Any:
        return v
    fn.__annotations__ = {"v": ret, "return": ret}
    entry = s.add_tool(fn)
    info = entry.info
    assert entry._fast_type is ret
    for v in values:
        fast = entry.call_sync({"v": v})
        slow = normalize_tool_result(v, output_schema=info.output_schema, wrap=info.wrap_result,
                                     adapter=info.output_adapter)
        assert fast == ("ok", slow), v
    # another type than the annotation (a bool from `-> int`) takes the general path, unchanged
    if ret is int:
        def g(v: int) -> int:
            return True  # type: ignore[return-value]
        g.__annotations__ = {"v": int, "return": int}
        other = s.add_tool(g)
        assert other.call_sync({"v": 1}) == ("ok", normalize_tool_result(
            True, output_schema=info.output_schema, wrap=True, adapter=info.output_adapter))
