"""Run one parity corpus server and drive it with the official `mcp` client; print normalised results.

    python tests/parity/py_runner.py tests/parity/<name> --python PEER_PY --transport stdio|http \
        --era legacy|modern [--oxmcp]

Without ``--oxmcp`` the server file runs as written, on the interpreter given (the original framework's
venv). With ``--oxmcp`` the file is copied to a temporary directory with only its import lines changed
(``fastmcp`` / ``mcp`` → ``oxmcp``, see :func:`rewrite_imports`) and runs on this interpreter, where
oxmcp is installed. The client is always this interpreter's `mcp` package (2.x), which speaks both
eras: ``mode="legacy"`` (an initialize session) or ``mode="2026-07-28"`` (stateless requests).

The output is one JSON object per scenario step, normalised so that two frameworks that behave the
same print the same thing (ids, timings, server names and schema titles are left out).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path
from typing import Any

# free_port / wait_listening: the one copy, shared with the Python tests.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))
from procs import free_port, wait_listening  # noqa: E402

MODERN = "2026-07-28"

# Module renames, longest first: what "changing the import" means for each framework.
_RENAMES = [
    # The top-level package of a dotted module name: fastmcp.x → oxmcp.x, mcp.server.fastmcp → oxmcp.server.fastmcp.
    (r"(?<![.\w])(fastmcp|mcp)\b", "oxmcp"),
]
_IMPORT_LINE = re.compile(r"^(\s*)(from\s+\S+\s+import\b.*|import\s+.+)$")


def rewrite_imports(source: str) -> str:
    """Change the framework's package name to ``oxmcp`` on import lines, and nowhere else."""
    out = []
    for line in source.splitlines(keepends=True):
        m = _IMPORT_LINE.match(line)
        if m:
            stmt = m.group(2)
            for pat, rep in _RENAMES:
                stmt = re.sub(pat, rep, stmt)
            line = m.group(1) + stmt + ("\n" if line.endswith("\n") else "")
        out.append(line)
    return "".join(out)


# ---- normalisation ------------------------------------------------------------------------------

def _dump(model: Any) -> Any:
    if hasattr(model, "model_dump"):
        return model.model_dump(by_alias=True, mode="json", exclude_none=True)
    return model


def _schema_shape(schema: Any) -> Any:
    """A schema without titles/descriptions/$schema noise: what a client actually validates against."""
    if isinstance(schema, dict):
        return {k: _schema_shape(v) for k, v in sorted(schema.items())
                if k not in ("title", "$schema", "description", "x-fastmcp-wrap-result", "x-oxmcp-wrap-result",
                             "additionalProperties") and not k.startswith("x-")}
    if isinstance(schema, list):
        return [_schema_shape(v) for v in schema]
    return schema


def _block(b: dict[str, Any]) -> dict[str, Any]:
    b = dict(b)
    b.pop("_meta", None)
    b.pop("annotations", None)
    if b.get("type") == "text":
        text = b["text"]
        try:  # JSON text compares by value (key order and spacing differ between serialisers)
            b["text"] = {"json": json.loads(text)} if text[:1] in "[{" else text
        except ValueError:
            pass
    if b.get("type") == "resource":
        r = dict(b["resource"])
        r.pop("_meta", None)
        b["resource"] = r
    return b


def norm_tool_result(r: Any) -> dict[str, Any]:
    d = _dump(r)
    out: dict[str, Any] = {"content": [_block(c) for c in d.get("content", [])]}
    if d.get("structuredContent") is not None:
        out["structuredContent"] = d["structuredContent"]
    out["isError"] = bool(d.get("isError"))
    return out


def norm_tools(r: Any) -> list[dict[str, Any]]:
    tools = []
    for t in _dump(r)["tools"]:
        item = {"name": t["name"], "description": t.get("description"), "inputSchema": _schema_shape(t["inputSchema"])}
        if t.get("outputSchema") is not None:
            item["outputSchema"] = _schema_shape(t["outputSchema"])
        tools.append(item)
    return sorted(tools, key=lambda t: t["name"])


def norm_contents(r: Any) -> list[dict[str, Any]]:
    out = []
    for c in _dump(r)["contents"]:
        c = dict(c)
        c.pop("_meta", None)
        if "text" in c and c["text"][:1] in "[{":
            try:
                c["text"] = {"json": json.loads(c["text"])}
            except ValueError:
                pass
        out.append(c)
    return out


def norm_prompt(r: Any) -> dict[str, Any]:
    d = _dump(r)
    return {"description": d.get("description"),
            "messages": [{"role": m["role"], "content": _block(m["content"])} for m in d["messages"]]}


