#!/usr/bin/env python3
"""Every name docs/DESIGN.md writes in `code` still exists.

DESIGN.md is the newcomer's map; it names modules, files, types and functions so that a reader
can go straight to them. A rename that forgets the page leaves the reader a name that leads
nowhere, so this check fails on it:

- a path (`server/access.rs`, `lib/sdk/`) must be a tracked file or folder, taken from the root
  or from one of the folders the page writes paths under (core/src and its transport and server
  folders, the bindings' packages); a bare file name (`args.rs`, written inside its folder's
  entry) must be some tracked file's name; `oxmcp/x.js` must be a subpath package.json exports;
- a code name (`Server::dispatch`, `HttpHandler::admit`, `max_listeners`) must have each of its
  identifiers in some tracked source or configuration file other than DESIGN.md itself.

    python3 scripts/check-design-names.py

Prints one line per name that resolves nowhere, then "N passed, M failed" (the lint stage's format).
"""

import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = "docs/DESIGN.md"
# Where the page's short paths are written from.
PATH_BASES = ["", "core/src/", "core/src/server/", "core/src/transport/",
              "bindings-python/python/", "bindings-python/python/oxmcp/", "bindings-python/", "bindings-node/", "bindings-node/lib/"]
SOURCE_SUFFIXES = (".rs", ".py", ".pyi", ".cjs", ".mjs", ".js", ".ts", ".toml", ".sh", ".yml",
                   ".yaml", ".json", ".md")
PATH_LIKE = re.compile(r"[\w./-]+\.(rs|py|pyi|cjs|mjs|js|ts|md|toml|sh|json|yml|yaml)|[\w.-]+(/[\w.-]+)*/")
IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def tracked() -> list[str]:
    out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True)
    return out.stdout.split()


def main() -> int:
    files = tracked()
    paths = set(files)
    folders = {str(p) + "/" for f in files for p in Path(f).parents if str(p) != "."}
    exports = set(json.loads((ROOT / "package.json").read_text()).get("exports", {}))
    words: set[str] = set()
    for f in files:
        p = ROOT / f
        if f != DOC and f.endswith(SOURCE_SUFFIXES) and p.is_file() and p.stat().st_size < 2_000_000:
            words.update(IDENT.findall(p.read_text(errors="ignore")))
    spans = sorted(set(re.findall(r"`([^`\n]+)`", (ROOT / DOC).read_text())))
    failed: list[str] = []
    for span in spans:
        s = span.strip()
        if s.startswith("oxmcp/") and s.endswith(".js"):
            ok = "./" + s[len("oxmcp/"):] in exports
        elif PATH_LIKE.fullmatch(s) and not s.startswith(("<", "ui:")):
            ok = any(b + s in paths or b + s in folders for b in PATH_BASES)
            # A bare file name is written inside its folder's entry (`cli/`: `args.rs`, ...).
            ok = ok or ("/" not in s and any(f.endswith("/" + s) for f in files))
        else:
            # Prose in backticks (a command, a JSON fragment) is not a name; a name is a few
            # identifiers joined by ::, ., (), <>.
            ids = IDENT.findall(s)
            if not ids or len(ids) > 4 or " " in s:
                continue
            ok = all(i in words for i in ids if len(i) > 2)
        if not ok:
            failed.append(s)
            print(f"{DOC}: `{s}` names nothing in the repository")
    print(f"{len(spans) - len(failed)} passed, {len(failed)} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
