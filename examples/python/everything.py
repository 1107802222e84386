"""The conformance "everything" server in Python: every fixture the official conformance suite's scenarios need (tests/conformance/README.md).

    python examples/python/everything.py                  # stdio
    python examples/python/everything.py --http 127.0.0.1:8000   # Streamable HTTP at /mcp
"""

from __future__ import annotations

import asyncio
import base64
import io
import json
import os
import wave
from typing import Any

from oxmcp import Audio, Context, EmbeddedResource, Image, McpError, Message, Server, ToolError

# A 1x1 PNG and a 10 ms silent WAV, made here so the example needs no files.
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")


def _wav() -> bytes:
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(8000)
        w.writeframes(b"\x00\x00" * 80)
    return buf.getvalue()


WAV = _wav()

# Deployment settings from the environment, as the Rust everything server reads them
# (docs/SCALE-OUT.md): the MRTR key every replica shares, Redis, and the Host names a proxy forwards.
# Named tokens (OXMCP_TOKENS: the core's JSON or "name=token,...") and the per-caller listen cap
# let the hardening tests replay the Rust server's allow-list checks against this one; the task lease
# and the Redis timeout let the scale-out fault tests use short ones; OXMCP_SSE serves the HTTP+SSE
# transport beside Streamable HTTP, and OXMCP_KEEP_ALIVE_MS shortens its streams' leases in Redis;
# OXMCP_TOOL_SEARCH_METHOD turns on the experimental tool-search method for its transcript
# (tests/transcripts/tool-search.json).
# Without OXMCP_STATE_KEY the core makes a random per-process key (and says so in a warning):
# a fixed fallback in a published example would be a key everyone knows.
_ENV_OPTIONS = {"OXMCP_STATE_KEY": "state_key", "OXMCP_REDIS_URL": "redis_url", "OXMCP_ALLOWED_HOSTS": "allowed_hosts",
                "OXMCP_TOKENS": "tokens", "OXMCP_MAX_LISTENERS_PER_CALLER": "max_listeners_per_caller",
                "OXMCP_TASK_LEASE_MS": "task_lease_ms", "OXMCP_REDIS_TIMEOUT_MS": "redis_timeout_ms",
                "OXMCP_REDIS_TLS_CA": "redis_tls_ca", "OXMCP_SSE": "sse", "OXMCP_KEEP_ALIVE_MS": "keep_alive_ms",
                "OXMCP_TOOL_SEARCH_METHOD": "tool_search_method"}
_env: dict[str, Any] = {opt: os.environ[var].strip() for var, opt in _ENV_OPTIONS.items()
                        if os.environ.get(var, "").strip()}
if "allowed_hosts" in _env:
    _env["allowed_hosts"] = [h.strip() for h in _env["allowed_hosts"].split(",") if h.strip()]
if _env.get("tokens", "").startswith("{"):
    _env["tokens"] = json.loads(_env["tokens"])
if "sse" in _env:
    _env["sse"] = _env["sse"] in ("1", "true")
for _opt in ("max_listeners_per_caller", "task_lease_ms", "redis_timeout_ms", "keep_alive_ms"):
    if _opt in _env:
        _env[_opt] = int(_env[_opt])
if "tool_search_method" in _env:
    _env["tool_search_method"] = _env["tool_search_method"] == "true"

server = Server("oxmcp-python-everything", version="0.1.0",
                instructions="Conformance fixtures for the oxmcp Python binding.",
                **_env)


# -- tools: content kinds --------------------------------------------------------------------------
@server.tool
def test_simple_text() -> str:
    """Returns a simple text response."""
    return "This is a simple text response for testing."


@server.tool
def test_image_content() -> Image:
    """Returns a PNG image."""
    return Image(data=PNG, format="png")


@server.tool
def test_audio_content() -> Audio:
    """Returns a WAV clip."""
    return Audio(data=WAV, mime_type="audio/wav")


@server.tool
def test_embedded_resource() -> EmbeddedResource:
    """Returns an embedded text resource."""
    return EmbeddedResource("test://embedded-resource", text="This is an embedded resource content.",
                            mime_type="text/plain")


