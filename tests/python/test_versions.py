"""One version for the crate, the wheel and the npm packages (scripts/check-versions.py)."""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path

from procs import ROOT

SCRIPT = ROOT / "scripts" / "check-versions.py"


def _load():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("check_versions", SCRIPT)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_every_artifact_has_the_same_version() -> None:
    r = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    found = _load().versions()
    assert len(set(found.values())) == 1, found
    import oxmcp

    assert oxmcp.__version__ == found["package.json version"]


def test_a_drifted_version_is_reported(tmp_path: Path) -> None:
    for rel in ("Cargo.toml", "core/Cargo.toml", "bindings-python/Cargo.toml", "bindings-node/Cargo.toml",
                "pyproject.toml", "bindings-python/python/oxmcp/__init__.py", "package.json", "package-lock.json",
                "CHANGELOG.md"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / rel, tmp_path / rel)
    pkg = json.loads((tmp_path / "package.json").read_text())
    pkg["version"] = "9.9.9"
    (tmp_path / "package.json").write_text(json.dumps(pkg))
    found = _load().versions(tmp_path)
    assert found["package.json version"] == "9.9.9"
    assert found["Cargo.toml [workspace.package] version"] != "9.9.9"
