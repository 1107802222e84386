"""Where a Python server's memory goes with N generated tools, in-process:

    python bench/registry/py_phases.py N

RSS per tool after registering (the decorator), after building the native server (every tool
handed to the core in one add_tools, as run() does), and after malloc_trim(0) (what glibc could
give back). Not a test.
"""

from __future__ import annotations

import ctypes
import gc
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import py_server  # noqa: E402

from oxmcp import Server  # noqa: E402


def rss() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


n = int(sys.argv[1])
server = Server("phases", version="0")
gc.collect()
r0, t0 = rss(), time.process_time()
for i in range(n):
    server.tool(py_server.make(i))
gc.collect()
r1, t1 = rss(), time.process_time()
server.native  # noqa: B018  (builds the core server with every tool)
gc.collect()
r2, t2 = rss(), time.process_time()
ctypes.CDLL("libc.so.6").malloc_trim(0)
r3 = rss()
print(f"{n} tools: register {(r1 - r0) / n:.0f} B/tool {1000 * (t1 - t0):.0f} ms cpu; "
      f"native build +{(r2 - r1) / n:.0f} B/tool {1000 * (t2 - t1):.0f} ms cpu; "
      f"after malloc_trim +{(r3 - r1) / n:.0f} B/tool")