@server.tool
def test_multiple_content_types() -> list[Any]:
    """Returns text, an image and an embedded resource."""
    return ["Multiple content types test:", Image(data=PNG, format="png"),
            EmbeddedResource("test://mixed-content-resource", text=json.dumps({"test": "data", "value": 123}),
                             mime_type="application/json")]


@server.tool
def test_error_handling() -> str:
    """Always fails with a tool error."""
    raise ToolError("This tool intentionally returns an error for testing")


# -- tools: notifications ----------------------------------------------------------------------------
@server.tool
async def test_tool_with_logging(ctx: Context) -> str:
    """Sends three log messages while running."""
    for text in ("Tool execution started", "Tool processing data", "Tool execution completed"):
        await ctx.log("info", text)
        await asyncio.sleep(0.05)
    return "Tool with logging executed successfully"


@server.tool
async def test_logging_tool(ctx: Context) -> str:
    """Logs at info (only sent when the request asked for a log level)."""
    await ctx.log("info", "logging tool ran")
    return "logged"


@server.tool
async def test_tool_with_progress(ctx: Context) -> str:
    """Reports progress 0, 50, 100 of 100."""
    for p in (0, 50, 100):
        await ctx.progress(p, 100, f"step {p}")
        await asyncio.sleep(0.05)
    return "Tool with progress completed"


# -- tools: client input (MRTR on modern requests, real requests on legacy sessions) ---------------------
@server.tool
async def test_sampling(prompt: str, ctx: Context) -> str:
    """Asks the client's model."""
    result = await ctx.sample("llm", prompt, max_tokens=100)
    content = result.get("content", {})
    text = content.get("text", "") if isinstance(content, dict) else str(content)
    return f"LLM response: {text}"


@server.tool
async def test_elicitation(message: str, ctx: Context) -> str:
    """Asks the user for input."""
    answer = await ctx.elicit("user_input", message, {
        "type": "object",
        "properties": {"username": {"type": "string", "description": "User's response"},
                       "email": {"type": "string", "description": "User's email address"}},
        "required": ["username", "email"]})
    return f"User response: action={answer.action}, content={json.dumps(answer.content)}"


@server.tool
async def test_elicitation_sep1034_defaults(ctx: Context) -> str:
    """Elicitation whose schema has defaults for every primitive type."""
    answer = await ctx.elicit("defaults", "Please review and update the form fields with defaults", {
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "User name", "default": "John Doe"},
            "age": {"type": "integer", "description": "User age", "default": 30},
            "score": {"type": "number", "description": "User score", "default": 95.5},
            "status": {"type": "string", "description": "User status", "enum": ["active", "inactive", "pending"],
                       "default": "active"},
            "verified": {"type": "boolean", "description": "Verification status", "default": True},
        }})
    return f"Elicitation completed: action={answer.action}, content={json.dumps(answer.content)}"


@server.tool
async def test_elicitation_sep1330_enums(ctx: Context) -> str:
    """Elicitation with every enum style."""
    answer = await ctx.elicit("enums", "Please select options from the enum fields", {
        "type": "object",
        "properties": {
            "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
            "titledSingle": {"type": "string", "oneOf": [{"const": "value1", "title": "First Option"},
                                                         {"const": "value2", "title": "Second Option"},
                                                         {"const": "value3", "title": "Third Option"}]},
            "legacyEnum": {"type": "string", "enum": ["opt1", "opt2", "opt3"],
                           "enumNames": ["Option One", "Option Two", "Option Three"]},
            "untitledMulti": {"type": "array", "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
            "titledMulti": {"type": "array", "items": {"anyOf": [{"const": "value1", "title": "First Choice"},
                                                                 {"const": "value2", "title": "Second Choice"},
                                                                 {"const": "value3", "title": "Third Choice"}]}},
        }})
    return f"Elicitation completed: action={answer.action}, content={json.dumps(answer.content)}"


@server.tool
async def test_missing_capability(ctx: Context) -> str:
    """Needs sampling: without the capability the core answers -32021."""
    await ctx.sample("needs_sampling", "hello", max_tokens=10)
    return "sampled"


@server.tool
async def test_streaming_elicitation(ctx: Context) -> str:
    """Elicits while streaming (modern: input_required, never a server-to-client request)."""
    await ctx.log("info", "about to ask")
    answer = await ctx.elicit("confirm", "Continue?", {"type": "object", "properties": {"ok": {"type": "boolean"}}})
    return f"action={answer.action}"


NAME_SCHEMA = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}