def norm_list(r: Any, key: str, fields: tuple[str, ...]) -> list[dict[str, Any]]:
    items = [{f: i.get(f) for f in fields if i.get(f) is not None} for i in _dump(r)[key]]
    return sorted(items, key=lambda i: json.dumps(i, sort_keys=True))


# ---- the client side ---------------------------------------------------------------------------

class Recorder:
    """The client's callbacks: answers server requests from the scenario, records notifications."""

    def __init__(self, client_cfg: dict[str, Any]) -> None:
        self.cfg = client_cfg
        self.roots: list[str] = list(client_cfg.get("roots", []))
        self.logs: list[dict[str, Any]] = []
        self.progress: list[dict[str, Any]] = []
        self.asked: list[str] = []
        self.updated: list[str] = []

    async def logging(self, params: Any) -> None:
        d = _dump(params)
        self.logs.append({"level": d.get("level"), "data": d.get("data")})

    async def elicit(self, context: Any, params: Any) -> Any:
        import mcp_types as types

        d = _dump(params)
        self.asked.append("elicit")
        for rule in self.cfg.get("elicit", []):
            if rule["match"] in d.get("message", ""):
                return types.ElicitResult(action=rule["action"], content=rule.get("content"))
        return types.ElicitResult(action="cancel")

    async def sample(self, context: Any, params: Any) -> Any:
        import mcp_types as types

        self.asked.append("sample")
        d = _dump(params)
        first = d["messages"][0]["content"]
        text = first.get("text", "") if isinstance(first, dict) else ""
        return types.CreateMessageResult(role="assistant", model="parity-model",
                                         content=types.TextContent(type="text", text=f"sampled: {text}"),
                                         stop_reason="endTurn")

    async def list_roots(self, context: Any) -> Any:
        import mcp_types as types

        self.asked.append("roots")
        return types.ListRootsResult(roots=[types.Root(uri=u, name=u.rsplit("/", 1)[-1]) for u in self.roots])

    async def message(self, message: Any) -> None:
        """Server notifications outside the typed callbacks: ``notifications/resources/updated``."""
        if getattr(message, "method", None) == "notifications/resources/updated":
            self.updated.append(str(message.params.uri))

    async def on_progress(self, progress: float, total: float | None, message: str | None) -> None:
        self.progress.append({"progress": progress, "total": total, "message": message})


async def drive(target: Any, era: str, scenario: dict[str, Any], http_base: str | None,
                data_uri: str = "") -> list[Any]:
    from mcp import Client
    from mcp.shared.exceptions import MCPError

    scenario = json.loads(json.dumps(scenario).replace("@DATA@", data_uri))
    rec = Recorder(scenario.get("client", {}))
    kwargs: dict[str, Any] = {"logging_callback": rec.logging, "mode": "legacy" if era == "legacy" else MODERN,
                              "read_timeout_seconds": 30, "cache": None, "message_handler": rec.message}
    if "elicit" in rec.cfg:
        kwargs["elicitation_callback"] = rec.elicit
    if rec.cfg.get("sampling"):
        kwargs["sampling_callback"] = rec.sample
    if "roots" in rec.cfg:
        kwargs["list_roots_callback"] = rec.list_roots
    if era != "legacy":
        kwargs["log_level"] = "debug"
    results: list[Any] = []
    async with Client(target, **kwargs) as client:
        if era == "legacy" and scenario.get("set_level", True):
            try:
                await client.set_logging_level("debug")
            except MCPError:  # a server without the logging capability
                pass
        for step in scenario["steps"]:
            if era not in step.get("eras", ("legacy", "modern")):
                continue
            op = step["op"]
            rec.logs.clear()
            rec.progress.clear()
            rec.asked.clear()
            rec.updated.clear()
            out: dict[str, Any] = {"op": op, **{k: step[k] for k in ("name", "uri") if k in step}}
            try:
                if op == "list_tools":
                    out["tools"] = norm_tools(await client.list_tools())
                elif op == "call_tool":
                    cb = rec.on_progress if step.get("progress") else None
                    out["result"] = norm_tool_result(await client.call_tool(step["name"], step.get("args", {}),
                                                                            progress_callback=cb))
                elif op == "read_resource":
                    out["contents"] = norm_contents(await client.read_resource(step["uri"]))
                elif op == "get_prompt":
                    out["prompt"] = norm_prompt(await client.get_prompt(step["name"], step.get("args")))
                elif op == "list_resources":
                    out["resources"] = norm_list(await client.list_resources(), "resources",
                                                 ("uri", "name", "mimeType", "description"))
                elif op == "list_templates":
                    out["templates"] = norm_list(await client.list_resource_templates(), "resourceTemplates",
                                                 ("uriTemplate", "name", "mimeType", "description"))
                elif op == "list_prompts":
                    prompts = _dump(await client.list_prompts())["prompts"]
                    out["prompts"] = sorted(({"name": p["name"], "description": p.get("description"),
                                              "arguments": sorted((a["name"], bool(a.get("required")))
                                                                  for a in p.get("arguments") or [])}
                                             for p in prompts), key=lambda p: p["name"])
                elif op == "complete":
                    import mcp_types as types

                    ref = step["ref"]
                    ref_model = (types.PromptReference(type="ref/prompt", name=ref["name"]) if ref["type"] == "ref/prompt"
                                 else types.ResourceTemplateReference(type="ref/resource", uri=ref["uri"]))
                    r = _dump(await client.complete(ref_model, step["argument"]))
                    out["completion"] = r["completion"]["values"]
                elif op == "set_roots":
                    rec.roots = list(step["roots"])
                    if era == "legacy":
                        await client.send_roots_list_changed()
                    continue
                elif op == "send_progress":  # client → server progress (a notification)
                    import warnings

                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        await client.send_progress_notification(step["token"], step["progress"], step.get("total"),
                                                                step.get("message"))
                elif op in ("subscribe", "unsubscribe"):
                    import warnings

                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        fn = client.subscribe_resource if op == "subscribe" else client.unsubscribe_resource
                        out["result"] = _dump(await fn(step["uri"]))
                elif op == "http_get":
                    if http_base is None:
                        continue
                    with urllib.request.urlopen(http_base + step["path"], timeout=10) as resp:
                        out["status"] = resp.status
                        out["body"] = resp.read().decode()
                else:
                    raise ValueError(f"unknown op {op!r}")
            except MCPError as exc:
                out["error"] = {"code": exc.error.code}
                if step.get("compare_message"):
                    out["error"]["message"] = exc.error.message
            await asyncio.sleep(step.get("wait", 0.05))  # let trailing notifications arrive
            if step.get("logs", True) and rec.logs:
                out["logs"] = list(rec.logs)
            if rec.progress:
                out["progress"] = list(rec.progress)
            if rec.asked:
                out["asked"] = sorted(set(rec.asked))
            if rec.updated:
                out["updated"] = list(rec.updated)
            for path in step.get("ignore", []) + (step.get("ignore_http", []) if http_base else []):
                _drop(out, path.split("."))
            results.append(out)
    return results


