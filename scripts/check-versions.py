#!/usr/bin/env python3
"""One version for every artifact: the crate, the wheel and the npm packages.

    python3 scripts/check-versions.py          # prints the version, or what differs (exit 1)

The source of truth is `[workspace.package] version` in Cargo.toml. The crate and the binding
crates inherit it, and the wheel takes it from bindings-python/Cargo.toml (pyproject.toml's
`dynamic = ["version"]`). The rest must equal it: the workspace's `oxmcp` dependency
requirement, `oxmcp.__version__`, package.json and package-lock.json (the platform packages
and the root's optionalDependencies are written from package.json by
bindings-node/scripts/pack.cjs), and the newest entry of CHANGELOG.md. tests/python/test_versions.py
runs this in the suite.
"""

from __future__ import annotations

import json
import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def versions(root: Path = ROOT) -> dict[str, str | None]:
    cargo = tomllib.loads((root / "Cargo.toml").read_text())
    out: dict[str, str | None] = {"Cargo.toml [workspace.package] version": cargo["workspace"]["package"]["version"]}
    dep = cargo["workspace"]["dependencies"]["oxmcp"].get("version", "")
    out["Cargo.toml [workspace.dependencies] oxmcp"] = dep.lstrip("=^~")
    for member in ("core", "bindings-python", "bindings-node"):
        pkg = tomllib.loads((root / member / "Cargo.toml").read_text())["package"]
        v = pkg.get("version")
        out[f"{member}/Cargo.toml version"] = out["Cargo.toml [workspace.package] version"] if v == {"workspace": True} else v
    py = tomllib.loads((root / "pyproject.toml").read_text())["project"]
    out["pyproject.toml version"] = (out["Cargo.toml [workspace.package] version"]
                                     if "version" in py.get("dynamic", []) else py.get("version"))
    init = (root / "bindings-python" / "python" / "oxmcp" / "__init__.py").read_text()
    m = re.search(r'^__version__ = "([^"]+)"', init, re.M)
    out["oxmcp.__version__"] = m.group(1) if m else None
    out["package.json version"] = json.loads((root / "package.json").read_text())["version"]
    lock = json.loads((root / "package-lock.json").read_text())
    out["package-lock.json version"] = lock.get("version")
    out['package-lock.json packages[""].version'] = lock.get("packages", {}).get("", {}).get("version")
    m = re.search(r"^## \[?v?(\d+\.\d+\.\d+[^\]\s]*)", (root / "CHANGELOG.md").read_text(), re.M)
    out["CHANGELOG.md newest entry"] = m.group(1) if m else None
    return out


def main() -> int:
    found = versions()
    expected = found["Cargo.toml [workspace.package] version"]
    bad = {k: v for k, v in found.items() if v != expected}
    if bad:
        print(f"check-versions: the version is {expected} (Cargo.toml), but:", file=sys.stderr)
        for k, v in bad.items():
            print(f"  {k} = {v}", file=sys.stderr)
        return 1
    print(f"check-versions: {expected} everywhere ({len(found)} places)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
