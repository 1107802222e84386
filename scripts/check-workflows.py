#!/usr/bin/env python3
"""Supply-chain rules for .github/workflows/*.yml that actionlint does not check.

- Every action is pinned by a full commit SHA: a tag can be moved to other code, a commit cannot.
- Only the publish jobs may ask for an OIDC token (`id-token: write`), and each such job publishes
  to one registry, so a step in one job cannot publish to another registry.
- Secrets are read only by publish jobs.
- The workflow's default permissions are read-only.

Exit status 1 with one line per finding. Run by the lint stage of scripts/test-all.sh.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import yaml

PINNED = re.compile(r"^[^@\s]+@[0-9a-f]{40}$")


def check(path: Path) -> list[str]:
    doc = yaml.safe_load(path.read_text())
    out: list[str] = []
    top = doc.get("permissions")
    if top not in ({"contents": "read"}, "read-all", {}):
        out.append(f"{path}: top-level permissions must be read-only, got {top!r}")
    for name, job in (doc.get("jobs") or {}).items():
        publishes = name.startswith("publish")
        perms = job.get("permissions") or {}
        if perms.get("id-token") == "write" and not publishes:
            out.append(f"{path}: job {name}: id-token: write outside a publish job")
        for step in job.get("steps") or []:
            uses = step.get("uses")
            if uses and not uses.startswith("./") and not PINNED.match(uses):
                out.append(f"{path}: job {name}: `{uses}` is not pinned by a commit SHA")
            text = yaml.safe_dump(step)
            if "secrets." in text and not publishes:
                out.append(f"{path}: job {name}: reads a secret outside a publish job")
    return out


def main() -> int:
    root = Path(__file__).resolve().parent.parent
    findings = [f for p in sorted((root / ".github/workflows").glob("*.yml")) for f in check(p)]
    for f in findings:
        print(f)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
