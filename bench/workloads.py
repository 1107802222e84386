#!/usr/bin/env python3
"""Workload benchmark: oxmcp (Rust, Python, Node) next to its peers on work heavier than `add`.

    python3 bench/workloads.py --quick                          # everything, ~1 s per phase
    python3 bench/workloads.py --only oxmcp-rust,rmcp,bare --workloads 1,2,3 --duration 5
    python3 bench/workloads.py --callgrind-only                 # oxmcp-rust instructions per op
    python3 bench/workloads_report.py bench/results/workloads-*.json   # -> bench/RESULTS.md

Workloads (a phase each; `*` marks a 10x-smaller variant beside the large one):
  1* tools/call returning a ~100 KB structured result (structuredContent + text, outputSchema)
  2* resources/read of a 1 MiB binary blob (base64) and of a 1 MiB text (peak RSS too)
  3  tools/list of 1,000 tools on one page (page size raised where the server pages)
  4* resources/read through 4,096 resource templates (410 small): the last-registered template
     (worst case of a linear scan) and the middle one (typical)
  5* tools/call with a ~50 KB nested argument validated against a deep schema ($ref, oneOf)
  6* one `notify_resource_updated` (a `touch` call) fanned out to 1,000 (small: 100) open
     `subscriptions/listen` streams: time until the last stream has it, CPU per event, RSS per stream
  7* 10,000 (small: 1,000) legacy sessions, `initialize` + one `tools/call` each: initialize/s,
     CPU per initialize, RSS per session
  8  tasks at c=16: create (`tools/call job`), `tasks/get` until completed (its result): tasks/s
  9  a 2-round MRTR call: round 1 answers input_required, round 2 retries with the answer
     (measured as two phases with fixed bodies: the sealed requestState may be replayed)
 10  1, 7 and 8 through Redis (`--redis`: oxmcp-rust-redis, the Rust server with OXMCP_REDIS_URL
     on a redis-server of its own; Redis commands, bytes in/out and used memory per operation from
     INFO before and after each phase); with `--replicas 3` also through three replicas behind nginx
     (oxmcp-rust-redis-3r: CPU and RSS are the whole deployment's, nginx included)

Workloads 6-8 are driven by bench/wl_stateful.py (Python threads/asyncio on CPU 1, not loadgen):
their rates are bounded by that client for the fastest servers; the server's CPU per operation
is the figure to compare.

Method as bench/run.py: each server under `taskset -c 0`, this script and bench/loadgen on CPU 1;
closed loop, `-c` keep-alive connections; CPU per call = the server tree's utime+stime over the
measured window / requests; every answer checked for a needle, and each phase's answer checked
in full once before its load. Servers restart per server configuration (1,000 tools; 4,096 or
410 templates). The data every server serves is generated here (seeded) into the results
directory. One JSON file per run: bench/results/workloads-<timestamp>.json.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run
import wl_stateful
from run import LEGACY, MODERN

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
WL = BENCH / "workloads"
SIZES = ("large", "small")

# ----------------------------------------------------------------------------------------- data


def gen_data(d: Path) -> dict:
    """Seeded data files every server reads (WL_DATA), and the argument objects of workload 5."""
    d.mkdir(parents=True, exist_ok=True)
    rng = random.Random(51)
    words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet"]

    def record(i: int) -> dict:
        return {"id": i, "name": f"{rng.choice(words).title()} {rng.choice(words).title()} {i}",
                "email": f"user{i}@example.com", "score": round(rng.random() * 1000, 3),
                "active": rng.random() < 0.5, "tags": rng.sample(words, 3)}

    def records(target: int) -> dict:
        items, n = [], 0
        while n < target:
            items.append(record(len(items)))
            n += len(json.dumps(items[-1], separators=(",", ":"))) + 1
        return {"items": items}

    recs = {"large": records(100_000), "small": records(10_000)}
    rschema = {"type": "object", "required": ["items"], "properties": {"items": {"type": "array", "items": {
        "type": "object", "required": ["id", "name", "email", "score", "active", "tags"],
        "properties": {"id": {"type": "integer"}, "name": {"type": "string"}, "email": {"type": "string"},
                       "score": {"type": "number"}, "active": {"type": "boolean"},
                       "tags": {"type": "array", "items": {"type": "string"}}}}}}}
    blob = {"large": rng.randbytes(1 << 20), "small": rng.randbytes((1 << 20) // 10)}

    def text(n: int) -> str:
        out, size = [], 0
        while size < n:
            line = " ".join(rng.choice(words) for _ in range(12)) + "\n"
            out.append(line)
            size += len(line)
        return "".join(out)[:n]

    texts = {"large": text(1 << 20), "small": text((1 << 20) // 10)}
    oschema = {
        "type": "object", "required": ["orders"], "additionalProperties": False,
        "properties": {"orders": {"type": "array", "items": {"$ref": "#/$defs/Order"}}},
        "$defs": {
            "Order": {"type": "object", "additionalProperties": False, "required": ["id", "customer", "items", "payment"],
                      "properties": {"id": {"type": "string"}, "customer": {"$ref": "#/$defs/Customer"},
                                     "items": {"type": "array", "items": {"$ref": "#/$defs/Item"}},
                                     "payment": {"oneOf": [{"$ref": "#/$defs/Card"}, {"$ref": "#/$defs/Transfer"}]}}},
            "Customer": {"type": "object", "additionalProperties": False, "required": ["name", "email", "address"],
                         "properties": {"name": {"type": "string"}, "email": {"type": "string"},
                                        "address": {"$ref": "#/$defs/Address"}}},
            "Address": {"type": "object", "additionalProperties": False, "required": ["street", "city", "zip", "country"],
                        "properties": {k: {"type": "string"} for k in ("street", "city", "zip", "country")}},
            "Item": {"type": "object", "additionalProperties": False, "required": ["sku", "qty", "price", "tags"],
                     "properties": {"sku": {"type": "string"}, "qty": {"type": "integer", "minimum": 1},
                                    "price": {"type": "number"}, "tags": {"type": "array", "items": {"type": "string"}}}},
            "Card": {"type": "object", "additionalProperties": False, "required": ["kind", "number", "expiry"],
                     "properties": {"kind": {"const": "card"}, "number": {"type": "string"}, "expiry": {"type": "string"}}},
            "Transfer": {"type": "object", "additionalProperties": False, "required": ["kind", "iban", "reference"],
                         "properties": {"kind": {"const": "transfer"}, "iban": {"type": "string"},
                                        "reference": {"type": "string"}}},
        },
    }

    def order(i: int) -> dict:
        pay = ({"kind": "card", "number": f"4111{i:012d}", "expiry": "12/29"} if i % 2 else
               {"kind": "transfer", "iban": f"DE89370400440532{i:06d}", "reference": f"INV-{i}"})
        return {"id": f"ord-{i}", "customer": {"name": f"Customer {i}", "email": f"c{i}@example.com",
                "address": {"street": f"{i} Main Street", "city": rng.choice(words).title(), "zip": f"{10000 + i}",
                            "country": "DE"}},
                "items": [{"sku": f"SKU-{i}-{j}", "qty": 1 + j, "price": round(rng.random() * 100, 2),
                           "tags": rng.sample(words, 2)} for j in range(4)],
                "payment": pay}

    orders = {"large": {"orders": [order(i) for i in range(100)]}, "small": {"orders": [order(i) for i in range(10)]}}
    for s in SIZES:
        (d / f"records_{s}.json").write_text(json.dumps(recs[s], separators=(",", ":")))
        (d / f"blob_{s}.bin").write_bytes(blob[s])
        (d / f"text_{s}.txt").write_text(texts[s])
    (d / "records_schema.json").write_text(json.dumps(rschema))
    (d / "orders_schema.json").write_text(json.dumps(oschema))
    sizes = {f"records_{s}": len(json.dumps(recs[s], separators=(",", ":"))) for s in SIZES}
    sizes.update({f"orders_{s}": len(json.dumps(orders[s], separators=(",", ":"))) for s in SIZES})
    return {"records": recs, "blob": blob, "text": texts, "orders": orders, "sizes": sizes}


# ----------------------------------------------------------------------------------------- phases

ELICIT_CAPS = {"elicitation": {}}


def call(name: str, args: dict, caps: dict | None = None, extra: dict | None = None):
    return lambda proto: msg("tools/call", {"name": name, "arguments": args, **(extra or {})}, proto, caps)


def read(uri: str):
    return lambda proto: msg("resources/read", {"uri": uri}, proto)


def round2(state: str | None):
    """MRTR's retry: the elicitation's answer and the requestState round 1 returned."""
    answer = {"ok": {"action": "accept", "content": {"ok": True}}}
    return call("confirm", {}, ELICIT_CAPS, {"inputResponses": answer, "requestState": state})


def msg(method: str, params: dict, proto: str, caps: dict | None = None) -> dict:
    p = dict(params)
    if proto == MODERN:
        p["_meta"] = {"io.modelcontextprotocol/protocolVersion": MODERN,
                      "io.modelcontextprotocol/clientCapabilities": caps or {}}
    return {"jsonrpc": "2.0", "id": 1, "method": method, "params": p}


def headers(m: dict, proto: str, session: str | None) -> dict[str, str]:
    h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
         "MCP-Protocol-Version": proto}
    if proto == MODERN:
        h["Mcp-Method"] = m["method"]
        p = m["params"]
        if m["method"] == "tools/call":
            h["Mcp-Name"] = p["name"]
        elif m["method"] == "resources/read":
            h["Mcp-Name"] = p["uri"]
    if session:
        h["Mcp-Session-Id"] = session
    return h


def result_of(r: dict | None) -> dict:
    res = (r or {}).get("result")
    if not isinstance(res, dict):
        raise ValueError(f"no result: {str(r)[:300]}")
    if res.get("isError"):
        raise ValueError(f"isError: {str(res)[:300]}")
    return res


def text_of(res: dict) -> str:
    c = res.get("content") or []
    return c[0].get("text", "") if c else ""


def phases(data: dict) -> list[dict]:
    """Every phase: its workload, the server configuration it needs, its message, the needle every
    answer must hold, and the full check of one answer."""
    out = []
    for s in SIZES:
        def chk_records(res, s=s):
            if res.get("structuredContent") != data["records"][s]:
                raise ValueError("structuredContent differs from the data")
            if json.loads(text_of(res)) != data["records"][s]:
                raise ValueError("text content is not the structured result's JSON")
        out.append({"id": f"records-{s}", "w": 1, "variant": s, "group": "base", "make": call(f"records_{s}", {}),
                    "needles": ['"structuredContent"'], "check": chk_records})
    for s in SIZES:
        def chk_blob(res, s=s):
            c = res["contents"][0]
            if base64.b64decode(c["blob"]) != data["blob"][s]:
                raise ValueError("blob differs")
        out.append({"id": f"blob-{s}", "w": 2, "variant": s, "group": "base", "make": read(f"bench://blob/{s}"),
                    "needles": ['"blob"'], "check": chk_blob})
    for s in SIZES:
        def chk_text(res, s=s):
            if res["contents"][0]["text"] != data["text"][s]:
                raise ValueError("text differs")
        out.append({"id": f"text-{s}", "w": 2, "variant": s, "group": "base", "make": read(f"bench://text/{s}"),
                    "needles": ['"text":"', '"text": "'], "check": chk_text})

    def chk_list(res):
        names = {t["name"] for t in res.get("tools", [])}
        if res.get("nextCursor") or not {f"tool_{i:04d}" for i in range(1000)} <= names:
            raise ValueError(f"not all 1,000 tools on one page ({len(names)} tools, nextCursor "
                             f"{res.get('nextCursor')!r})")
    out.append({"id": "list-1000", "w": 3, "variant": "large", "group": "tools", "make": lambda proto: msg("tools/list", {}, proto),
                "needles": ['"tool_0999"'], "check": chk_list})
    for n, s in ((4096, "large"), (410, "small")):
        for case, i in (("worst", n - 1), ("typical", n // 2)):
            def chk_t(res, want=f"t{i}:abc"):
                if res["contents"][0]["text"] != want:
                    raise ValueError(f"template answer {str(res)[:200]}")
            out.append({"id": f"tmpl-{n}-{case}", "w": 4, "variant": s, "case": case, "group": f"tmpl-{s}",
                        "make": read(f"bench://t{i}/abc"), "needles": [f"t{i}:abc"], "check": chk_t})
    for s in SIZES:
        want = f"orders={len(data['orders'][s]['orders'])}"

        def chk_orders(res, want=want):
            if text_of(res) != want:
                raise ValueError(f"orders answer {str(res)[:200]}")
        out.append({"id": f"orders-{s}", "w": 5, "variant": s, "group": "base", "make": call("orders", data["orders"][s]),
                    "needles": [want], "check": chk_orders})

    for n, s in ((1000, "large"), (100, "small")):
        out.append({"id": f"fanout-{n}", "w": 6, "variant": s, "group": "base", "kind": "fanout", "n": n})
    for n, s in ((10000, "large"), (1000, "small")):
        out.append({"id": f"sessions-{n}", "w": 7, "variant": s, "group": f"sessions-{s}", "kind": "sessions", "n": n})
    out.append({"id": "tasks-c16", "w": 8, "variant": "large", "group": "base", "kind": "tasks"})

    def chk_r1(res):
        if res.get("resultType") != "input_required" or not res.get("requestState"):
            raise ValueError(f"not input_required: {str(res)[:200]}")
    out.append({"id": "mrtr-round1", "w": 9, "variant": "round 1", "group": "base", "modern_only": True,
                "make": call("confirm", {}, ELICIT_CAPS), "needles": ['"input_required"'], "check": chk_r1})
    def chk_r2(res):
        if text_of(res) != "confirmed=accept":
            raise ValueError(f"round 2 answer {str(res)[:200]}")
    # Round 2's message carries round 1's requestState; bench_server builds it (make None).
    out.append({"id": "mrtr-round2", "w": 9, "variant": "round 2", "group": "base", "modern_only": True,
                "make": None, "needles": ["confirmed=accept"], "check": chk_r2})
    return out


GROUPS = {"base": {}, "sessions-large": {"WL_STATEFUL": "1"}, "sessions-small": {"WL_STATEFUL": "1"}, "tools": {"WL_TOOLS": "1000"}, "tmpl-large": {"WL_TEMPLATES": "4096"},
          "tmpl-small": {"WL_TEMPLATES": "410"}}


# ----------------------------------------------------------------------------------------- servers

def servers(a: argparse.Namespace) -> list[dict]:
    py = [str(WL / "servers/wl_py.py")]
    nd = [str(WL / "servers/wl_node.mjs")]
    pb = Path(a.peers_bin)
    all_w = {1, 2, 3, 4, 5, 6, 7, 8, 9}
    limits = {"OXMCP_PAGE_SIZE": "2000", "OXMCP_MAX_SESSIONS": "20000", "OXMCP_MAX_SESSIONS_PER_CALLER": "20000",
              "OXMCP_MAX_LISTENERS": "4096", "OXMCP_MAX_LISTENERS_PER_CALLER": "4096",
              "OXMCP_MAX_TASKS_PER_CALLER": "1000000", "OXMCP_MAX_CONNECTIONS": "4096",
              "OXMCP_MAX_CONNECTIONS_PER_CLIENT": "4096"}
    bare = "bare server: workloads 1-3 only"
    table = [
        {"name": "oxmcp-rust", "lang": "Rust", "cmd": [a.oxmcp_rust_bin, "--http", "127.0.0.1:{port}"],
         "env": limits, "can": all_w, "needs": [a.oxmcp_rust_bin]},
        {"name": "oxmcp-python", "lang": "Python", "cmd": [a.oxmcp_python, *py, "oxmcp", "--port", "{port}"],
         "env": {}, "can": all_w - {9}, "needs": [a.oxmcp_python]},
        {"name": "oxmcp-node", "lang": "Node", "cmd": [a.node, *nd, "oxmcp", "--port", "{port}"],
         "env": {"OXMCP_NATIVE": a.oxmcp_node_native} if a.oxmcp_node_native else {}, "can": all_w - {9},
         "needs": [p for p in [a.oxmcp_node_native] if p]},
        {"name": "rmcp", "lang": "Rust", "cmd": [str(pb / "wl_rmcp"), "--port", "{port}"], "env": {},
         "can": {1, 2, 3, 5, 7, 9}, "needs": [str(pb / "wl_rmcp")],
         "cannot": {4: "rmcp has no template matching (the handler parses URIs itself)",
                    6: "not built: rmcp 3.11's subscriptions/listen is not in its workload server",
                    8: "not built: rmcp 3.11 has the Tasks extension (its task manager); its workload server "
                       "does not use it"}},
        {"name": "bare", "lang": "Rust", "cmd": [str(pb / "wl_bare"), "--port", "{port}"], "env": {},
         "can": {1, 2, 3}, "needs": [str(pb / "wl_bare")], "cannot": {w: bare for w in (4, 5, 6, 7, 8, 9)}},
        {"name": "fastmcp", "lang": "Python", "cmd": [a.peers_python, *py, "fastmcp", "--port", "{port}"], "env": {},
         "can": {1, 2, 3, 4, 5, 7}, "needs": [a.peers_python],
         "cannot": {6: "FastMCP 4.2.3 has no subscriptions/listen",
                    8: "not measured: FastMCP 4.2.3 runs tasks through its `fastmcp[tasks]` extra (docket), not "
                       "installed in the peers' environment",
                    9: "FastMCP 4.2 does not speak MRTR"}},
        {"name": "pysdk", "lang": "Python", "cmd": [a.peers_python, *py, "pysdk", "--port", "{port}"], "env": {},
         "can": {1, 2, 3, 4, 5, 6, 7}, "needs": [a.peers_python],
         "cannot": {8: "mcp 2.3 has no Tasks extension", 9: "mcp 2.3 MCPServer: MRTR not built"}},
        {"name": "ts-sdk", "lang": "Node", "cmd": [a.node, *nd, "ts-sdk", "--port", "{port}"],
         "env": {"BENCH_NODE_DIR": a.peers_node_dir}, "can": {1, 2, 3, 4, 5},
         "needs": [str(Path(a.peers_node_dir) / "node_modules/@modelcontextprotocol/server")],
         "cannot": {6: "not built: the kit's TS server builds a server per request (createMcpHandler), with no "
                       "bus shared by listen streams",
                    7: "not built: the kit's TS server is stateless (createMcpHandler); sessions need a transport "
                       "per session",
                    8: "TS SDK 2.4 has no Tasks extension", 9: "TS SDK v2: MRTR not built"}},
    ]
    if a.redis:
        table.insert(1, {"name": "oxmcp-rust-redis", "lang": "Rust", "cmd": [a.oxmcp_rust_bin, "--http", "127.0.0.1:{port}"],
                         "env": {**limits, "OXMCP_REDIS_URL": a.redis, "OXMCP_STATE_KEY": "bench-workloads-state-key-0123456789abcdef"},
                         "can": {1, 6, 7, 8}, "needs": [a.oxmcp_rust_bin], "redis": True})
    if a.redis and a.replicas > 1:
        n = a.replicas
        table.insert(2, {"name": f"oxmcp-rust-redis-{n}r", "lang": "Rust",
                         "cmd": [sys.executable, str(WL / "servers/wl_cluster.py"), "--port", "{port}", "--replicas",
                                 str(n), "--bin", a.oxmcp_rust_bin, "--redis", a.redis],
                         "env": {**limits, "OXMCP_STATE_KEY": "bench-workloads-state-key-0123456789abcdef"},
                         "can": {1, 7, 8}, "needs": [a.oxmcp_rust_bin], "redis": True, "replicas": n})
    return table


def probe(url: str, proto_hint: str | None, p, deadline: float) -> tuple[str, str | None]:
    """Wait until the server answers; find its revision (modern, else a legacy session)."""
    last = ""
    while time.monotonic() < deadline:
        if p.poll() is not None:
            raise RuntimeError(f"server exited with {p.returncode}")
        try:
            for proto in ([proto_hint] if proto_hint else [MODERN, LEGACY]):
                session = None
                if proto == LEGACY:
                    st, h, r = run.post(url, run.init_msg(), LEGACY)
                    if st != 200 or not r or "result" not in r:
                        last = f"initialize: HTTP {st} {str(r)[:200]}"
                        continue
                    session = h.get("mcp-session-id")
                    run.post(url, {"jsonrpc": "2.0", "method": "notifications/initialized"}, LEGACY, session)
                m = msg("tools/call", {"name": "records_small", "arguments": {}}, proto)
                st, _, r = post(url, m, proto, session)
                if st == 200 and r and "result" in r:
                    return proto, session
                last = f"{proto}: HTTP {st} {str(r)[:200]}"
        except OSError as e:
            last = repr(e)
        time.sleep(0.05)
    raise RuntimeError(f"not ready: {last}")


def post(url: str, m: dict, proto: str, session: str | None):
    import http.client
    host_port = url[len("http://"):].split("/", 1)[0]
    host, port = host_port.rsplit(":", 1)
    conn = http.client.HTTPConnection(host, int(port), timeout=30)
    try:
        conn.request("POST", "/mcp", body=run.enc(m), headers=headers(m, proto, session))
        r = conn.getresponse()
        body = r.read()
        hdrs = {k.lower(): v for k, v in r.getheaders()}
        return r.status, hdrs, run.parse_body(hdrs.get("content-type", ""), body, m.get("id"))
    finally:
        conn.close()


def load_phase(p, url: str, m: dict, proto: str, session: str | None, needles: list[str], pid: str) -> dict:
    run.NEEDLES[pid] = needles
    saved = run.headers
    run.headers = headers  # the load generator's headers: Mcp-Name for resources/read too
    try:
        return run.load(p, url, m, proto, session, ARGS.conns, pid)
    finally:
        run.headers = saved


def bench_server(s: dict, phs: list[dict], rnd: int, out: list) -> None:
    groups = [g for g in GROUPS if any(ph["group"] == g for ph in phs)]
    for g in groups:
        todo = [ph for ph in phs if ph["group"] == g]
        port = run.free_port()
        url = f"http://127.0.0.1:{port}/mcp"
        env = {**s["env"], **GROUPS[g], "WL_DATA": ARGS.data}
        errlog = open(Path(ARGS.outdir) / f"{s['name']}.stderr.log", "ab")
        t0 = time.monotonic()
        p = run.start(run.expand(s["cmd"], port), env, stdout=errlog, stderr=errlog)
        try:
            proto, session = probe(url, None, p, time.monotonic() + ARGS.ready_timeout)
            ready = time.monotonic() - t0
            idle = run.rss(run.tree(p.pid))
            run.log(f"[{s['name']}] {g}: ready in {ready * 1000:.0f} ms ({proto}), RSS {idle / 2**20:.1f} MiB")
            state = None
            for ph in todo:
                rec = {"server": s["name"], "lang": s["lang"], "phase": ph["id"], "w": ph["w"], "variant": ph["variant"],
                       "case": ph.get("case"), "round": rnd, "protocol": proto, "group": g, "ready_s": ready,
                       "idle_rss": idle, "loadavg_before": os.getloadavg()}
                try:
                    if ph.get("kind"):
                        snap = REDIS.snapshot() if s.get("redis") else None
                        r = stateful(ph, p, port)
                        if snap:
                            rec["redis"] = REDIS.delta(snap, stateful_ops(ph, r))
                        rec.update(r)
                        run.log(f"[{s['name']}] {ph['id']:18s} " + "  ".join(
                            f"{k} {v:.1f}" if isinstance(v, float) else f"{k} {v}" for k, v in r.items()))
                        rec["loadavg_after"] = os.getloadavg()
                        out.append(rec)
                        continue
                    if ph.get("modern_only") and proto != MODERN:
                        raise RuntimeError("MRTR needs the 2026-07-28 revision")
                    m = ph["make"](proto) if ph["make"] else round2(state)(proto)
                    st, _, r = post(url, m, proto, session)
                    if st != 200:
                        raise RuntimeError(f"HTTP {st}: {str(r)[:200]}")
                    res = result_of(r)
                    ph["check"](res)
                    if ph["id"] == "mrtr-round1":
                        state = res["requestState"]
                    rec["request_bytes"] = len(run.enc(m))
                    snap = REDIS.snapshot() if s.get("redis") else None
                    r = load_phase(p, url, m, proto, session, ph["needles"], ph["id"])
                    if snap:
                        rec["redis"] = REDIS.delta(snap, r.get("ok") or 0)
                    rec.update({k: r.get(k) for k in ("rps", "p50_us", "p99_us", "errors", "ok", "cpu_us_per_req",
                                                      "server_cpu", "client_cpu", "peak_rss", "first_error")})
                    run.log(f"[{s['name']}] {ph['id']:18s} {r['rps']:8.0f} req/s  p99 {r['p99_us']:8.0f} us  "
                            f"CPU/req {r.get('cpu_us_per_req') or 0:8.1f} us  server {r.get('server_cpu', 0) * 100:3.0f}%  "
                            f"peak RSS {r['peak_rss'] / 2**20:6.1f} MiB  errors {r['errors']}")
                    if p.poll() is not None:
                        raise RuntimeError("server died during the phase")
                except Exception as e:  # noqa: BLE001 - recorded, the next phase runs
                    rec["error"] = str(e)[:400]
                    run.log(f"[{s['name']}] {ph['id']} FAILED: {rec['error']}")
                rec["loadavg_after"] = os.getloadavg()
                out.append(rec)
        except Exception as e:  # noqa: BLE001
            for ph in todo:
                out.append({"server": s["name"], "lang": s["lang"], "phase": ph["id"], "w": ph["w"],
                            "variant": ph["variant"], "case": ph.get("case"), "round": rnd, "error": f"start: {e}"[:400]})
            run.log(f"[{s['name']}] {g}: FAILED to start: {e}")
        finally:
            run.stop(p)
            errlog.close()


def stateful(ph: dict, p, port: int) -> dict:
    """Workloads 6-8 (bench/wl_stateful.py): each checks its first answers before the load."""
    if ph["kind"] == "fanout":
        return wl_stateful.fanout(port, ph["n"], ARGS.fanout_events, ARGS.stateful_limit, p.pid)
    if ph["kind"] == "sessions":
        return wl_stateful.sessions(port, ph["n"], ARGS.conns, ARGS.stateful_limit, p.pid)
    return wl_stateful.tasks(port, ARGS.conns, ARGS.duration, ARGS.max_requests, p.pid)


def stateful_ops(ph: dict, r: dict) -> int:
    """The operations a stateful phase's Redis counts are divided by."""
    return {"fanout": r.get("events", 0) + 1, "sessions": r.get("sessions", 0)}.get(ph["kind"], r.get("tasks", 0))


