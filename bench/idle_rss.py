#!/usr/bin/env python3
"""Idle RSS of HTTP MCP servers, alternated, with the page cache dropped before each start.

Each round starts every server in turn: `sync; echo 3 > /proc/sys/vm/drop_caches` (as root),
start, wait until a `tools/call add` answers (bench/run.py's readiness: the modern revision,
else a legacy session), one more `add` and a `tools/list`, then 1 s later the process tree's RSS
(as run.py reads it), the largest mappings of `/proc/PID/smaps`, and with `--module` the resident
kB of each ELF section of that file (`/proc/PID/pagemap`): where the code that start-up touched
sits (`.text.hot` is the hot-code script's section, docs/PERFORMANCE.md "Hot code together").

    sudo python3 bench/idle_rss.py --rounds 3 \\
        'oxmcp=target/release/bench-server --http 127.0.0.1:{port}' \\
        'rmcp=/tmp/bench-rust-target/release/rmcp-server --port {port}'
    sudo python3 bench/idle_rss.py --module node=/tmp/oxmcp-bench/node/oxmcp.node \\
        'node=env OXMCP_NATIVE=/tmp/oxmcp-bench/node/oxmcp.node node bench/servers/oxmcp_node.mjs --http 127.0.0.1:{port}'

Prints one line per start and the median [min-max] per server.
"""
from __future__ import annotations

import argparse
import collections
import os
import re
import shlex
import struct
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run  # bench/run.py: readiness, requests and the RSS of a process tree

MiB = 1024 * 1024


def mappings(pid: int) -> collections.Counter[str]:
    """Rss kB by mapping: `file:x` (code), `file:r`, `file:w`, `[anon]:w`."""
    out: collections.Counter[str] = collections.Counter()
    cur = ""
    for line in Path(f"/proc/{pid}/smaps").read_text().splitlines():
        f = line.split()
        if re.fullmatch(r"[0-9a-f]+-[0-9a-f]+", f[0]):
            perm = f[1]
            name = os.path.basename(f[5]) if len(f) > 5 else "[anon]"
            cur = f"{name}:{'x' if 'x' in perm else 'w' if 'w' in perm else 'r'}"
        elif f[0] == "Rss:":
            out[cur] += int(f[1])
    return out


def sections(pid: int, module: str) -> dict[str, tuple[int, int]]:
    """Resident and total kB of each allocated ELF section of `module` mapped in `pid`."""
    module = os.path.realpath(module)
    elf = subprocess.run(["readelf", "-SW", module], check=True, capture_output=True, text=True).stdout
    maps = []
    for line in Path(f"/proc/{pid}/maps").read_text().splitlines():
        f = line.split()
        if len(f) >= 6 and os.path.realpath(f[5]) == module:
            lo, hi = (int(x, 16) for x in f[0].split("-"))
            maps.append((lo, hi, int(f[2], 16)))
    out: dict[str, tuple[int, int]] = {}
    with open(f"/proc/{pid}/pagemap", "rb") as pm:
        for m in re.finditer(r"\]\s+(\S+)\s+\S+\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)", elf):
            name, addr, off, size = m.group(1), int(m.group(2), 16), int(m.group(3), 16), int(m.group(4), 16)
            if not addr or size < 64 * 1024:
                continue
            total = resident = 0
            for page in range(off >> 12, ((off + size - 1) >> 12) + 1):
                for lo, hi, moff in maps:
                    if moff <= page << 12 < moff + hi - lo:
                        pm.seek(((lo + (page << 12) - moff) >> 12) * 8)
                        resident += struct.unpack("<Q", pm.read(8))[0] >> 63
                        total += 1
                        break
            if total:
                out[name] = (resident * 4, total * 4)
    return out


def measure(cmd: str, module: str | None) -> float:
    subprocess.run("sync; echo 3 > /proc/sys/vm/drop_caches", shell=True, check=True)
    time.sleep(0.5)
    port = run.free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    p = subprocess.Popen(shlex.split(cmd.replace("{port}", str(port))), stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    try:
        _, proto, session = run.wait_ready(url, None, p, time.perf_counter(), 60)
        run.post(url, run.add_msg(proto, 7), proto, session)
        run.post(url, run.list_msg(proto, 8), proto, session)
        time.sleep(1.0)
        pids = run.tree(p.pid)
        total = run.rss(pids)
        maps: collections.Counter[str] = collections.Counter()
        for q in pids:
            maps.update(mappings(q))
        secs = {}
        if module:
            for q in pids:
                secs.update(sections(q, module))
    finally:
        p.terminate()
        p.wait()
    top = "  ".join(f"{k} {v}" for k, v in maps.most_common(5))
    print(f"  {total / MiB:6.2f} MiB  {top}", flush=True)
    if secs:
        print("          " + "  ".join(f"{k} {r}/{t} kB" for k, (r, t) in secs.items()), flush=True)
    return total


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("servers", nargs="+", metavar="NAME=CMD", help="a server command; {port} is replaced")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--module", action="append", default=[], metavar="NAME=FILE",
                    help="also print the resident kB of each section of FILE (an ELF file) in server NAME")
    a = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("idle_rss: dropping the page cache needs root")
    modules = dict(m.split("=", 1) for m in a.module)
    servers = [s.split("=", 1) for s in a.servers]
    got: dict[str, list[float]] = collections.defaultdict(list)
    for r in range(a.rounds):
        for name, cmd in servers:
            print(f"{name} r{r}", flush=True)
            got[name].append(measure(cmd, modules.get(name)))
    for name, v in got.items():
        v.sort()
        print(f"{name:16s} {v[len(v) // 2] / MiB:6.2f} MiB [{v[0] / MiB:.2f}-{v[-1] / MiB:.2f}]")


if __name__ == "__main__":
    main()
