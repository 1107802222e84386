"""Where the tail comes from: p99 / p50 of `tools/call add` at 16 connections, closed and open loop.

The target is p99 ≤ 2× p50 at c=16 (bench/RESULTS.md). run.py's closed loop sends each connection's next
request the moment its answer arrives, so 16 requests always wait on one server core: a request's
latency is mostly its place in that queue, and the bare hyper server's own p99/p50 is ~3× there.
That ratio describes the load generator's loop, not the server. This runner measures both:

- closed loop, c=16 (run.py's method): the server's capacity and its p50/p99 at saturation;
- open loop, c=16, at fixed fractions of that capacity (`--fractions`, default 0.25,0.5,0.75)
  and at fixed rates for every server (`--rates`): requests are due on a schedule whatever the
  answers do, and latency counts from the due time (bench/loadgen `--rate`), so a server that
  stalls (GC, a lock, a slow path) is charged for the queue it causes.

    python3 bench/tails.py --only oxmcp-rust,oxmcp-python,oxmcp-node,ceiling \\
        --oxmcp-node-native /tmp/oxmcp-bench/node/oxmcp-stripped.node --duration 5 --warmup 2

Takes run.py's options (servers, CPUs, binaries). Writes results.jsonl and tables.md to `--out`.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import run  # noqa: E402

BENCH = Path(__file__).parent


def measure(s: dict, a, out) -> dict:
    port = run.free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    errlog = open(Path(a.out) / f"{s['name']}.stderr.log", "ab")
    p = run.start(run.expand(s["http"], port), s.get("env"), stdout=errlog, stderr=errlog)
    rec: dict = {"kind": "tails", "server": s["name"], "phases": []}
    try:
        _, proto, session = run.wait_ready(url, None, p, time.perf_counter(), a.ready_timeout)
        m = run.add_msg(proto, 1)

        def phase(label: str, rate: float | None) -> dict:
            r = run.load(p, url, m, proto, session, 16, "add", rate=rate)
            row = {"phase": label, "rate": rate, "rps": r["rps"], "p50_us": r["p50_us"], "p90_us": r["p90_us"],
                   "p99_us": r["p99_us"], "max_us": r["max_us"], "errors": r["errors"],
                   "send_lag_p99_us": r.get("send_lag_p99_us"), "cpu_us_per_req": r.get("cpu_us_per_req"),
                   "server_cpu": r.get("server_cpu"), "client_cpu": r["client_cpu"]}
            row["p99_over_p50"] = r["p99_us"] / r["p50_us"] if r["p50_us"] else None
            rec["phases"].append(row)
            run.log(f"[{s['name']}] {label:>12s} {r['rps']:9.0f} req/s  p50 {r['p50_us']:7.0f} us  "
                    f"p99 {r['p99_us']:7.0f} us  p99/p50 {row['p99_over_p50'] or 0:5.2f}  "
                    f"lag p99 {r.get('send_lag_p99_us') or 0:6.0f} us  errors {r['errors']}")
            if p.poll() is not None:
                raise RuntimeError(f"server died during {label}")
            return row

        cap = phase("closed", None)["rps"]
        for f in a.fractions:
            phase(f"open {f:.2f}x", cap * f)
        for r in a.rates:
            phase(f"open {r:.0f}/s", r)
    except Exception as e:  # one server failing must not lose the others' figures
        rec["error"] = str(e)
        run.log(f"[{s['name']}] FAILED: {e}")
    finally:
        run.stop(p)
        errlog.close()
    out.write(json.dumps(rec) + "\n")
    out.flush()
    return rec


def table(recs: list[dict]) -> str:
    lines = ["| server | phase | offered req/s | served req/s | p50 µs | p99 µs | p99 / p50 | send lag p99 µs | CPU µs/call |",
             "|---|---|---|---|---|---|---|---|---|"]
    for rec in recs:
        if "error" in rec:
            lines.append(f"| {rec['server']} | failed: {rec['error']} | | | | | | | |")
        for ph in rec["phases"]:
            offered = f"{ph['rate']:,.0f}" if ph["rate"] else "closed loop"
            lag = ph["send_lag_p99_us"] if ph["send_lag_p99_us"] is not None else "-"
            lines.append(
                f"| {rec['server']} | {ph['phase']} | {offered} | "
                f"{ph['rps']:,.0f} | {ph['p50_us']:,.0f} | {ph['p99_us']:,.0f} | {ph['p99_over_p50'] or 0:.2f} | "
                f"{lag} | "
                f"{ph['cpu_us_per_req'] or 0:.1f} |")
    return "\n".join(lines)


def main() -> None:
    ap = run.parser()
    ap.description = __doc__
    ap.add_argument("--fractions", default="0.25,0.5,0.75", help="open-loop rates as fractions of the closed-loop capacity")
    ap.add_argument("--rates", default="", help="open-loop rates (req/s) run for every server, e.g. 5000,10000")
    a = ap.parse_args()
    a.fractions = [float(x) for x in a.fractions.split(",") if x]
    a.rates = [float(x) for x in a.rates.split(",") if x]
    a.out = a.out or str(BENCH / "results" / time.strftime("tails-%Y%m%d-%H%M%S"))
    Path(a.out).mkdir(parents=True, exist_ok=True)
    run.ARGS = a  # run.load and run.start read their options from there
    try:
        os.sched_setaffinity(0, {int(x) for x in a.client_cpus.split(",")})
    except (OSError, ValueError):
        pass
    servers = run.selected(a)
    started = time.strftime("%Y-%m-%d %H:%M:%S %Z")
    with open(Path(a.out) / "results.jsonl", "a") as out:
        out.write(json.dumps({"kind": "meta", "started": started, "argv": sys.argv,
                              "loadavg": os.getloadavg()}) + "\n")
        recs = [measure(s, a, out) for s in servers]
    load1, load5, _ = os.getloadavg()
    head = (f"{started}; {a.warmup:g} s warmup + {a.duration:g} s per phase, 16 connections; servers on CPU "
            f"{a.server_cpus}, load generator on CPU {a.client_cpus}; load average at the end {load1:.2f} / {load5:.2f}")
    text = table(recs)
    print(f"\n{head}\n\n{text}")
    (Path(a.out) / "tables.md").write_text(f"{head}\n\n{text}\n")
    run.log("results in", a.out)


if __name__ == "__main__":
    main()
