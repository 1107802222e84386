"""Where a closed loop's tail comes from: each request's latency, next to the server's CPU schedule.

The companion of percall.py for p99/p50. One server under `taskset -c 0`, bench/loadgen
on CPU 1 (`-c 16`), `add` by default. The load generator writes every measured answer
(`LOADGEN_TRACE`: connection, send time, latency), and `perf record -k CLOCK_MONOTONIC` takes the
scheduler's switches and wake-ups and the system calls on CPU 0 for a short window, on the same
clock. Prints:

- the latency percentiles, and a strip of 10 ms windows: `.` when a window's median is within
  1.1x the run's, `o` within 1.3x, `#` beyond (a slow stretch of the whole machine shows as a run
  of `o`/`#` in every server's strip, the ceiling's too);
- with `--turns FROM,TO`: how many answers came back between two switches from a thread named
  FROM* to one named TO* (for the bindings: `oxmcp-io,oxmcp-py` or `oxmcp-io,node`), i.e. the
  size of each hand-over;
- with `--show US`: that many microseconds of the window, event by event (sends, answers,
  switches, wake-ups, system calls by name).

    python3 bench/timeline.py --cmd '/tmp/oxmcp-bench/venv/bin/python bench/servers/oxmcp_py.py --http 127.0.0.1:{port}' \\
        --turns oxmcp-io,oxmcp-py --show 1500

perf adds its own cost to every switch and system call in the window: read the shape there, and
the figures from the run as a whole (or from percall.py).
"""

from __future__ import annotations

import argparse
import bisect
import collections
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from onecall import OneServer, server_args  # noqa: E402

SYSCALLS = {0: "read", 1: "write", 7: "poll", 20: "writev", 44: "sendto", 45: "recvfrom", 202: "futex",
            232: "epoll_wait", 281: "epoll_pwait", 228: "clock_gettime", 24: "sched_yield"}
EVENT = re.compile(r"(\d+\.\d+): +(\w+):(\w+): (.*)")


def pct(sorted_ns: list[int], q: float) -> float:
    return sorted_ns[min(len(sorted_ns) - 1, int(q * len(sorted_ns)))] / 1000


def strip(rows: list[tuple[int, int, int]], p50: float) -> str:
    windows: dict[int, list[int]] = collections.defaultdict(list)
    for _, sent, lat in rows:
        windows[sent // 10_000_000].append(lat)
    out = ""
    for k in sorted(windows):
        v = sorted(windows[k])
        m = v[len(v) // 2] / 1000 / p50
        out += "." if m < 1.1 else ("o" if m < 1.3 else "#")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    server_args(ap, duration=4)
    ap.add_argument("--perf-at", type=float, default=1.5, help="seconds into the measured window")
    ap.add_argument("--perf-window", type=float, default=0.05, help="seconds under perf")
    ap.add_argument("--turns", help="FROM,TO thread-name prefixes: answers per hand-over")
    ap.add_argument("--show", type=float, default=0, help="microseconds of the perf window to print")
    a = ap.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        trace, data = os.path.join(tmp, "answers.txt"), os.path.join(tmp, "perf.data")
        with OneServer(a.cmd, a.kind, a.env, prefix=["taskset", "-c", "0"]) as srv:
            srv.wait_answering(timeout=30)
            lg = srv.loadgen(a.loadgen, a.conns, duration=a.duration, warmup=a.warmup, cpus="1")
            gen = subprocess.Popen(lg, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                   env={**os.environ, "LOADGEN_TRACE": trace})
            time.sleep(a.warmup + a.perf_at)
            subprocess.run(["perf", "record", "-q", "-k", "CLOCK_MONOTONIC", "-C", "0", "-o", data,
                            "-e", "sched:sched_switch", "-e", "sched:sched_wakeup", "-e", "raw_syscalls:sys_enter",
                            "--", "sleep", str(a.perf_window)],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
            _, err = gen.communicate(timeout=a.duration + a.warmup + 60)
            if gen.returncode:
                raise SystemExit(f"loadgen failed: {err[-400:]}")
        script = subprocess.run(["perf", "script", "-i", data, "-F", "comm,tid,time,event,trace"],
                                capture_output=True, text=True, check=True).stdout
        lines = Path(trace).read_text().splitlines()

    base = int(lines[0].split()[1])  # "# <CLOCK_MONOTONIC ns of the window's start>"
    rows = [tuple(map(int, ln.split())) for ln in lines[1:] if ln]
    lat = sorted(r[2] for r in rows)
    p50 = pct(lat, 0.5)
    print(f"{len(rows)} answers: p10 {pct(lat, .1):.0f} p50 {p50:.0f} p90 {pct(lat, .9):.0f} "
          f"p99 {pct(lat, .99):.0f} max {lat[-1] / 1000:.0f} us; p99/p50 {pct(lat, .99) / p50:.2f}")
    s = strip(rows, p50)
    print("10 ms windows:", *(s[i:i + 100] for i in range(0, len(s), 100)), sep="\n  ")

    events: list[tuple[float, str]] = []
    switches: list[tuple[float, str, str]] = []
    for ln in script.splitlines():
        m = EVENT.search(ln)
        if not m:
            continue
        t, kind, rest, who = float(m.group(1)), m.group(3), m.group(4), ln.split()[0]
        if kind == "sys_enter":
            nr = int(re.search(r"NR (\d+)", rest).group(1))
            events.append((t, f"      {who} {SYSCALLS.get(nr, nr)}"))
        elif kind == "sched_switch":
            sw = re.search(r"prev_comm=(\S+) prev_pid=(\d+).*prev_state=(\S+) ==> next_comm=(\S+) next_pid=(\d+)", rest)
            switches.append((t, sw.group(1), sw.group(4)))
            events.append((t, f"  switch {sw.group(1)}/{sw.group(2)} [{sw.group(3)}] -> {sw.group(4)}/{sw.group(5)}"))
        elif kind == "sched_wakeup":
            wk = re.search(r"comm=(\S+) pid=(\d+)", rest)
            events.append((t, f"  wake {wk.group(1)}/{wk.group(2)} (by {who})"))
    if not switches:
        return
    done = sorted((base + sent + la) / 1e9 for _, sent, la in rows)
    if a.turns:
        src, dst = a.turns.split(",")
        starts = [t for t, prev, nxt in switches if prev.startswith(src) and nxt.startswith(dst)]
        sizes = [bisect.bisect(done, y) - bisect.bisect(done, x) for x, y in zip(starts, starts[1:])]
        print(f"answers per hand-over ({len(sizes)} in {a.perf_window * 1000:.0f} ms under perf):",
              sorted(collections.Counter(sizes).items()))
    if a.show:
        for conn, sent, la in rows:
            events.append(((base + sent) / 1e9, f"   SEND c{conn} ({la / 1000:.0f} us)"))
            events.append(((base + sent + la) / 1e9, f"   ANSWER c{conn} ({la / 1000:.0f} us)"))
        events.sort()
        t0 = switches[len(switches) // 2][0]
        for t, e in events:
            if t0 <= t <= t0 + a.show / 1e6:
                print(f"{(t - t0) * 1e6:8.1f} {e}")


if __name__ == "__main__":
    main()
