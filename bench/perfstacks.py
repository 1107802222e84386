"""Where a server's CPU time per call goes, by layer, from a `perf record --call-graph dwarf` of
its core (docs/PERFORMANCE.md and bench/RESULTS.md show what it found).

Record the server's core while bench/loadgen drives it (server on CPU 0, load on CPU 1), then
turn the samples into microseconds per call:

    taskset -c 0 target/release/bench-server --http 127.0.0.1:18558 &
    taskset -c 1 bench/loadgen/target/release/loadgen --url http://127.0.0.1:18558/mcp ... -c 16 -d 6 &
    perf record -e cpu-clock -F 1500 -C 0 --call-graph dwarf,32768 -o /tmp/s.data -- sleep 3
    perf script -i /tmp/s.data -F ip,sym > /tmp/s.stacks
    python3 bench/perfstacks.py /tmp/s.stacks --hz 1500 --seconds 3 --rps 45000
    python3 bench/perfstacks.py /tmp/s.stacks --hz 1500 --seconds 3 --rps 45000 --under 'HttpHandler::post'

Without `--under`: the layers (every sample whose stack holds a frame matching the layer's
pattern counts for it, so layers nest and overlap). With `--under REGEX`: the frames called from
the innermost frame matching REGEX, each with the time spent under it. A sample is 1/hz s of
the core; a call is 1/rps s, so µs per call = samples / (hz × seconds × rps) × 1e6. dwarf
unwinding adds its own cost to every sample: compare two servers recorded the same way, not
these figures with run.py's.
"""

from __future__ import annotations

import argparse
import collections
import re

LAYERS = [
    ("all", "."),
    ("syscalls (kernel)", "entry_SYSCALL_64"),
    ("  writev (the answer, and the loopback delivery)", r"__GI___writev|__writev"),
    ("  recv", r"__libc_recv"),
    ("  epoll_wait", r"epoll_wait"),
    ("hyper: parse the request head", r"role::parse_headers|Http1Transaction>::parse"),
    ("hyper: encode the response head", r"encode_head"),
    ("the service (oxmcp serve_one / the bare server's serve)", r"serve_one::\{\{closure\}\}|ceiling::serve"),
    ("  JSON parse", r"parse_incoming|serde_json::de::from_trait"),
    ("malloc + free", r"malloc|free"),
    ("memmove / memcpy", r"memmove|memcpy"),
]


def samples(path: str) -> list[list[str]]:
    """Each sample's frames, innermost first (`perf script -F ip,sym`, inlined frames included)."""
    out: list[list[str]] = []
    cur: list[str] = []
    with open(path) as f:
        for line in f:
            if not line.strip():
                if cur:
                    out.append(cur)
                    cur = []
                continue
            parts = line.strip().split(None, 1)
            cur.append(re.sub(r"\s*\(inlined\)$", "", parts[1]) if len(parts) > 1 else "?")
    if cur:
        out.append(cur)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("stacks", help="`perf script -F ip,sym` output")
    ap.add_argument("--hz", type=float, required=True, help="perf record -F")
    ap.add_argument("--seconds", type=float, required=True, help="the recorded window")
    ap.add_argument("--rps", type=float, required=True, help="requests per second during the window")
    ap.add_argument("--under", help="regex: break down what the innermost matching frame calls")
    ap.add_argument("--top", type=int, default=30)
    a = ap.parse_args()
    us = 1e6 / (a.hz * a.seconds * a.rps)
    all_samples = samples(a.stacks)
    print(f"{len(all_samples)} samples, {us:.5f} µs per call each")
    if not a.under:
        for name, rx in LAYERS:
            r = re.compile(rx)
            n = sum(1 for s in all_samples if any(r.search(f) for f in s))
            print(f"{n * us:7.2f} µs  {name}")
        return
    target = re.compile(a.under)
    children: collections.Counter[str] = collections.Counter()
    hit = 0
    for s in all_samples:
        idx = [i for i, f in enumerate(s) if target.search(f)]
        if not idx:
            continue
        hit += 1
        i = idx[0]
        children[s[i - 1] if i > 0 else "(itself)"] += 1
    print(f"{hit * us:7.2f} µs  under {a.under}")
    for name, n in children.most_common(a.top):
        print(f"{n * us:7.3f} µs  {name[:140]}")


if __name__ == "__main__":
    main()
