"""FastMCP's logging middleware logs each message as FastMCP builds it: a call's, a read's and a
prompt's params as mcp 2.x's models (``CallToolRequestParams``, ...), dumped with their fields in
the SDK's order, so the payload, its length and its token estimate are FastMCP's. And
``create_proxy`` of a server object serves that server's templates and reads. The same script, a
FastMCP server and FastMCP's client in one process, runs on the real FastMCP (the mcp 2.x peer venv
of scripts/setup.sh) and on oxmcp under the import hook: both must print the same."""

from __future__ import annotations

import json
import os
import subprocess
import textwrap
from pathlib import Path

import oxmcp

ROOT = Path(__file__).resolve().parents[2]
PEER_V2 = ROOT / ".cache" / "peers-py" / "v2" / "bin" / "python"  # mcp 2.3.0, fastmcp 4.2.3
ON_OXMCP = ("import runpy, sys; from oxmcp._dropin import install; install(); "
            "runpy.run_path(sys.argv[1], run_name='__main__')")

SCRIPT = """\
    import asyncio
    import json
    import logging

    import mcp_types
    import pydantic_core
    from fastmcp import Client, FastMCP
    from fastmcp.server import create_proxy
    from fastmcp.server.middleware.logging import LoggingMiddleware, StructuredLoggingMiddleware

    records = []


    class Keep(logging.Handler):
        def emit(self, record):
            records.append(record.getMessage())


    child = FastMCP("child")


    @child.tool
    def echo(text: str) -> str:
        return text


    @child.resource("items://{category}{?tags}")
    def items(category: str, tags: str = "") -> str:
        return f"{category}:{tags}"


    @child.prompt
    def review(code: str) -> str:
        return f"review {code}"


    async def main():
        for name in ("fastmcp.middleware.logging", "fastmcp.middleware.structured_logging"):
            logging.getLogger(name).addHandler(Keep())
            logging.getLogger(name).setLevel(logging.INFO)
        child.add_middleware(LoggingMiddleware(include_payloads=True, include_payload_length=True,
                                               methods=["tools/call", "resources/read", "prompts/get"]))
        child.add_middleware(StructuredLoggingMiddleware(include_payloads=True, estimate_payload_tokens=True,
                                                         methods=["tools/call"]))
        out = {}
        async with Client(child) as client:
            await client.call_tool("echo", {"text": "hi"})
            await client.read_resource("items://books?tags=a")
            await client.get_prompt("review", {"code": "x"})
        out["logged"] = [line for line in records if "_start" in line]
        request = mcp_types.CallToolRequest(params=mcp_types.CallToolRequestParams(name="echo", arguments={"text": "hi"}))
        out["dump"] = pydantic_core.to_json(request).decode()
        proxy = create_proxy(child)
        async with Client(proxy) as client:
            out["templates"] = [t.uri_template for t in await client.list_resource_templates()]
            out["read"] = [c.text for c in await client.read_resource("items://books?tags=a,b")]
            out["tools"] = [t.name for t in await client.list_tools()]
        print(json.dumps(out, sort_keys=True))


    asyncio.run(main())
"""


def _run(script: Path, *hook: str) -> dict[str, object]:
    env = {**os.environ, "PYTHONPATH": str(Path(oxmcp.__file__).resolve().parents[1]), "PYTHONUNBUFFERED": "1"}
    env.pop("VIRTUAL_ENV", None)
    run = subprocess.run([str(PEER_V2), *hook, str(script)], env=env, capture_output=True, text=True, timeout=90,
                         check=False)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def test_logged_payloads_and_a_proxy_are_fastmcps(tmp_path: Path) -> None:
    assert PEER_V2.exists(), f"{PEER_V2} missing: run scripts/setup.sh"
    script = tmp_path / "fastmcp_logging.py"
    script.write_text(textwrap.dedent(SCRIPT))
    original = _run(script)
    ported = _run(script, "-c", ON_OXMCP)
    assert ported == original
    call = '{"_meta":null,"inputResponses":null,"requestState":null,"name":"echo","arguments":{"text":"hi"},"task":null}'
    assert original["logged"][0] == (  # type: ignore[index]
        f"event=request_start method=tools/call source=client payload_length={len(call)} payload={call} "
        "payload_type=CallToolRequestParams")
    assert original["dump"] == '{"method":"tools/call","params":' + call + "}"
    assert original["templates"] == ["items://{category}{?tags}"] and original["read"] == ["books:a,b"]
