"""The code samples of the README and the documentation site, as the docs stage runs them.

Every fenced block in README.md and docs/**/*.md is a sample. Python and JavaScript samples are
run by tests/docs/test_python_samples.py and tests/docs/js-samples.test.mjs; Rust samples are
doctests (`core/src/lib.rs` includes each page that has one, and a test here checks that none is
left out). Shell commands and configuration files are listed, not run.

Markers, HTML comments on the lines right above a fence (invisible on GitHub and on the site):

    <!-- sample: skip: REASON -->                   not run; the listing shows the reason
    <!-- sample: setup: CODE -->                    a line run before the sample (a fragment's
                                                    imports, the `server` it decorates)
    <!-- sample: call: TOOL {"a": 1} => TEXT -->     the sample is a server: start it, call TOOL
    <!-- sample: read: URI => TEXT -->               with the official client and expect TEXT in
    <!-- sample: prompt: NAME {"k": "v"} => TEXT --> the answer (a tool's text or structured
                                                    content, a resource's text, a prompt's messages)

A Python server sample is started with `python -m oxmcp run FILE` on stdio; a JavaScript one with
`node FILE`, on HTTP: its `listen` port 8000 becomes a free one, and a sample that does not listen
gets `await server.listen(...)` appended.

`python3 tests/docs/samples.py` lists every sample with what the stage does with it;
`--json LANG` prints that language's samples for a runner.
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FENCE_OPEN = re.compile(r"^(\s*)(`{3,})([\w+-]*)([^\n`]*)$")
MARKER = re.compile(r"^\s*<!-- sample: (skip|setup|call|read|prompt): (.*?) -->\s*$")
CHECK = re.compile(r"^(\S+)(?: (\{.*\}))? => (.*)$")
LANGS = {"python": "python", "py": "python", "js": "javascript", "javascript": "javascript",
         "mjs": "javascript", "rust": "rust", "ts": "typescript", "typescript": "typescript"}


@dataclass
class Check:
    kind: str  # call | read | prompt
    target: str
    args: dict
    expect: str


@dataclass
class Sample:
    path: str
    line: int
    lang: str  # python | javascript | rust | typescript | other (shell, config, text)
    info: str
    code: str
    setup: list[str] = field(default_factory=list)
    checks: list[Check] = field(default_factory=list)
    skip: str | None = None

    @property
    def id(self) -> str:
        return f"{self.path}:{self.line}"


def sources() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def parse(path: Path) -> list[Sample]:
    lines = path.read_text(encoding="utf-8").splitlines()
    rel = path.relative_to(ROOT).as_posix()
    out: list[Sample] = []
    i = 0
    while i < len(lines):
        m = FENCE_OPEN.match(lines[i])
        if not m:
            i += 1
            continue
        indent, ticks, word, rest = m.groups()
        start = i
        body: list[str] = []
        i += 1
        while i < len(lines) and not re.match(rf"^\s*{ticks}\s*$", lines[i]):
            body.append(lines[i][len(indent):] if lines[i].startswith(indent) else lines[i].lstrip())
            i += 1
        i += 1
        lang = LANGS.get(word.split(",")[0].lower(), "other")
        s = Sample(rel, start + 1, lang, (word + rest).strip(), "\n".join(body) + "\n")
        j = start - 1
        while j >= 0 and (mm := MARKER.match(lines[j])):
            key, value = mm.groups()
            if key == "skip":
                s.skip = value
            elif key == "setup":
                s.setup.insert(0, value)
            else:
                cm = CHECK.match(value)
                if not cm:
                    raise ValueError(f"{rel}:{j + 1}: bad marker {lines[j].strip()!r}")
                s.checks.insert(0, Check(key, cm.group(1), json.loads(cm.group(2) or "{}"), cm.group(3)))
            j -= 1
        out.append(s)
    return out


def all_samples() -> list[Sample]:
    return [s for p in sources() for s in parse(p)]


def doctest_pages() -> set[str]:
    """The pages core/src/lib.rs includes as doctests."""
    lib = (ROOT / "core" / "src" / "lib.rs").read_text(encoding="utf-8")
    return {p.removeprefix("../../") for p in re.findall(r'include_str!\("(\.\./\.\./[^"]+\.md)"\)', lib)}


def what(s: Sample) -> str:
    if s.skip:
        return f"skipped: {s.skip}"
    if s.lang == "rust":
        return "doctest (cargo test --doc -p oxmcp)" + ("; ignored by rustdoc" if "ignore" in s.info else "")
    if s.lang == "other":
        return f"not run ({s.info or 'text'}: commands or configuration)"
    if s.checks:
        return "server, checked with the official client: " + "; ".join(f"{c.kind} {c.target}" for c in s.checks)
    return "run"


def main() -> None:
    samples = all_samples()
    if len(sys.argv) == 3 and sys.argv[1] == "--json":
        print(json.dumps([asdict(s) | {"id": s.id} for s in samples if s.lang == sys.argv[2]]))
        return
    counts: dict[str, int] = {}
    for s in samples:
        print(f"{s.id:40} {s.lang:10} {what(s)}")
        key = f"{s.lang} {'skipped' if s.skip else 'listed, not run' if s.lang == 'other' else 'run'}"
        counts[key] = counts.get(key, 0) + 1
    print("; ".join(f"{k}: {v}" for k, v in sorted(counts.items())))


if __name__ == "__main__":
    main()