def _drop(node: Any, path: list[str]) -> None:
    """Remove one dotted path (a field kept different on purpose, see docs/COMPATIBILITY.md)."""
    if not path:
        return
    head, rest = path[0], path[1:]
    if isinstance(node, list):
        for item in node:
            _drop(item, path)
    elif isinstance(node, dict) and head in node:
        if rest:
            _drop(node[head], rest)
        else:
            node.pop(head)


def run(case: Path, python: str, transport: str, era: str, oxmcp: bool) -> list[Any]:
    scenario = json.loads((case / "scenario.json").read_text())
    case = Path(os.path.abspath(case))
    python = os.path.abspath(python)  # not resolve(): a venv's python is a symlink
    with tempfile.TemporaryDirectory(prefix="parity-") as tmp:
        server = case / "server.py"
        if oxmcp:
            copy = Path(tmp) / "server.py"
            copy.write_text(rewrite_imports(server.read_text()))
            for extra in case.glob("*"):
                if extra.name not in ("server.py", "scenario.json") and extra.is_file():
                    shutil.copy(extra, Path(tmp) / extra.name)
            server = copy
        env = {**os.environ, "PARITY_TRANSPORT": transport, "PARITY_DATA": str(case / "data"),
               "PYTHONUNBUFFERED": "1"}
        env.pop("VIRTUAL_ENV", None)
        if transport == "stdio":
            from mcp import StdioServerParameters

            target: Any = StdioServerParameters(command=python, args=[str(server)], env=env, cwd=tmp)
            return asyncio.run(drive(target, era, scenario, None, (case / "data").as_uri()))
        port = free_port()
        env["PARITY_PORT"] = str(port)
        proc = subprocess.Popen([python, str(server)], env=env, cwd=tmp, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE)
        try:
            wait_listening(port, proc, timeout=30)
            base = f"http://127.0.0.1:{port}"
            return asyncio.run(drive(base + scenario.get("path", "/mcp"), era, scenario, base, (case / "data").as_uri()))
        finally:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("case")
    p.add_argument("--python", default=sys.executable)
    p.add_argument("--transport", default="stdio", choices=("stdio", "http"))
    p.add_argument("--era", default="legacy", choices=("legacy", "modern"))
    p.add_argument("--oxmcp", action="store_true")
    a = p.parse_args()
    print(json.dumps(run(Path(a.case), a.python, a.transport, a.era, a.oxmcp), indent=1, sort_keys=True))


if __name__ == "__main__":
    main()