@server.tool
async def test_input_required_result_elicitation(ctx: Context) -> str:
    """MRTR: one elicitation (key user_name)."""
    answer = await ctx.elicit("user_name", "What is your name?", NAME_SCHEMA)
    return f"Hello, {(answer.content or {}).get('name', 'stranger')}!"


@server.tool
async def test_input_required_result_sampling(ctx: Context) -> str:
    """MRTR: one sampling request."""
    result = await ctx.sample("capital_question", "What is the capital of France?", max_tokens=50)
    return f"Model said: {json.dumps(result.get('content'))}"


@server.tool
async def test_input_required_result_list_roots(ctx: Context) -> str:
    """MRTR: one roots request."""
    roots = await ctx.roots("client_roots")
    return f"Roots: {', '.join(r.get('uri', '') for r in roots) or '(none)'}"


@server.tool
async def test_input_required_result_request_state(ctx: Context) -> str:
    """MRTR with server state carried in requestState."""
    if ctx.request_state is None:
        ctx.request_state = {"step": "asked"}
    answer = await ctx.elicit("user_name", "What is your name?", NAME_SCHEMA)
    return f"state-ok: {ctx.request_state}, name={(answer.content or {}).get('name')}"


@server.tool
async def test_input_required_result_multiple_inputs(ctx: Context) -> str:
    """MRTR: elicitation, sampling and roots in one round."""
    answers = await ctx.inputs({
        "user_name": ("elicit", {"mode": "form", "message": "What is your name?", "requestedSchema": NAME_SCHEMA}),
        "capital_question": ("sample", {"messages": [{"role": "user", "content": {"type": "text",
                                                                                   "text": "Capital of France?"}}],
                                        "maxTokens": 50}),
        "client_roots": ("roots", None),
    })
    return f"All inputs received: {sorted(answers)}"


@server.tool
async def test_input_required_result_multi_round(ctx: Context) -> str:
    """MRTR over two rounds: the second question depends on the first answer."""
    first = await ctx.elicit("round1", "First question: your name?", NAME_SCHEMA)
    name = (first.content or {}).get("name", "")
    second = await ctx.elicit("round2", f"Thanks {name}. Second question: your name again?", NAME_SCHEMA)
    return f"Done after two rounds: {name}, {(second.content or {}).get('name', '')}"


@server.tool
async def test_input_required_result_tampered_state(ctx: Context) -> str:
    """MRTR with integrity-protected state: a tampered requestState is rejected by the core."""
    ctx.request_state = {"issued": True}
    answer = await ctx.elicit("user_name", "What is your name?", NAME_SCHEMA)
    return f"Verified state, name={(answer.content or {}).get('name')}"


@server.tool
async def test_input_required_result_capabilities(ctx: Context) -> str:
    """MRTR that only asks for what the client declared."""
    asks: dict[str, tuple[str, Any]] = {}
    if ctx.supports("elicitation"):
        asks["user_name"] = ("elicit", {"mode": "form", "message": "Name?", "requestedSchema": NAME_SCHEMA})
    if ctx.supports("sampling"):
        asks["capital_question"] = ("sample", {"messages": [{"role": "user", "content": {"type": "text",
                                                                                          "text": "Capital of France?"}}],
                                               "maxTokens": 50})
    if ctx.supports("roots"):
        asks["client_roots"] = ("roots", None)
    if not asks:
        return "No client capabilities to use"
    answers = await ctx.inputs(asks)
    return f"Used: {sorted(answers)}"


# -- tools: list changes ---------------------------------------------------------------------------------
def _temporary_tool() -> str:
    """Added and removed by test_trigger_tool_change."""
    return "temporary"


