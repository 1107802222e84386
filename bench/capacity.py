#!/usr/bin/env python3
"""The capacity model of docs/CAPACITY.md, recomputed from workload result files.

    python3 bench/capacity.py bench/workloads/runs/A.json [B.json ...]          # print it
    python3 bench/capacity.py bench/workloads/runs/A.json ... --write           # into docs/CAPACITY.md

Only measured inputs (bench/workloads.py records; a later file wins for the same server and
phase): the server's CPU per operation (its utime + stime over the measured window / operations,
one process on one core), RSS per open session / listen stream / kept task, and, from the
oxmcp-rust-redis records, Redis commands, bytes and used memory per operation and redis-server's
own CPU per command. The mix and the planning rules (below, MIX and PLAN) are assumptions, stated
as such in the document.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BEGIN, END = "<!-- capacity:begin -->", "<!-- capacity:end -->"
OURS = ["oxmcp-rust", "oxmcp-python", "oxmcp-node"]

# The stated mix, per active client. Every figure here is an assumption of the model, not a
# measurement; change it and rerun.
MIX = {
    "calls_per_s": 0.1,          # one tools/call every 10 s (a ~10 KB structured result: records-small)
    "legacy_share": 0.5,         # half the clients hold a legacy session (the other half: modern, stateless)
    "session_renew_s": 600,      # a legacy client initializes a new session every 10 minutes
    "listen_share": 0.5,         # half the clients keep one subscriptions/listen stream open
    "events_per_s": 1.0,         # resource updates per second on the whole deployment, each to every listener
    "task_share": 0.01,          # 1 % of the calls are tasks (create + polls + result)
    "task_ttl_s": 3600,          # finished tasks are kept for their TTL (the default: 1 h)
}
PLAN = {"cpu_target": 0.7,       # plan replicas at 70 % of their core
        "redis_target": 0.5,     # and Redis at 50 % of its one thread
        "replica_memory": 4e9}   # a replica holding more than this is memory-bound
SCALES = [10_000, 100_000, 1_000_000]


def latest(paths: list[str]) -> tuple[dict, list[dict]]:
    recs: dict[tuple[str, str], dict] = {}
    metas = []
    for p in paths:
        d = json.loads(Path(p).read_text())
        rp = Path(p).resolve()
        metas.append({"file": str(rp.relative_to(ROOT)) if rp.is_relative_to(ROOT) else p,
                      "started": d["meta"]["started"], "uptime": d["meta"].get("uptime", ""),
                      "builds": d["meta"].get("builds", {}),
                      "records": {(r["server"], r["phase"]): r for r in d["records"] if "error" not in r}})
        for r in d["records"]:
            if "error" not in r:
                recs[(r["server"], r["phase"])] = r
    return recs, metas


def get(recs, server, phase, key):
    r = recs.get((server, phase))
    return None if r is None else r.get(key)


def rdis(recs, phase, key):
    r = recs.get(("oxmcp-rust-redis", phase))
    return None if r is None or "redis" not in r else r["redis"].get(key)


def fmt(x, nd=0, unit=""):
    if x is None:
        return "not measured"
    return f"{x:,.{nd}f}{unit}"


def size(b):
    if b is None:
        return "not measured"
    for u, f in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if abs(b) >= f:
            return f"{b / f:,.1f} {u}"
    return f"{b:,.0f} B"


def model(recs, server: str, n: int) -> dict:
    """Replicas (one core each) and Redis for n active clients of MIX on `server`."""
    m = MIX
    call = get(recs, server, "records-small", "cpu_us_per_req")
    init = get(recs, server, "sessions-10000", "cpu_us_per_init")
    scall = get(recs, server, "sessions-10000", "cpu_us_per_session_call")
    task = get(recs, server, "tasks-c16", "cpu_us_per_task")
    deliver = get(recs, server, "fanout-1000", "cpu_us_per_delivery")
    need = [call, init, scall, task, deliver]
    if any(x is None for x in need):
        return {"missing": True}
    legacy, modern = n * m["legacy_share"], n * (1 - m["legacy_share"])
    calls = n * m["calls_per_s"]
    tasks = calls * m["task_share"]
    listeners = n * m["listen_share"]
    cpu_us = (modern * m["calls_per_s"] * (1 - m["task_share"]) * call
              + legacy * m["calls_per_s"] * (1 - m["task_share"]) * scall
              + legacy / m["session_renew_s"] * init
              + tasks * task
              + m["events_per_s"] * listeners * deliver)
    cores = cpu_us / 1e6
    replicas_cpu = max(1, -(-cores // PLAN["cpu_target"]))
    per_session = get(recs, server, "sessions-10000", "rss_per_session") or 0
    per_listener = get(recs, server, "fanout-1000", "rss_per_listener") or 0
    per_task = max(0, get(recs, server, "tasks-c16", "rss_per_task") or 0)
    kept_tasks = tasks * m["task_ttl_s"]
    mem = legacy * per_session + listeners * per_listener + kept_tasks * per_task
    base = get(recs, server, "records-small", "idle_rss") or 0
    out = {"calls": calls, "cores": cores, "replicas": int(replicas_cpu), "memory": mem + base * replicas_cpu,
           "legacy": legacy, "listeners": listeners, "kept_tasks": kept_tasks}
    # Redis: per operation counts of the Rust server with OXMCP_REDIS_URL (the same core in every language).
    rc = {k: rdis(recs, p, "commands_per_op") for k, p in
          (("call", "records-small"), ("session", "sessions-10000"), ("task", "tasks-c16"), ("event", "fanout-1000"))}
    rcpu = rdis(recs, "sessions-10000", "redis_cpu_us_per_command")
    rmem = {k: rdis(recs, p, "memory_per_op") for k, p in
            (("session", "sessions-10000"), ("task", "tasks-c16"))}
    if all(v is not None for v in rc.values()) and rcpu:
        # A session's count covers three requests (initialize, initialized, one call): each later
        # call in a session is charged a third of it, the whole count once per renewal.
        modern_calls = modern * m["calls_per_s"] * (1 - m["task_share"])
        session_calls = legacy * m["calls_per_s"] * (1 - m["task_share"])
        cmds = (modern_calls * rc["call"] + session_calls * rc["session"] / 3
                + legacy / m["session_renew_s"] * rc["session"] + tasks * rc["task"]
                + m["events_per_s"] * rc["event"] * out["replicas"])
        out["redis_cmds"] = cmds
        out["redis_cpu"] = cmds * rcpu / 1e6
        out["redis_mem"] = legacy * max(rmem["session"] or 0, 0) + kept_tasks * max(rmem["task"] or 0, 0)
    return out


def render(recs, metas) -> str:
    L = [f"Recomputed by `python3 bench/capacity.py {' '.join(x['file'] for x in metas)} --write` on "
         f"{time.strftime('%Y-%m-%d')}. Inputs measured in:", ""]
    for x in metas:
        b = "; ".join(f"{k}: {v}" for k, v in x["builds"].items())
        L.append(f"- `{x['file']}` ({x['started']}; `{x['uptime']}`{'; builds: ' + b if b else ''})")
    L += ["", "### Per-core throughput (one server process on one core; operations per CPU-second = 10⁶ ÷ CPU µs per "
          "operation)", "",
          "| phase | " + " | ".join(OURS) + " |", "|---" * (len(OURS) + 1) + "|"]
    phases = []
    for (_, p) in recs:
        if p not in phases:
            phases.append(p)
    for p in phases:
        cells = []
        for s in OURS:
            c = get(recs, s, p, "cpu_us_per_req")
            if p.startswith("fanout"):
                c = get(recs, s, p, "cpu_us_per_delivery")
            cells.append(fmt(1e6 / c) if c else "–")
        if any(c != "–" for c in cells):
            L.append(f"| {p}{' (deliveries)' if p.startswith('fanout') else ''} | " + " | ".join(cells) + " |")
    L += ["", "### Memory per held item (server RSS growth ÷ items)", "",
          "| item | phase | " + " | ".join(OURS) + " |", "|---|---|" + "---|" * len(OURS)]
    for item, p, k in (("legacy session", "sessions-10000", "rss_per_session"),
                       ("listen stream", "fanout-1000", "rss_per_listener"),
                       ("finished task (kept for its TTL)", "tasks-c16", "rss_per_task")):
        L.append(f"| {item} | {p} | " + " | ".join(size(get(recs, s, p, k)) for s in OURS) + " |")
    L += ["", "### Redis per operation (oxmcp-rust with `OXMCP_REDIS_URL`, `INFO commandstats` before and after)", "",
          "| operation | phase | commands | bytes to Redis | bytes from Redis | used memory | redis-server CPU µs |",
          "|---|---|---|---|---|---|---|"]
    for op, p in (("stateless tools/call (10 KB result)", "records-small"), ("stateless tools/call (100 KB result)",
                                                                             "records-large"),
                  ("legacy session: initialize + initialized + one call", "sessions-10000"),
                  ("task: create + polls + result", "tasks-c16"), ("fan-out event (1,000 listeners, one replica)",
                                                                   "fanout-1000")):
        r = recs.get(("oxmcp-rust-redis", p))
        if not r or "redis" not in r:
            L.append(f"| {op} | {p} | not measured | | | | |")
            continue
        d = r["redis"]
        top = ", ".join(f"{k} {v / max(d['ops'], 1):.2f}" for k, v in sorted(d["commands"].items(), key=lambda kv: -kv[1])[:4])
        L.append(f"| {op} | {p} | {d['commands_per_op']:.2f} ({top}) | {d['bytes_in_per_op']:,.0f} | "
                 f"{d['bytes_out_per_op']:,.0f} | {size(d['memory_per_op'])} | {d.get('redis_cpu_us_per_op', 0):.1f} |")
    L += ["", "### The model", "",
          "Assumed mix per active client (assumptions, not measurements): "
          f"one `tools/call` every {1 / MIX['calls_per_s']:.0f} s (a 10 KB structured result), "
          f"{MIX['legacy_share']:.0%} of clients in a legacy session renewed every {MIX['session_renew_s'] // 60} min, "
          f"{MIX['listen_share']:.0%} with one `subscriptions/listen` stream open, {MIX['events_per_s']:g} resource "
          f"update per second on the deployment to every listener, {MIX['task_share']:.0%} of calls as tasks "
          f"kept {MIX['task_ttl_s'] // 60} min. Replicas are one process on one core planned at "
          f"{PLAN['cpu_target']:.0%} CPU; Redis at {PLAN['redis_target']:.0%} of its thread. A later call in a legacy "
          "session is costed with the measured CPU of `initialized` + one call, and a third of the session's "
          "measured Redis commands (that count covers three requests). \"Replica memory\" is every "
          "replica's idle RSS plus the sessions, streams and kept tasks it holds.", ""]
    for s in OURS:
        notes = [x["builds"][s] for x in metas if s in x["builds"]]
        L += [f"#### {s}" + (f" (from {'; '.join(dict.fromkeys(notes))}: "
                             "dev builds are unoptimised, their figures upper bounds)" if any("dev" in n for n in notes)
                             else ""), "", "| active clients | calls/s | CPU cores | replicas | replica memory (all) | Redis commands/s "
              "| Redis CPU (of one thread) | Redis memory | first bottleneck |", "|---|---|---|---|---|---|---|---|---|"]
        for n in SCALES:
            o = model(recs, s, n)
            if o.get("missing"):
                L.append(f"| {n:,} | not measured (a workload of the mix is missing for {s}) | | | | | | | |")
                continue
            rcpu = o.get("redis_cpu")
            if rcpu is None:
                neck = "Redis not measured"
            elif rcpu > PLAN["redis_target"]:
                neck = (f"Redis single thread ({rcpu:.0%} of a core): shard sessions/tasks or use a Redis "
                        "cluster before adding replicas")
            else:
                per_rep = o["memory"] / o["replicas"]
                neck = (f"replica CPU ({size(per_rep)} per replica; Redis at {rcpu:.1%} of its thread)"
                        if per_rep < PLAN["replica_memory"] else
                        f"replica memory ({size(per_rep)} per replica, over {size(PLAN['replica_memory'])})")
            L.append(f"| {n:,} | {fmt(o['calls'])} | {o['cores']:.2f} | {o['replicas']} | {size(o['memory'])} | "
                     f"{fmt(o.get('redis_cmds'))} | {fmt(rcpu * 100 if rcpu is not None else None, 1, ' %')} | "
                     f"{size(o.get('redis_mem'))} | {neck} |")
        L.append("")
    scaled = scaled_out(metas)
    L += scaled
    balancer = ("measured above for calls, sessions and tasks, not for listen streams" if scaled
                else "not measured: no nginx run is recorded")
    L += [f"Not in the model: the balancer in front of the replicas ({balancer}; at "
          "1M clients of this mix it holds 500,000 open listen streams) and Redis pub/sub's output to many replicas "
          "beyond the measured one (each event is published once and delivered once per subscribed replica; "
          "counted above as one command per replica). The open listen streams are most of the replicas' memory "
          "(RSS per stream at 1,000 streams, above).", ""]
    return "\n".join(L)


def scaled_out(metas) -> list[str]:
    """Workload 10 through N replicas behind nginx (`bench/workloads.py --redis --replicas N`) beside one replica
    of the same run: CPU per operation of the whole deployment (replicas and nginx), Redis commands per operation."""
    L: list[str] = []
    for x in metas:
        recs = x["records"]
        many = sorted({s for s, _ in recs if s.startswith("oxmcp-rust-redis-") and s.endswith("r")})
        if not many:
            continue
        if not L:
            L = ["### Through replicas behind nginx (workload 10: round robin, sessions and tasks found through "
                 "Redis)", "",
                 "CPU µs per operation is the whole deployment's (every replica, nginx and its access log; all pinned "
                 "to one core, so it adds up the work rather than spreading it): what the balancer and the other "
                 "replicas' Redis look-ups cost beside one replica of the same run. Operations per second are "
                 "bounded by that one core.", ""]
        L += [f"From `{x['file']}` ({x['started']}; `{x['uptime']}`):", "",
              "| phase | server | CPU µs/op | ops/s | Redis commands/op | p99 µs |", "|---|---|---|---|---|---|"]
        for p, k in (("records-small", "cpu_us_per_req"), ("records-large", "cpu_us_per_req"),
                     ("sessions-10000", "cpu_us_per_init"), ("tasks-c16", "cpu_us_per_task")):
            for s in ["oxmcp-rust-redis", *many]:
                r = recs.get((s, p))
                if r is None:
                    continue
                rate = r.get("rps") or r.get("init_per_s") or r.get("tasks_per_s")
                cmds = r["redis"].get("commands_per_op") if "redis" in r else None
                L.append(f"| {p} | {s} | {fmt(r.get(k), 1)} | {fmt(rate)} | {fmt(cmds, 2)} | "
                         f"{fmt(r.get('p99_us'))} |")
        L.append("")
    return L


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if not args:
        raise SystemExit(__doc__)
    recs, metas = latest(args)
    body = render(recs, metas)
    if "--write" in sys.argv:
        doc = ROOT / "docs" / "CAPACITY.md"
        text = doc.read_text()
        text = text[:text.index(BEGIN) + len(BEGIN)] + "\n" + body + "\n" + text[text.index(END):]
        doc.write_text(text)
        print(f"wrote {doc}")
    else:
        print(body)


if __name__ == "__main__":
    main()
