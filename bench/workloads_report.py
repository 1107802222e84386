#!/usr/bin/env python3
"""Tables and charts of bench/workloads.py result files.

    python3 bench/workloads_report.py RUN.json [CALLGRIND.json ...]      # print the Markdown
    python3 bench/workloads_report.py RUN.json --write                   # into bench/RESULTS.md

Each file is rendered on its own (a ratio is always between two servers of one round of one
file).
With `--write`, the section between the workload markers of bench/RESULTS.md is replaced and
PNG charts go to bench/workloads/charts/ (matplotlib from $WL_PLOT_PYTHON's environment or this
interpreter's; without it, the section says so).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent
BEGIN, END = "<!-- workloads:begin -->", "<!-- workloads:end -->"
ORDER = ["oxmcp-rust", "oxmcp-rust-redis", "oxmcp-rust-redis-3r", "rmcp", "bare", "oxmcp-python", "fastmcp", "pysdk", "oxmcp-node", "ts-sdk"]
TITLES = {
    1: "1. `tools/call` with a structured result (~100 KB large, ~10 KB small; structuredContent + text, outputSchema)",
    2: "2. `resources/read` of a 1 MiB blob (base64) and a 1 MiB text (small: 1/10)",
    3: "3. `tools/list` of 1,000 tools on one page",
    4: "4. `resources/read` through 4,096 (small: 410) resource templates: last-registered (worst) and middle (typical)",
    5: "5. `tools/call` with a ~50 KB (small ~5 KB) nested argument validated against a deep schema ($ref, oneOf)",
    6: "6. one `notify_resource_updated` fanned out to 1,000 (small: 100) open `subscriptions/listen` streams",
    7: "7. 10,000 (small: 1,000) legacy sessions: `initialize`, then `notifications/initialized` + one `tools/call` in each",
    8: "8. tasks at c=16: `tools/call` creating a task, `tasks/get` until completed (with its result)",
    9: "9. MRTR: round 1 (`input_required`) and round 2 (the retry with the answer)",
}
# Workloads whose figures are not req/s · CPU per call · p99: their columns (key, heading, unit, digits).
COLS = {
    6: [("last_p50_us", "last listener µs (p50)", "", 0), ("last_max_us", "max", "", 0),
        ("cpu_us_per_event", "CPU µs/event", "", 0), ("cpu_us_per_delivery", "CPU µs/listener", "", 1),
        ("rss_per_listener", "RSS B/listener", "", 0)],
    7: [("init_per_s", "initialize/s", "", 0), ("cpu_us_per_init", "CPU µs/initialize", "", 1),
        ("cpu_us_per_session_call", "CPU µs/(initialized + call)", "", 1), ("rss_per_session", "RSS B/session", "", 0)],
    8: [("tasks_per_s", "tasks/s", "", 0), ("cpu_us_per_task", "CPU µs/task", "", 1),
        ("polls_per_task", "polls/task", "", 1), ("rss_per_task", "RSS B/task kept", "", 0)],
}
SHORT = {1: "a ~100 KB structured result", 2: "1 MiB resources", 3: "a 1,000-tool list", 4: "resource templates",
         5: "a deep argument schema", 6: "fan-out to listen streams", 7: "legacy sessions", 8: "tasks", 9: "MRTR"}
PEERS = {"Python": ["fastmcp", "pysdk"], "Node": ["ts-sdk"], "Rust": ["rmcp"]}
OURS = {"Python": "oxmcp-python", "Node": "oxmcp-node", "Rust": "oxmcp-rust"}


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def fmt(x, unit="", nd=0):
    if x is None:
        return "–"
    if isinstance(x, float) and abs(x) < 10 and nd == 0:
        return f"{x:.1f}{unit}"
    return f"{x:,.{nd}f}{unit}"


def load(paths):
    runs = [json.loads(Path(p).read_text()) for p in paths]
    return runs


def cell(recs, server, phase, key):
    vals = [r.get(key) for r in recs if r["server"] == server and r["phase"] == phase and "error" not in r]
    return med(vals)


def ratio_rounds(recs, a, b, phase, key, invert=False):
    """Per round a/b of `key` (b/a when invert), then the median and range."""
    out = []
    for rnd in sorted({r["round"] for r in recs}):
        x = cell([r for r in recs if r["round"] == rnd], a, phase, key)
        y = cell([r for r in recs if r["round"] == rnd], b, phase, key)
        if x and y:
            out.append(y / x if invert else x / y)
    return out


def rfmt(rs):
    if not rs:
        return "–"
    m = statistics.median(rs)
    return f"{m:.2f}×" if len(rs) == 1 else f"{m:.2f}× [{min(rs):.2f}–{max(rs):.2f}]"


def render(runs, charts: dict[int, str] | None, plot_note: str) -> str:
    recs = [r for run in runs for r in run["records"]]
    meta = runs[0]["meta"]
    cg = dict(runs[0].get("callgrind") or {})
    phases = []
    for r in recs:
        if (r["w"], r["phase"]) not in phases:
            phases.append((r["w"], r["phase"]))
    servers = [s for s in ORDER if any(r["server"] == s for r in recs)]
    L = []
    argv = " ".join(["python3", "bench/workloads.py", *meta["argv"][1:]])
    L += [f"Run of {meta['started']} at commit `{meta['commit']}`: `{argv}`; {meta['warmup']:g} s warm-up + "
          f"{meta['duration']:g} s per phase, {meta['conns']} connections, {meta['rounds']} round(s); servers on CPU 0, "
          "load generator on CPU 1.",
          f"Machine: {meta['nproc']} vCPUs, `{meta['uname']}`; `uptime` at the start: `{meta['uptime']}`; at the end: "
          f"`{meta.get('uptime_end', '?')}`. The machine was shared with other agents' compilers during the run: "
          "req/s and p99 are noisy (a server that did not have its core shows a low \"server CPU\" share); CPU per "
          "call is steadier, the ratios between servers of one run are what counts, and the instruction counts "
          "(callgrind) are the deterministic view.",
          f"Payloads: {', '.join(f'{k} {v / 1000:.0f} KB' for k, v in meta['sizes'].items())} (JSON, compact).", ""]
    if meta.get("skipped"):
        L += ["Not measured (not installed): " + "; ".join(f"{k}: {v}" for k, v in meta["skipped"].items()), ""]
    for w in sorted({w for w, _ in phases}):
        L += [f"#### {TITLES.get(w, w)}", ""]
        if charts and w in charts:
            L += [f"![workload {w}](workloads/charts/{Path(charts[w]).name})", ""]
        phs = [p for ww, p in phases if ww == w]
        cols = COLS.get(w)
        head = "| server | " + " | ".join(
            f"{p}: " + (" · ".join(c[1] for c in cols) if cols else
                        "req/s · CPU µs/call · p99 µs" + (" · peak RSS" if w == 2 else "")) for p in phs) + " |"
        L += [head, "|---" * (len(phs) + 1) + "|"]
        builds = meta.get("builds", {})
        for s in servers:
            row = [f"{s} ({builds[s]})" if s in builds else s]
            for p in phs:
                rr = [r for r in recs if r["server"] == s and r["phase"] == p]
                if not rr:
                    why = (meta.get("cannot", {}).get(s, {}) or {}).get(str(w))
                    row.append(f"not served: {why}" if why else "–")
                    continue
                errs = [r["error"] for r in rr if "error" in r]
                if len(errs) == len(rr):
                    row.append("failed: " + errs[0][:90].replace("|", "/"))
                    continue
                if cols:
                    txt = " · ".join(fmt(cell(rr, s, p, k), u, nd) for k, _, u, nd in cols)
                    part = [r for r in rr if r.get("complete") is False]
                    if part:
                        txt += f" (only {part[0]['sessions']:,} sessions within the phase's time limit)"
                    row.append(txt)
                    continue
                txt = (f"{fmt(cell(rr, s, p, 'rps'))} · {fmt(cell(rr, s, p, 'cpu_us_per_req'), nd=1)} · "
                       f"{fmt(cell(rr, s, p, 'p99_us'))}")
                if w == 2:
                    txt += f" · {fmt((cell(rr, s, p, 'peak_rss') or 0) / 2**20, ' MiB', 1)}"
                e = sum(r.get("errors") or 0 for r in rr if "error" not in r)
                if e:
                    txt += f" ({e} errors)"
                sc = cell(rr, s, p, "server_cpu")
                if sc is not None and sc < 0.6:
                    txt += f" (server CPU {sc * 100:.0f}%)"
                row.append(txt)
            L.append("| " + " | ".join(row) + " |")
        L.append("")
        # Ratios within the run.
        rows = []
        for lang, ours in OURS.items():
            for peer in PEERS[lang] + (["bare", "oxmcp-rust-redis"] if lang == "Rust" else []):
                for p in phs:
                    thr = ratio_rounds(recs, ours, peer, p, "rps")
                    cpu = ratio_rounds(recs, ours, peer, p, "cpu_us_per_req", invert=True)
                    if thr or cpu:
                        rows.append(f"| {ours} / {peer} | {p} | {rfmt(thr)} | {rfmt(cpu)} |")
        if rows:
            L += ["| ratio (same run) | phase | req/s: ours ÷ peer | CPU per call: peer ÷ ours |", "|---|---|---|---|", *rows, ""]
        cgrows = [(p, cg[p]) for p in phs if p in cg]
        if cgrows:
            L += ["oxmcp-rust, instructions per operation (callgrind, user space only) and where they go (own "
                  "instructions of the top functions, per operation):", ""]
            for p, c in cgrows:
                unit = c.get("unit", "request")
                L.append(f"- **{p}**: {c['instructions_per_request']:,} instructions per {unit} "
                         f"({c['requests']} measured)")
                for name, v, pct in c["top"][:6]:
                    L.append(f"  - {v:,} ({pct}%) `{name[:110]}`")
            L.append("")
    L += redis_table(recs)
    L += targets(recs, cg, meta)
    if plot_note:
        L += ["", plot_note]
    return "\n".join(L)


def redis_table(recs) -> list[str]:
    """Workload 10: the Rust server with OXMCP_REDIS_URL against the same server in memory."""
    rr = [r for r in recs if r.get("redis") and "error" not in r]
    if not rr:
        return []
    L = ["#### 10. Through Redis: oxmcp-rust with OXMCP_REDIS_URL against oxmcp-rust in memory", "",
         "One replica (oxmcp-rust-redis), and three behind nginx round robin (oxmcp-rust-redis-3r, "
         "`--replicas 3`: CPU per op is the whole deployment's, nginx included, all on one core).", "",
         "| phase | server | in memory: ops/s · CPU µs/op | Redis: ops/s · CPU µs/op | CPU ratio | Redis commands/op "
         "(the top ones) | bytes to/from Redis per op | Redis memory per op |", "|---|---|---|---|---|---|---|---|"]
    for r in sorted(rr, key=lambda r: (r["phase"], r["server"])):
        p = r["phase"]
        mem = [x for x in recs if x["server"] == "oxmcp-rust" and x["phase"] == p and "error" not in x]
        m = mem[0] if mem else {}
        d = r["redis"]
        top = ", ".join(f"{k} {v / max(d['ops'], 1):.2f}" for k, v in sorted(d["commands"].items(), key=lambda kv: -kv[1])[:4])
        ratio = (r["cpu_us_per_req"] / m["cpu_us_per_req"]) if m.get("cpu_us_per_req") and r.get("cpu_us_per_req") else None
        L.append(f"| {p} | {r['server']} | {fmt(m.get('rps'))} · {fmt(m.get('cpu_us_per_req'), nd=1)} | {fmt(r.get('rps'))} · "
                 f"{fmt(r.get('cpu_us_per_req'), nd=1)} | {fmt(ratio, '×', 2)} | {d['commands_per_op']:.2f} ({top}) | "
                 f"{d['bytes_in_per_op']:,.0f} / {d['bytes_out_per_op']:,.0f} | {d['memory_per_op']:,.0f} B |")
    return L + [""]


def targets(recs, cg, meta) -> list[str]:
    L = ["#### Targets", "",
         "| target | phase | measured (same run) | met? |", "|---|---|---|---|"]
    phases = sorted({(r["w"], r["phase"]) for r in recs})

    dev = {s for s, b in meta.get("builds", {}).items() if "dev" in b}

    def row(name, p, val, ok):
        if any(d in name for d in dev) or any(d.replace("oxmcp-", "oxmcp-").lower() in name.lower() for d in dev):
            L.append(f"| {name} | {p} | {val} | not judged: an unoptimised (dev-profile) build |")
            return
        L.append(f"| {name} | {p} | {val} | {'yes' if ok else ('no' if ok is not None else '–')} |")

    for lang, ours in (("Python", "oxmcp-python"), ("Node", "oxmcp-node")):
        for w, p in phases:
            best = None
            for peer in PEERS[lang]:
                rps = cell(recs, peer, p, "rps")
                if rps and (best is None or rps > best[1]):
                    best = (peer, rps)
            if best:
                # Per-core throughput: the peer's CPU per operation ÷ ours. On this shared machine the
                # servers get 15-60 % of their core, so req/s measures the machine, not the server.
                rs = ratio_rounds(recs, ours, best[0], p, "cpu_us_per_req", invert=True)
                if rs:
                    row(f"oxmcp-{lang} ≥ 10× the fastest {lang} peer ({best[0]}), per-core throughput (CPU per "
                        "op, peer ÷ ours)", p, rfmt(rs), statistics.median(rs) >= 10)
    for w, p in phases:
        rs = ratio_rounds(recs, "oxmcp-rust", "rmcp", p, "cpu_us_per_req", invert=True)
        if rs:
            row("oxmcp-Rust ≥ 3× rmcp, per-core throughput (CPU per op, rmcp ÷ ours)", p, rfmt(rs),
                statistics.median(rs) >= 3)
    for w, p in phases:
        if w in (1, 2, 3):
            rs = ratio_rounds(recs, "oxmcp-rust", "bare", p, "cpu_us_per_req")
            if rs:
                row("oxmcp-Rust CPU per call ≤ 1.5× the bare server's", p, rfmt(rs), statistics.median(rs) <= 1.5)
    # Flat cost: per byte from the small to the large variant; per read from 410 to 4,096 templates.
    sizes = meta["sizes"]
    pairs = [("records-large", "records-small", sizes.get("records_large"), sizes.get("records_small")),
             ("blob-large", "blob-small", 10, 1), ("text-large", "text-small", 10, 1),
             ("orders-large", "orders-small", sizes.get("orders_large"), sizes.get("orders_small")),
             ("tmpl-4096-worst", "tmpl-410-worst", 1, 1), ("tmpl-4096-typical", "tmpl-410-typical", 1, 1)]
    for big, small, nb, ns in pairs:
        for s in ("oxmcp-rust", "oxmcp-python", "oxmcp-node"):
            b, sm = cell(recs, s, big, "cpu_us_per_req"), cell(recs, s, small, "cpu_us_per_req")
            if b and sm and nb and ns:
                f = (b / nb) / (sm / ns)
                unit = "per read" if big.startswith("tmpl") else "per byte"
                row(f"{s}: CPU {unit} large ÷ small ≤ 1.5×", f"{big} / {small}", f"{f:.2f}×", f <= 1.5)
        if big in cg and small in cg and nb and ns:
            f = (cg[big]["instructions_per_request"] / nb) / (cg[small]["instructions_per_request"] / ns)
            unit = "per read" if big.startswith("tmpl") else "per byte"
            row(f"oxmcp-rust: instructions {unit} large ÷ small ≤ 1.5×", f"{big} / {small}", f"{f:.2f}×", f <= 1.5)
    for s in ("oxmcp-rust", "oxmcp-python", "oxmcp-node"):
        v = cell(recs, s, "sessions-10000", "rss_per_session")
        if v is not None:
            row(f"{s}: a legacy session ≤ 8 KB (RSS, in memory)", "sessions-10000", f"{v / 1024:.1f} KB", v <= 8192)
        for big, small, key, unit in (("fanout-1000", "fanout-100", "cpu_us_per_delivery", "CPU per listener"),
                                      ("sessions-10000", "sessions-1000", "cpu_us_per_init", "CPU per initialize"),
                                      ("sessions-10000", "sessions-1000", "rss_per_session", "RSS per session")):
            b, sm = cell(recs, s, big, key), cell(recs, s, small, key)
            if b and sm:
                row(f"{s}: {unit} large ÷ small ≤ 1.5×", f"{big} / {small}", f"{b / sm:.2f}×", b / sm <= 1.5)
    for lang, ours in (("Python", "oxmcp-python"), ("Node", "oxmcp-node"), ("Rust", "oxmcp-rust")):
        for p in ("fanout-1000", "fanout-100"):
            for peer in PEERS[lang]:
                rs = ratio_rounds(recs, ours, peer, p, "last_p50_us", invert=True)
                want = 3 if lang == "Rust" else 10
                if rs:
                    row(f"{ours}: time to the last listener, {peer} ÷ ours ≥ {want}×", p, rfmt(rs),
                        statistics.median(rs) >= want)
    for r in recs:
        # The targets are one replica's: a deployment of several (`--replicas`) adds nginx and the other replicas.
        if r.get("redis") and "error" not in r and r["server"] == "oxmcp-rust-redis":
            m = cell(recs, "oxmcp-rust", r["phase"], "cpu_us_per_req")
            if m and r.get("cpu_us_per_req"):
                f = r["cpu_us_per_req"] / m
                lim = 1.05 if r["w"] == 1 else 2.0 if r["w"] == 7 else None
                row(f"Redis CPU cost ≤ {'5 %' if lim == 1.05 else '2×' if lim else '(no target)'}", r["phase"],
                    f"{f:.2f}×", (f <= lim) if lim else None)
    if len(L) == 4:
        return ["#### Targets", "", "No target applies to this run (no oxmcp server in it, or no peer beside one)."]
    return L


def charts(runs, outdir: Path, prefix: str = "") -> tuple[dict[int, str], str]:
    py = os.environ.get("WL_PLOT_PYTHON", sys.executable)
    recs = [r for run in runs for r in run["records"]]
    outdir.mkdir(parents=True, exist_ok=True)
    spec = {}
    for w in sorted({r["w"] for r in recs}):
        phs = []
        for r in recs:
            if r["w"] == w and r["phase"] not in phs:
                phs.append(r["phase"])
        dev = {s for s, b in runs[0]["meta"].get("builds", {}).items() if "dev" in b}
        key = "cpu_us_per_delivery" if w == 6 else "cpu_us_per_req"  # 6: per listener reached
        series = {s + (" (dev build)" if s in dev else ""): [cell(recs, s, p, key) or 0 for p in phs]
                  for s in ORDER if any(r["server"] == s and r["w"] == w and "error" not in r for r in recs)}
        series = {k: v for k, v in series.items() if any(x > 0 for x in v)}
        if not series:
            continue
        spec[w] = {"phases": phs, "series": series, "title": f"{w}: {SHORT.get(w, '')}",
                   "ylabel": "server CPU µs per listener reached (log)" if w == 6 else
                   "server CPU µs per operation (log)", "path": str(outdir / f"{prefix}workload-{w}.png")}
    code = r"""
