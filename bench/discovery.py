#!/usr/bin/env python3
"""Discovery benchmark (Python): N marked tools in M modules of a package made in a temp dir;
the time of ``server.discover(package)`` (imports + registrations), best and median of R runs,
each in a fresh process (so the imports are real).

    .venv/bin/python bench/discovery.py                    # 1,000 tools in 100 modules, 5 runs
    .venv/bin/python bench/discovery.py --tools 1000 --modules 1000

Not a test: timings depend on the machine and the build (say which in RESULTS.md).
The Node twin is bench/discovery.mjs.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

TOOL = '''
@oxmcp.tool(description="Tool {i}: add two integers")
def tool_{i}(a: int, b: int) -> int:
    return a + b
'''

CHILD = '''
import sys, time
sys.path.insert(0, sys.argv[1])
import oxmcp
server = oxmcp.Server("bench")
t0 = time.perf_counter()
found = server.discover("bench_tools")
elapsed = time.perf_counter() - t0
assert len(server.list_tools()) == int(sys.argv[2]), len(server.list_tools())
print(elapsed)
'''


def make(root: Path, tools: int, modules: int) -> None:
    pkg = root / "bench_tools"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    per = -(-tools // modules)
    for m in range(modules):
        sub = pkg / f"group_{m // 10:03d}"
        sub.mkdir(exist_ok=True)
        (sub / "__init__.py").touch()
        body = "import oxmcp\n" + "".join(TOOL.format(i=i) for i in range(m * per, min(tools, (m + 1) * per)))
        (sub / f"mod_{m:04d}.py").write_text(body)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tools", type=int, default=1000)
    ap.add_argument("--modules", type=int, default=100)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        make(Path(d), args.tools, args.modules)
        times = [float(subprocess.run([sys.executable, "-c", CHILD, d, str(args.tools)], check=True,
                                      capture_output=True, text=True).stdout) for _ in range(args.runs)]
    print(json.dumps({"language": "python", "tools": args.tools, "modules": args.modules,
                      "best_s": round(min(times), 4), "median_s": round(statistics.median(times), 4)}))


if __name__ == "__main__":
    main()
