"""Published Python MCP servers the oxmcp team did not write, run unmodified on their own SDK and on
oxmcp's zero-change mode, driven by the official ``mcp`` client through one generic session, and
compared answer by answer.

    .venv/bin/python tests/upstream/py-servers.py [--json FILE] [name ...]

The servers and their pins are in ``py-servers.json`` (the choice and the reasons in CHOICE-py.md);
``scripts/setup.sh`` installs each environment's pins into ``.cache/upstream-py/<env>/`` (a venv per
SDK generation, since a server pins the SDK it was written for). Each server runs twice, one run
after the other, in the same working directory:

- on its SDK: the console script the package installs, as ``uvx NAME ARGS`` would start it;
- on oxmcp: ``python -m oxmcp run NAME -- ARGS`` in the same venv, with oxmcp importable (the import
  hook makes ``mcp`` oxmcp's mirror in that process; the installed SDK is never imported).

The session (``legacy``, the era every SDK generation serves, and ``modern`` too for a server whose
SDK serves 2026-07-28): the server's info and capabilities; list tools, resources, templates and
prompts; call every tool with the target's arguments or arguments made from its input schema; read
the listed resources; get every prompt. The client answers sampling with a fixed message, form
elicitation by accepting values made from the requested schema, and roots with the target's roots.
Strings that differ between any two runs (uuids, times) are masked. Every difference must be
classified in ``py-known.json`` (bug / protocol / security / internal, with the reason), or the run
fails.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
CACHE = ROOT / ".cache" / "upstream-py"
OXMCP_PATH = ROOT / "bindings-python" / "python"
CALL_TIMEOUT_S = 15.0
#: The client's connect mode for each era a target names.
MODES = {"legacy": "legacy", "modern": "2026-07-28"}

UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.IGNORECASE)
TIME = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})?")
CLOCK = re.compile(r"\b\d{1,2}:\d{2}:\d{2}( [AP]M)?\b")


def sample_of(schema: Any, depth: int = 0) -> Any:
    """A value that satisfies ``schema`` (JSON Schema), for a tool's or a prompt's arguments."""
    if not isinstance(schema, dict) or depth > 6:
        return "example"
    for key in ("const", "default"):
        if key in schema:
            return schema[key]
    for key in ("enum", "examples"):
        if isinstance(schema.get(key), list) and schema[key]:
            return schema[key][0]
    for key in ("anyOf", "oneOf"):
        if isinstance(schema.get(key), list) and schema[key]:
            choice = next((s for s in schema[key] if isinstance(s, dict) and s.get("type") != "null"), schema[key][0])
            return sample_of(choice, depth + 1)
    if isinstance(schema.get("allOf"), list):
        out: dict[str, Any] = {}
        for s in schema["allOf"]:
            part = sample_of(s, depth + 1)
            if isinstance(part, dict):
                out.update(part)
        return out
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((t for t in kind if t != "null"), None)
    kind = kind or ("object" if "properties" in schema else "string")
    if kind == "string":
        formats = {"email": "user@example.com", "uri": "https://example.com/", "date": "2024-01-01",
                   "date-time": "2024-01-01T00:00:00Z"}
        if schema.get("format") in formats:
            return formats[schema["format"]]
        text = "example".ljust(schema.get("minLength", 0), "x")
        return text[: schema["maxLength"]] if "maxLength" in schema else text
    if kind in ("integer", "number"):
        n = schema.get("minimum", schema["exclusiveMinimum"] + 1 if "exclusiveMinimum" in schema else 1)
        if "maximum" in schema and n > schema["maximum"]:
            n = schema["maximum"]
        return int(n) if kind == "integer" else n
    if kind == "boolean":
        return True
    if kind == "array":
        return [sample_of(schema.get("items", {}), depth + 1) for _ in range(max(1, schema.get("minItems", 1)))]
    if kind == "object":
        props = schema.get("properties", {})
        return {k: sample_of(props.get(k, {}), depth + 1) for k in schema.get("required", [])}
    return None


def normalise(value: Any, masks: list[re.Pattern[str]], work: str, keys: frozenset[str] = frozenset()) -> Any:
    """The record with what differs between any two runs of one server masked, keys sorted; the
    values of ``keys`` (a clock reading in a number, say) masked whole."""
    if isinstance(value, str):
        out = re.sub(r"http://127\.0\.0\.1:\d+", "$HTTP", value.replace(work, "$WORK"))
        out = CLOCK.sub("<clock>", TIME.sub("<time>", UUID.sub("<uuid>", out)))
        for m in masks:
            out = m.sub("<masked>", out)
        return out
    if isinstance(value, list):
        return [normalise(v, masks, work, keys) for v in value]
    if isinstance(value, dict):
        return {k: "<masked>" if k in keys else normalise(value[k], masks, work, keys)
                for k in sorted(value) if value[k] is not None}
    return value


def _dump(model: Any) -> Any:
    if isinstance(model, list):
        return [_dump(m) for m in model]
    if hasattr(model, "model_dump"):
        return model.model_dump(mode="json", by_alias=True, exclude_none=True)
    return model


def _by_key(item: dict[str, Any]) -> str:
    return str(item.get("name") or item.get("uri") or item.get("uriTemplate"))


def _error_of(e: BaseException) -> dict[str, Any]:
    # A JSON-RPC error compares by code (its text is each implementation's own); a client-side
    # failure (a timeout, a closed connection) by its kind.
    err = getattr(e, "error", None)
    code = getattr(err, "code", None) if err is not None else getattr(e, "code", None)
    if isinstance(code, int):
        return {"error": {"code": code}}
    return {"error": {"thrown": type(e).__name__}}


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *_args: Any) -> None:
        pass


def _serve_http(directory: Path) -> tuple[ThreadingHTTPServer, str]:
    """A loopback HTTP server of ``directory`` (``$HTTP``), for a server that fetches URLs."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(directory)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, f"http://127.0.0.1:{httpd.server_address[1]}"