class Redis:
    """A redis-server of the run's own (workload 10), and its INFO counters."""

    def __init__(self, outdir: str):
        import shutil
        exe = shutil.which("redis-server")
        if not exe:
            raise SystemExit("--redis: redis-server is not installed")
        self.port = run.free_port()
        self.p = subprocess.Popen([exe, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
                                   "--appendonly", "no", "--dir", outdir], stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL, start_new_session=True)
        self.url = f"redis://127.0.0.1:{self.port}"
        end = time.monotonic() + 10
        while time.monotonic() < end:
            try:
                self.info("server")
                return
            except OSError:
                time.sleep(0.05)
        raise SystemExit("redis-server did not start")

    def info(self, section: str = "everything") -> dict:
        import socket
        with socket.create_connection(("127.0.0.1", self.port), 2) as sock:
            sock.sendall(f"*2\r\n$4\r\nINFO\r\n${len(section)}\r\n{section}\r\n".encode())
            buf = b""
            while True:
                buf += sock.recv(65536)
                head, _, rest = buf.partition(b"\r\n")
                if head.startswith(b"$") and len(rest) >= int(head[1:]):
                    break
        out = {}
        for line in rest.decode().splitlines():
            if ":" in line and not line.startswith("#"):
                k, v = line.split(":", 1)
                out[k] = v
        return out

    def snapshot(self) -> dict:
        i = self.info("everything")
        cmds = {k[len("cmdstat_"):]: int(v.split("calls=")[1].split(",")[0]) for k, v in i.items()
                if k.startswith("cmdstat_")}
        keys = sum(int(v.split("keys=")[1].split(",")[0]) for k, v in i.items() if k.startswith("db"))
        return {"cmds": cmds, "in": int(i["total_net_input_bytes"]), "out": int(i["total_net_output_bytes"]),
                "mem": int(i["used_memory"]), "keys": keys, "cpu": run.cpu_s([self.p.pid])}

    def delta(self, before: dict, ops: int) -> dict:
        """Per operation: Redis commands (by name), bytes in and out, used memory; INFO's own calls
        (two per snapshot pair) are taken out."""
        after = self.snapshot()
        cmds = {k: v - before["cmds"].get(k, 0) for k, v in after["cmds"].items()}
        cmds["info"] = cmds.get("info", 0) - 1
        cmds = {k: v for k, v in cmds.items() if v > 0}
        n = max(ops, 1)
        return {"ops": ops, "commands": cmds, "commands_per_op": sum(cmds.values()) / n,
                "bytes_in_per_op": (after["in"] - before["in"]) / n, "bytes_out_per_op": (after["out"] - before["out"]) / n,
                "memory_per_op": (after["mem"] - before["mem"]) / n, "keys_added": after["keys"] - before["keys"],
                "used_memory": after["mem"], "redis_cpu_us_per_op": (after["cpu"] - before["cpu"]) / n * 1e6,
                "redis_cpu_us_per_command": (after["cpu"] - before["cpu"]) * 1e6 / max(sum(cmds.values()), 1)}