import json, sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
spec = json.loads(sys.stdin.read())
for w, s in spec.items():
    fig, ax = plt.subplots(figsize=(9, 3.6))
    n = len(s["series"]); width = 0.8 / max(n, 1)
    for i, (name, ys) in enumerate(s["series"].items()):
        xs = [j + i * width for j in range(len(s["phases"]))]
        ax.bar(xs, [y if y > 0 else float("nan") for y in ys], width, label=name)
    ax.set_xticks([j + 0.4 - width / 2 for j in range(len(s["phases"]))], s["phases"], fontsize=8)
    ax.set_yscale("log"); ax.set_ylabel(s["ylabel"])
    ax.set_title("workload " + s["title"], fontsize=9)
    ax.legend(fontsize=7, ncol=4); fig.tight_layout(); fig.savefig(s["path"], dpi=90); plt.close(fig)
print("ok")
"""
    try:
        r = subprocess.run([py, "-c", code], input=json.dumps(spec), capture_output=True, text=True, timeout=300)
        if r.returncode:
            raise RuntimeError(r.stderr.strip().splitlines()[-1] if r.stderr.strip() else "failed")
    except Exception as e:  # noqa: BLE001
        return {}, f"No charts: {py} could not draw them ({e})."
    return {w: s["path"] for w, s in spec.items()}, ""


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if not args:
        raise SystemExit(__doc__)
    runs = load(args)
    if "--write" in sys.argv:
        parts = []
        for i, run in enumerate(runs):
            ch, note = charts([run], BENCH / "workloads" / "charts", prefix=f"run{i + 1}-")
            parts.append(f"### Run {i + 1}: {', '.join(sorted({r['server'] for r in run['records']}))}\n\n"
                         + render([run], ch, note))
        body = "\n\n".join(parts)
        res = BENCH / "RESULTS.md"
        text = res.read_text()
        section = f"{BEGIN}\n{body}\n{END}"
        if BEGIN in text:
            text = text[:text.index(BEGIN)] + section + text[text.index(END) + len(END):]
        else:
            text = text.rstrip("\n") + "\n\n## Workloads beyond `add`\n\n" + section + "\n"
        res.write_text(text)
        print(f"wrote {res}")
    else:
        print("\n\n".join(render([run], None, "") for run in runs))


if __name__ == "__main__":
    main()
