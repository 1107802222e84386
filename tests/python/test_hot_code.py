"""The extension's hot code: on x86_64 Linux (glibc), scripts/setup.sh and the release builds link
`_oxmcp` with bindings-python/hot-code.ld (bindings-python/build.rs, OXMCP_HOT_CODE=1), which puts
the functions that start-up and the calls run together in `.text.hot`, so that a server maps few
of the file's code pages (docs/PERFORMANCE.md, "Hot code together"). Every other test here runs on that extension; this
one checks the placement itself, and that the script still names today's code. The Node addon's
twin is tests/node/hot-code.test.mjs."""
from __future__ import annotations

import platform
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "bindings-python" / "hot-code.ld"


def _glibc_x86_64() -> bool:
    return sys.platform == "linux" and platform.machine() == "x86_64" and platform.libc_ver()[0] == "glibc"


def glob(symbol: str) -> str:
    """The same hash-free form as scripts/hot-code.py's `glob`."""
    s = re.sub(r"17h[0-9a-f]{16}E", "17h*E", symbol)
    s = re.sub(r"Cs[0-9A-Za-z]+_", "Cs*_", s)
    return re.sub(r"\.llvm\.\d+$", ".llvm.*", s)


@pytest.mark.skipif(not _glibc_x86_64(), reason="hot-code.ld is for x86_64-unknown-linux-gnu only")
def test_text_hot_holds_the_functions_the_script_names() -> None:
    import oxmcp._oxmcp as ext

    module = ext.__file__
    sections = subprocess.run(["readelf", "-SW", module], check=True, capture_output=True, text=True).stdout
    hot = re.search(r"\]\s+\.text\.hot\s+PROGBITS\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)", sections)
    assert hot, f"{module} has no .text.hot section: was it built without OXMCP_HOT_CODE=1 (scripts/setup.sh sets it)?"
    lo = int(hot.group(1), 16)
    hi = lo + int(hot.group(2), 16)

    rules = re.findall(r"^\s+\*\(\.text\*\.(\S+)\)$", SCRIPT.read_text(), re.MULTILINE)
    globs = {r for r in rules if "*" in r}
    assert len(globs) > 500, f"hot-code.ld has {len(globs)} glob rules"

    inside: set[str] = set()
    outside: list[str] = []
    nm = subprocess.run(["nm", "--defined-only", module], check=True, capture_output=True, text=True).stdout
    for line in nm.splitlines():
        parts = line.split(" ")
        if len(parts) != 3 or parts[1] not in "tTwW":
            continue
        g = glob(parts[2])
        if g not in globs:
            continue
        if lo <= int(parts[0], 16) < hi:
            inside.add(g)
        elif re.match(r"_(ZN|R)", parts[2]):
            # A Rust function sits in a section of its own, so the linker placed the ones that
            # matched (a precompiled std object may hold a copy in a shared section: a few).
            outside.append(parts[2])
    assert inside and len(outside) < 0.01 * len(inside), (
        f"{len(outside)} functions the script names are outside .text.hot, {len(inside)} in it: {outside[:3]}")
    # Most of the named functions still exist: when the code has moved on, rewrite the script
    # (scripts/hot-code.py says how) rather than lower this.
    assert len(inside) >= 0.8 * len(globs), (
        f"only {len(inside)} of hot-code.ld's {len(globs)} functions are in {module}: rerun scripts/hot-code.py")
