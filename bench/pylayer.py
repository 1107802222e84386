"""CPU per call of the Python layer alone: `ToolEntry.call_sync` of bench's `add`, no native hop.

    python bench/pylayer.py            # with the oxmcp it imports (PYTHONPATH chooses another)

Prints the best of 5 timings (process CPU time, so a busy machine does not inflate it) and the
top of a cProfile by own time. What it measures is what a sync tool call costs in Python between
the native side's conversion of the arguments and its conversion of the result.
"""

import cProfile
import io
import pstats
import sys
import time
import timeit
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "servers"))
import oxmcp_py  # noqa: E402

entry = oxmcp_py.server._tools["add"]
args = {"a": 1, "b": 2}
n = 50_000
best = min(timeit.Timer(lambda: entry.call_sync(args, None), timer=time.process_time).repeat(5, n))
print(f"ToolEntry.call_sync(add): {best / n * 1e6:.2f} us CPU per call")
prof = cProfile.Profile(time.process_time)
prof.enable()
for _ in range(20_000):
    entry.call_sync(args, None)
prof.disable()
out = io.StringIO()
pstats.Stats(prof, stream=out).sort_stats("tottime").print_stats(10)
print("\n".join(line for line in out.getvalue().splitlines() if line.strip()))
