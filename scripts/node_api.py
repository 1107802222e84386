"""The Node API reference page, rendered from the hand-written typings (bindings-node/index.d.ts).

The typings are the one source of the Node API's shapes and their JSDoc; this reads their exported
declarations in order, under the file's own `// ---- section` headings, and renders each as a
heading, its JSDoc as prose and the declaration as a TypeScript block. Used by the site's build
(scripts/mkdocs_hooks.py); `python3 scripts/node_api.py` prints the page.

typedoc would need TypeScript's full program (and an npm dependency for the site build); the
typings are flat files of declarations (index.d.ts and the files it re-exports), so a reader of
~60 lines does the job.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

SECTION = re.compile(r"^// -{10,} (.+)$")
REEXPORT = re.compile(r"^export \* from '\./([\w-]+)\.js';")
DECL = re.compile(r"^export (?:declare )?(?:abstract )?(class|interface|type|function|const)\s+([A-Za-z_$][\w$]*)")


def _jsdoc(lines: list[str]) -> str:
    body = "\n".join(lines)
    body = re.sub(r"^\s*/\*\*\s?|\s*\*/\s*$", "", body)
    return "\n".join(re.sub(r"^\s*\* ?", "", line) for line in body.splitlines()).strip()


def _statement(lines: list[str], i: int) -> int:
    """The index just past the declaration starting at line i (braces and parens balanced)."""
    depth = 0
    while i < len(lines):
        code = re.sub(r"//.*$|'[^']*'|`[^`]*`", "", lines[i])
        depth += code.count("{") + code.count("(") - code.count("}") - code.count(")")
        i += 1
        if depth <= 0 and (code.rstrip().endswith((";", "}")) or not code.strip()):
            return i
    return i


def render(path: Path) -> str:
    lines = path.read_text(encoding="utf-8").splitlines()
    out: list[str] = []
    doc: list[str] = []
    in_doc = False
    i = 0
    while i < len(lines):
        line = lines[i]
        if in_doc:
            doc.append(line)
            in_doc = "*/" not in line
            i += 1
            continue
        if line.lstrip().startswith("/**"):
            doc = [line]
            in_doc = "*/" not in line
            i += 1
            continue
        if m := REEXPORT.match(line):  # a part of the typings in a file of its own, in its place
            out.append(render(path.parent / f"{m.group(1)}.d.ts"))
            doc = []
            i += 1
            continue
        if m := SECTION.match(line):
            out.append(f"## {m.group(1)[0].upper()}{m.group(1)[1:]}\n")
            doc = []
            i += 1
            continue
        if m := DECL.match(line):
            end = _statement(lines, i)
            kind, name = m.groups()
            out.append(f"### `{name}` <small>{kind}</small>\n")
            if doc:
                out.append(_jsdoc(doc) + "\n")
            out.append("```ts\n" + "\n".join(lines[i:end]).rstrip() + "\n```\n")
            doc = []
            i = end
            continue
        if line.strip() and not line.startswith("//"):
            doc = []
        i += 1
    return "\n".join(out)


if __name__ == "__main__":
    sys.stdout.write(render(Path(__file__).resolve().parents[1] / "bindings-node" / "index.d.ts"))