def _temporary_prompt() -> str:
    """Added and removed by test_trigger_prompt_change."""
    return "temporary"


@server.tool
def test_trigger_tool_change() -> str:
    """Adds then removes a tool (listeners get notifications/tools/list_changed)."""
    server.add_tool(_temporary_tool, name="temporary_tool")
    server.remove_tool("temporary_tool")
    return "tools changed"


@server.tool
def test_trigger_resource_update() -> str:
    """Marks test://watched-resource as updated (subscribers get notifications/resources/updated)."""
    server.native.notify_resource_updated("test://watched-resource")
    return "resource updated"


@server.tool
def test_trigger_prompt_change() -> str:
    """Adds then removes a prompt (listeners get notifications/prompts/list_changed)."""
    server.add_prompt(_temporary_prompt, name="temporary_prompt")
    server.remove_prompt("temporary_prompt")
    return "prompts changed"


# The schema the conformance suite's json-schema-2020-12 scenario expects back verbatim.
JSON_SCHEMA_2020_12 = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {"address": {"$anchor": "addressDef", "type": "object",
                          "properties": {"street": {"type": "string"}, "city": {"type": "string"}}}},
    "properties": {
        "name": {"type": "string"},
        "address": {"$ref": "#/$defs/address"},
        "contactMethod": {"type": "string", "enum": ["phone", "email"]},
        "phone": {"type": "string"},
        "email": {"type": "string"},
    },
    "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
    "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
    "then": {"required": ["phone"]},
    "else": {"required": ["email"]},
    "additionalProperties": False,
}

CUSTOM_HEADER_SCHEMA = {
    "type": "object",
    "properties": {"region": {"type": "string", "x-mcp-header": "Region"}, "note": {"type": "string"}},
    "required": ["region"],
}


@server.tool(input_schema=CUSTOM_HEADER_SCHEMA)
def test_custom_header(region: str, note: str = "") -> str:
    """Mirrors its region argument into the Mcp-Param-Region header (x-mcp-header)."""
    return f"region: {region}"


@server.tool(input_schema=JSON_SCHEMA_2020_12)
def json_schema_2020_12_tool(**arguments: Any) -> str:
    """Tool whose input schema uses JSON Schema 2020-12 keywords (served verbatim)."""
    return f"Received: {json.dumps(arguments, sort_keys=True)}"


# -- resources ---------------------------------------------------------------------------------------------
@server.resource("test://static-text", mime_type="text/plain")
def static_text() -> str:
    """A static text resource."""
    return "This is the content of the static text resource."


@server.resource("test://static-binary", mime_type="image/png")
def static_binary() -> bytes:
    """A static binary resource (PNG)."""
    return PNG


@server.resource("test://template/{id}/data", mime_type="application/json",
                 completions={"id": ["123", "456", "789"]})
def template_data(id: str) -> dict[str, Any]:
    """Data for one id."""
    return {"id": id, "templateTest": True, "data": f"Data for ID: {id}"}


@server.resource("test://watched-resource", mime_type="text/plain")
def watched() -> str:
    """A resource clients can subscribe to."""
    return "Watched resource content"


# -- prompts -----------------------------------------------------------------------------------------------
@server.prompt
def test_simple_prompt() -> str:
    """A simple prompt without arguments."""
    return "This is a simple prompt for testing."


@server.prompt(completions={"arg1": ["test", "testing", "tested", "value1", "value2"]})
def test_prompt_with_arguments(arg1: str, arg2: str) -> str:
    """A prompt with two required arguments.

    Args:
        arg1: First test argument
        arg2: Second test argument
    """
    return f"Prompt with arguments: arg1='{arg1}', arg2='{arg2}'"


@server.prompt
def test_prompt_with_embedded_resource(resourceUri: str) -> list[Message]:
    """A prompt that embeds a resource.

    Args:
        resourceUri: URI of the resource to embed
    """
    return [Message(EmbeddedResource(resourceUri, text="Embedded resource content for testing.", mime_type="text/plain")),
            Message("Please process the embedded resource above.")]