def _prepare(target: dict[str, Any], work: Path) -> None:
    """The working directory as the target wants it before each run: its files, then its commands."""
    for name, text in target.get("files", {}).items():
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        (work / name).write_text(text)
    for command in target.get("setup", []):
        subprocess.run(command, cwd=work, check=True, capture_output=True, timeout=30)


async def _session(target: dict[str, Any], impl: str, mode: str, work: Path, subst: dict[str, str]) -> dict[str, Any]:
    from mcp import Client, StdioServerParameters, types

    def expand(text: str) -> str:
        for k, v in subst.items():
            text = text.replace(k, v)
        return text

    venv = CACHE / target["venv"]
    args = [expand(a) for a in target.get("args", [])]
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env.update({k: expand(v) for k, v in target.get("env", {}).items()})
    env["PYTHONUNBUFFERED"] = "1"
    if impl == "sdk":
        command, argv = str(venv / "bin" / target["script"]), args
    else:
        env["PYTHONPATH"] = str(OXMCP_PATH)
        env["OXMCP_LOG"] = os.environ.get("OXMCP_LOG", "error")
        command, argv = str(venv / "bin" / "python"), ["-m", "oxmcp", "run", target["script"], "--", *args]
    roots = [{**r, "uri": expand(r["uri"])} for r in target.get("roots", [])]
    notes: list[dict[str, Any]] = []

    async def sampling(_ctx: Any, _params: Any) -> Any:
        return types.CreateMessageResult(role="assistant", model="upstream-model", stopReason="endTurn",
                                         content=types.TextContent(type="text", text="A short summary."))

    async def elicitation(_ctx: Any, params: Any) -> Any:
        schema = getattr(params, "requestedSchema", None) or {}
        if not isinstance(schema, dict):
            schema = _dump(schema)
        content = sample_of({**schema, "required": list(schema.get("properties", {}))})
        return types.ElicitResult(action="accept", content=content)

    async def list_roots(_ctx: Any) -> Any:
        return types.ListRootsResult(roots=[types.Root(**r) for r in roots])

    async def logging(params: Any) -> None:
        notes.append({"method": "notifications/message", "params": _dump(params)})

    params = StdioServerParameters(command=command, args=argv, env=env, cwd=str(work))
    record: dict[str, Any] = {}
    masks = [re.compile(m) for m in target.get("masks", [])]
    mask_keys = frozenset(target.get("maskKeys", []))
    client = Client(params, mode=MODES[mode], read_timeout_seconds=CALL_TIMEOUT_S, sampling_callback=sampling,
                    elicitation_callback=elicitation, list_roots_callback=list_roots if roots else None,
                    logging_callback=logging)
    try:
        await asyncio.wait_for(client.__aenter__(), 30)
    except BaseException as e:  # noqa: BLE001  a server that does not start is a row, not a crash
        return {"start": f"fails to start: {type(e).__name__}: {str(e)[:160]}"}

    async def step(label: str, call: Any) -> Any:
        before = len(notes)
        try:
            result = await asyncio.wait_for(call(), CALL_TIMEOUT_S)
        except BaseException as e:
            if isinstance(e, (KeyboardInterrupt, SystemExit)):
                raise
            result = _error_of(e)
        entry: dict[str, Any] = {"result": result}
        if len(notes) > before:
            entry["notifications"] = notes[before:]
        record[label] = normalise(entry, masks, str(work), mask_keys)
        return result

    try:
        record["start"] = "ok"
        # In the 2026-07-28 era there is no handshake: what the server says of itself comes with
        # server/discover when the client asks for it, and may be absent here.
        info = client.server_info
        if info is not None:
            record["serverInfo"] = normalise({"name": info.name, "version": info.version, "title": info.title},
                                             masks, str(work))
        record["capabilities"] = normalise(_dump(client.server_capabilities) or {}, masks, str(work))
        record["instructions"] = client.instructions

        async def listing(method: str, attr: str) -> Any:
            return sorted(_dump(getattr(await getattr(client, method)(), attr)), key=_by_key)

        tools = await step("tools/list", lambda: listing("list_tools", "tools"))
        resources = await step("resources/list", lambda: listing("list_resources", "resources"))
        await step("resources/templates/list", lambda: listing("list_resource_templates", "resource_templates"))
        prompts = await step("prompts/list", lambda: listing("list_prompts", "prompts"))
        schemas = {t["name"]: t.get("inputSchema", {}) for t in tools} if isinstance(tools, list) else {}
        plan = target.get("calls") or [{"name": n} for n in sorted(schemas)]
        for i, call in enumerate(plan):
            name = call["name"]
            if name in target.get("skipCalls", {}):
                continue
            arguments = call.get("arguments", target.get("arguments", {}).get(name))
            if arguments is None:
                arguments = sample_of(schemas.get(name, {}))
            arguments = json.loads(expand(json.dumps(arguments)))
            label = f"tools/call {name}" + (f" #{i}" if "calls" in target else "")

            async def call_tool(name: str = name, arguments: Any = arguments) -> Any:
                r = await client.call_tool(name, arguments)
                out = {"content": _dump(r.content), "isError": bool(r.is_error if hasattr(r, "is_error") else r.isError)}
                structured = getattr(r, "structured_content", None) or getattr(r, "structuredContent", None)
                if structured is not None:
                    out["structuredContent"] = structured
                return out

            await step(label, call_tool)
        for r in resources[:20] if isinstance(resources, list) else []:
            await step(f"resources/read {r['uri']}",
                       lambda uri=r["uri"]: _contents(client, uri))
        for p in prompts if isinstance(prompts, list) else []:
            given = target.get("promptArguments", {}).get(p["name"])
            arguments = given if given is not None else {a["name"]: "example" for a in p.get("arguments", []) if a.get("required")}
            await step(f"prompts/get {p['name']}",
                       lambda name=p["name"], arguments=arguments: _prompt(client, name, arguments))
    finally:
        try:
            await asyncio.wait_for(client.__aexit__(None, None, None), 10)
        except BaseException:  # noqa: BLE001, S110  closing a server that already stopped
            pass
    return record