# ----------------------------------------------------------------------------------------- callgrind

def callgrind(phs: list[dict], a: argparse.Namespace) -> dict:
    """oxmcp-rust under callgrind, per phase: instructions per request and the top functions."""
    import glob
    import tempfile

    from callgrind import self_costs
    res = {}
    srv = next(s for s in servers(a) if s["name"] == a.callgrind_server)
    for g in GROUPS:
        todo = [ph for ph in phs if ph["group"] == g and ph["w"] in srv["can"]]
        if not todo:
            continue
        port = run.free_port()
        url = f"http://127.0.0.1:{port}/mcp"
        prefix = tempfile.mktemp(prefix="oxmcp-wl-callgrind-")
        env = {**os.environ, **srv["env"], **GROUPS[g], "WL_DATA": a.data}
        argv = ["valgrind", "--tool=callgrind", "--compress-strings=no", "--compress-pos=no",
                f"--callgrind-out-file={prefix}", *[c.format(port=port) for c in srv["cmd"]]]
        p = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        try:
            proto, session = probe(url, MODERN, p, time.monotonic() + 180)
            state = None
            for ph in todo:
                if ph.get("kind"):
                    for old in glob.glob(prefix + ".*"):
                        os.unlink(old)

                    def mark(what: str) -> None:
                        subprocess.run(["callgrind_control", "-z" if what == "start" else "-d", str(p.pid)],
                                       capture_output=True, check=True, timeout=120)
                    kind = ph["kind"]
                    if kind == "fanout":
                        r = wl_stateful.fanout(port, min(ph["n"], 100), 5, 300, p.pid, mark)
                    elif kind == "sessions":
                        r = wl_stateful.sessions(port, min(ph["n"], 300), 4, 600, p.pid, mark)
                    else:
                        r = wl_stateful.tasks(port, 4, 5.0, 200, p.pid, mark)
                    # The counters cover the measured part only: the fan-out's events without its check.
                    ok = r["events"] if kind == "fanout" else stateful_ops(ph, r)
                    unit = {"fanout": f"event to {r.get('listeners')} listeners", "sessions": "session (initialize + "
                            "initialized + one call)"}.get(kind, f"task ({r.get('polls_per_task', 0):.1f} polls)")
                else:
                    unit = "request"
                    m = ph["make"](proto) if ph["make"] else round2(state)(proto)
                    st, _, r = post(url, m, proto, session)
                    rr = result_of(r)
                    ph["check"](rr)
                    if ph["id"] == "mrtr-round1":
                        state = rr["requestState"]
                    n = a.cg_requests_large if ph["variant"] == "large" or ph["w"] == 3 else a.cg_requests
                    with tempfile.NamedTemporaryFile("wb", suffix=".json", delete=False) as f:
                        f.write(run.enc(m))
                    lg = [a.loadgen, "--url", url, "--body-file", f.name, "-c", "2", "-d", "600", "-w", "0", "--timeout", "120"]
                    for k, v in headers(m, proto, session).items():
                        lg += ["-H", f"{k}: {v}"]
                    for nd in ph["needles"]:
                        lg += ["--expect", nd]
                    subprocess.run([*lg, "--max-requests", str(max(10, n // 10))], capture_output=True, check=True, timeout=900)
                    for old in glob.glob(prefix + ".*"):
                        os.unlink(old)
                    subprocess.run(["callgrind_control", "-z", str(p.pid)], capture_output=True, check=True, timeout=120)
                    r = subprocess.run([*lg, "--max-requests", str(n)], capture_output=True, text=True, check=True, timeout=900)
                    ok = json.loads(r.stdout)["ok"]
                    subprocess.run(["callgrind_control", "-d", str(p.pid)], capture_output=True, check=True, timeout=120)
                    os.unlink(f.name)
                dumps = sorted(glob.glob(prefix + ".*"), key=os.path.getmtime)
                costs = self_costs(dumps[-1])
                total = sum(costs.values())
                res[ph["id"]] = {"requests": ok, "unit": unit, "instructions_per_request": round(total / ok),
                                 "top": [[name[:160], v // ok, round(100 * v / total, 1)] for name, v in costs.most_common(a.top)]}
                run.log(f"[callgrind] {ph['id']:18s} {total / ok:12.0f} instructions per {unit}")
        except Exception as e:  # noqa: BLE001
            run.log(f"[callgrind] {g} FAILED: {e}")
        finally:
            run.stop(p)
            for old in glob.glob(prefix + "*"):
                os.unlink(old)
    return res


# ----------------------------------------------------------------------------------------- main

ARGS: argparse.Namespace
REDIS: Redis | None = None


def main() -> None:
    global ARGS
    ob = os.environ.get("OXMCP_BENCH_DIR", "/tmp/oxmcp-bench")
    native = f"{ob}/node/oxmcp.node"
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="0.5 s warm-up + 1 s per phase")
    ap.add_argument("--only", help="servers, comma-separated (default: all installed)")
    ap.add_argument("--workloads", default="1,2,3,4,5,6,7,8,9")
    ap.add_argument("--redis", action="store_true", help="workload 10: also oxmcp-rust-redis (1, 7, 8 through a "
                    "redis-server of this run's own)")
    ap.add_argument("--replicas", type=int, default=0, help="with --redis: also 1, 7 and 8 through this many "
                    "replicas of oxmcp-rust-redis behind nginx (round robin; bench/workloads/servers/wl_cluster.py)")
    ap.add_argument("--fanout-events", type=int, default=30, help="events per fan-out phase (quick: 10)")
    ap.add_argument("--stateful-limit", type=float, default=120.0, help="time limit of one stateful phase, s")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--duration", type=float, default=4.0)
    ap.add_argument("--warmup", type=float, default=1.0)
    ap.add_argument("-c", "--conns", type=int, default=16)
    ap.add_argument("--max-requests", type=int, default=2_000_000)
    ap.add_argument("--ready-timeout", type=float, default=90.0)
    ap.add_argument("--callgrind", action="store_true", help="also count oxmcp-rust's instructions per phase")
    ap.add_argument("--callgrind-only", action="store_true")
    ap.add_argument("--callgrind-server", default="oxmcp-rust", choices=["oxmcp-rust", "rmcp", "bare"],
                    help="the Rust server counted under callgrind (rmcp or bare: the peers' instructions per op)")
    ap.add_argument("--cg-requests", type=int, default=400)
    ap.add_argument("--cg-requests-large", type=int, default=60)
    ap.add_argument("--top", type=int, default=8)
    ap.add_argument("--server-cpus", default="0")
    ap.add_argument("--client-cpus", default="1")
    ap.add_argument("--loadgen", default=os.environ.get("OXMCP_LOADGEN", str(BENCH / "loadgen/target/release/loadgen")))
    ap.add_argument("--oxmcp-rust-bin", default=os.environ.get("OXMCP_WL_BIN", str(ROOT / "target/release/workload-server")))
    ap.add_argument("--oxmcp-python", default=os.environ.get("OXMCP_PYTHON", f"{ob}/venv/bin/python"))
    ap.add_argument("--oxmcp-node-native", default=os.environ.get("OXMCP_NATIVE", native if Path(native).exists() else ""))
    ap.add_argument("--node", default=os.environ.get("BENCH_NODE", "node"))
    ap.add_argument("--peers-python", default=os.environ.get("BENCH_PEERS_PYTHON", str(ROOT / ".cache/peers-py/v2/bin/python")))
    ap.add_argument("--peers-node-dir", default=os.environ.get("BENCH_NODE_DIR", str(ROOT / ".cache/peers-node")))
    ap.add_argument("--peers-bin", default=os.environ.get("WL_PEERS_BIN", str(WL / "rust/target/release")),
                    help="directory of wl_rmcp and wl_bare (cargo build --release in bench/workloads/rust)")
    ap.add_argument("--build-note", action="append", default=[], metavar="SERVER=TEXT",
                    help="how a server was built, shown beside its name (e.g. oxmcp-python='dev build'); a note "
                    "with 'dev' in it keeps the report from judging that server's targets")
    ap.add_argument("--out", default=None, help="result file (default bench/results/workloads-<timestamp>.json)")
    a = ap.parse_args()
    if a.quick:
        a.duration, a.warmup, a.fanout_events = 1.0, 0.5, 10
    ARGS = a
    run.ARGS = a  # run.load reads the pinning, durations and the load generator from here
    stamp = time.strftime("%Y%m%d-%H%M%S")
    out_path = Path(a.out or BENCH / "results" / f"workloads-{stamp}.json")
    a.outdir = str(BENCH / "results" / f"workloads-{stamp}")  # data and logs, never beside a kept result file
    Path(a.outdir).mkdir(parents=True, exist_ok=True)
    a.data = str(Path(a.outdir) / "data")
    data = gen_data(Path(a.data))
    global REDIS
    REDIS = Redis(a.outdir) if a.redis else None
    a.redis = REDIS.url if REDIS else None
    try:
        os.sched_setaffinity(0, {int(x) for x in a.client_cpus.split(",")})
    except (OSError, ValueError):
        pass
    ws = {int(x) for x in a.workloads.split(",")}
    phs = [ph for ph in phases(data) if ph["w"] in ws]
    table = servers(a)
    if a.only:
        want = a.only.split(",")
        table = [s for s in table if s["name"] in want or (s.get("redis") and "oxmcp-rust" in want)]
    avail, skipped = [], {}
    for s in table:
        miss = [p for p in s["needs"] if not Path(p).exists()]
        if miss:
            skipped[s["name"]] = f"not installed: {miss[0]}"
            run.log(f"SKIP {s['name']}: {skipped[s['name']]}")
        else:
            avail.append(s)
    meta = {"started": time.strftime("%Y-%m-%d %H:%M:%S %Z"), "argv": sys.argv, "uname": " ".join(os.uname()),
            "nproc": os.cpu_count(), "loadavg_start": os.getloadavg(),
            "uptime": subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip(),
            "commit": subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                                     text=True).stdout.strip(),
            "duration": a.duration, "warmup": a.warmup, "conns": a.conns, "rounds": a.rounds,
            "sizes": data["sizes"], "skipped": skipped,
            "builds": dict(n.split("=", 1) for n in a.build_note),
            "cannot": {s["name"]: {str(k): v for k, v in s.get("cannot", {}).items()} for s in table}}
    records: list = []
    if not a.callgrind_only:
        for rnd in range(a.rounds):
            order = avail[rnd % len(avail):] + avail[:rnd % len(avail)] if avail else []
            for s in order:
                bench_server(s, [ph for ph in phs if ph["w"] in s["can"]], rnd, records)
    cg = {}
    if (a.callgrind or a.callgrind_only) and any(s["name"] == a.callgrind_server for s in avail):
        cg = callgrind(phs, a)
    if REDIS:
        run.stop(REDIS.p)
    meta["loadavg_end"] = os.getloadavg()
    meta["uptime_end"] = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    out_path.parent.mkdir(parents=True, exist_ok=True)
    out_path.write_text(json.dumps({"meta": meta, "records": records, "callgrind": cg}, indent=1))
    run.log(f"results in {out_path}")
    print(out_path)


if __name__ == "__main__":
    main()