@server.prompt
def test_prompt_with_image() -> list[Message]:
    """A prompt that includes an image."""
    return [Message(Image(data=PNG, format="png")), Message("Please analyze the image above.")]


@server.prompt
async def test_input_required_result_prompt(ctx: Context) -> str:
    """A prompt that needs user input first (MRTR on prompts/get)."""
    answer = await ctx.elicit("topic", "Which topic?", {"type": "object", "properties": {"topic": {"type": "string"}},
                                                        "required": ["topic"]})
    return f"Write about {(answer.content or {}).get('topic', 'anything')}."


# -- tools: the Tasks extension (the conformance suite's tasks-* fixtures) ------------------------------
CONFIRM_SCHEMA = {"type": "object", "properties": {"confirm": {"type": "boolean"}}, "required": ["confirm"]}


@server.tool
def greet(name: str) -> str:
    """Greets by name (never a task)."""
    return f"Hello, {name}!"


@server.tool(task=True)
async def slow_compute(ctx: Context, seconds: float = 1.0, label: str = "job") -> str:
    """Sleeps `seconds`, then answers (a task when the client supports them)."""
    steps = max(1, int(seconds * 4))
    for i in range(steps):
        await ctx.progress(i, steps)
        await asyncio.sleep(seconds / steps)
    return f"Computed {label} in {seconds} s"


@server.tool(task_support="required")
async def failing_job() -> str:
    """Fails with a tool error after about a second (task only)."""
    await asyncio.sleep(0.8)
    raise ToolError("The job failed: the input was rejected")


@server.tool(task=True)
async def protocol_error_job() -> str:
    """Fails with a JSON-RPC error: the task ends failed."""
    await asyncio.sleep(0.2)
    raise McpError(-32603, "protocol_error_job: deliberate failure")


@server.tool(task=True)
async def confirm_delete(ctx: Context, filename: str = "file.txt") -> str:
    """Asks the user to confirm, from inside a task."""
    answer = await ctx.elicit("confirm", f"Delete {filename}?", CONFIRM_SCHEMA)
    yes = answer.action == "accept" and (answer.content or {}).get("confirm") is True
    return f"Deleted {filename}" if yes else f"Kept {filename}"


@server.tool(task=True)
async def multi_input(ctx: Context) -> str:
    """Asks two questions at once, from inside a task."""
    answers = await ctx.inputs({"name": ("elicit", {"message": "Your name?", "requestedSchema": NAME_SCHEMA}),
                                "confirm": ("elicit", {"message": "Proceed?", "requestedSchema": CONFIRM_SCHEMA})})
    who = (answers["name"].get("content") or {}).get("name", "?")
    return f"Got {who}, confirmed: {answers['confirm'].get('action') == 'accept'}"


@server.tool(task_support="required", task_after=0.3)
async def test_tool_with_task(ctx: Context) -> str:
    """Asks for a name by MRTR, then becomes a task for the slow part."""
    answer = await ctx.elicit("user_name", "What is your name?", NAME_SCHEMA)
    await asyncio.sleep(1.2)
    return f"Hello, {(answer.content or {}).get('name', 'stranger')}! (finished as a task)"


# -- skills (the Skills extension) -------------------------------------------------------------------
# Every skill below examples/skills (OXMCP_SKILLS_DIR moves it), one written per request, and one
# served unlisted (reached by its URI only).
SKILLS_DIR = os.environ.get("OXMCP_SKILLS_DIR") or os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                                  "..", "skills")
server.add_skills_dir(SKILLS_DIR)
server.add_skills_dir(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "unlisted-skills"), listed=False)
CLOCK = "Tell the server's time. Use when asked what time it is on the server."


@server.dynamic_skill("live/clock", description=CLOCK, mime_type="text/markdown")
def clock_skill(file: str) -> str:
    """Tell the server's time."""
    if file != "SKILL.md":
        raise McpError(-32602, f"no such file: {file}")
    import time
    return (f"---\nname: clock\ndescription: {CLOCK}\n---\n"
            f"The server's clock reads {int(time.time())} seconds since the Unix epoch.\n")


if __name__ == "__main__":
    server.main()