async def _contents(client: Any, uri: str) -> Any:
    return _dump((await client.read_resource(uri)).contents)


async def _prompt(client: Any, name: str, arguments: dict[str, Any]) -> Any:
    return _dump(await client.get_prompt(name, arguments))


def differences(a: Any, b: Any, at: str = "", out: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """Every difference between two records, as ``{at, sdk, oxmcp}`` (leaves only)."""
    out = [] if out is None else out
    if json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True):
        return out
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            differences(a.get(k), b.get(k), f"{at}/{k}", out)
    elif isinstance(a, list) and isinstance(b, list):
        for i in range(max(len(a), len(b))):
            differences(a[i] if i < len(a) else None, b[i] if i < len(b) else None, f"{at}/{i}", out)
    else:
        out.append({"at": at or "/", "sdk": a, "oxmcp": b})
    return out


def load() -> tuple[dict[str, Any], list[dict[str, Any]]]:
    spec = json.loads((HERE / "py-servers.json").read_text())
    known = json.loads((HERE / "py-known.json").read_text())["differences"]
    return spec, known


async def run_target(target: dict[str, Any], known: list[dict[str, Any]]) -> dict[str, Any]:
    t0 = time.monotonic()
    row: dict[str, Any] = {k: target[k] for k in ("name", "package", "api", "venv")}
    row.update(classified=[], unclassified=[], eras={})
    if not (CACHE / target["venv"] / "bin" / target["script"]).exists():
        row["result"] = "not installed"
        row["unclassified"].append({"at": "start", "sdk": "installed",
                                    "oxmcp": f"{target['script']} missing in {CACHE / target['venv']} (run scripts/setup.sh)"})
        return row
    results = []
    for mode in target.get("eras", ["legacy"]):
        work = Path(tempfile.mkdtemp(prefix=f"oxmcp-upstream-py-{target['name']}-"))
        httpd, url = _serve_http(work)
        subst = {"$WORK": str(work), "$HTTP": url}
        try:
            _prepare(target, work)
            a = await _session(target, "sdk", mode, work, subst)
            # The same directory for the second run, as it was before the first.
            shutil.rmtree(work)
            work.mkdir()
            _prepare(target, work)
            b = await _session(target, "oxmcp", mode, work, subst)
        finally:
            httpd.shutdown()
            httpd.server_close()
            shutil.rmtree(work, ignore_errors=True)
        if a["start"] != "ok" or b["start"] != "ok":
            diffs = differences({"start": a["start"]}, {"start": b["start"]})
        else:
            diffs = differences(a, b)
        for d in diffs:
            d["at"] = f"/{mode}{d['at']}"
            k = next((k for k in known if target["name"] in k["targets"] and re.search(k["at"], d["at"])), None)
            if k:
                row["classified"].append({**d, "class": k["class"], "reason": k["reason"]})
            else:
                row["unclassified"].append(d)
        era = ("fails on the SDK" if a["start"] != "ok" else "fails to start" if b["start"] != "ok"
               else "differs" if diffs else "same")
        row["eras"][mode] = era
        results.append(era)
    order = ["fails on the SDK", "fails to start", "differs", "same"]
    row["result"] = min(results, key=order.index)
    row["seconds"] = round(time.monotonic() - t0, 1)
    return row


def _short(v: Any) -> str:
    return "absent" if v is None else json.dumps(v)[:240]


async def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--json", type=Path, help="write the rows here")
    p.add_argument("names", nargs="*")
    a = p.parse_args(argv)
    spec, known = load()
    chosen = [t for t in spec["servers"] if not a.names or t["name"] in a.names]
    t0 = time.monotonic()
    rows = []
    for target in chosen:  # one at a time: each server's two runs share its working directory
        row = await run_target(target, known)
        rows.append(row)
        mark = "FAIL" if row["unclassified"] else "ok  "
        classes = sorted({d["class"] for d in row["classified"]})
        extra = f", {len(row['classified'])} classified difference(s) ({', '.join(classes)})" if classes else ""
        eras = ", ".join(f"{m}: {r}" for m, r in row["eras"].items())
        print(f"{mark} {row['name']} ({row['api']}; {eras}; {row.get('seconds', 0)} s){extra}", flush=True)
        for d in row["unclassified"][:5]:
            print(f"       unclassified at {d['at']}: sdk={_short(d['sdk'])} oxmcp={_short(d['oxmcp'])}")
        if len(row["unclassified"]) > 5:
            print(f"       ... {len(row['unclassified']) - 5} more")
    if a.json:
        a.json.write_text(json.dumps(rows, indent=2))
    count = lambda r: sum(1 for x in rows if x["result"] == r)
    bad = sum(1 for x in rows if x["unclassified"])
    print(f"upstream-py: {len(rows)} servers: {count('same')} same, {count('differs')} differ, "
          f"{count('fails to start')} fail to start on oxmcp, {count('fails on the SDK') + count('not installed')} not run; "
          f"{bad} with unclassified differences ({time.monotonic() - t0:.1f} s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1:])))
