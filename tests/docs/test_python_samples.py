"""Every Python sample of the README and the site runs (tests/docs/samples.py says how they are
marked); a server sample is served by `python -m oxmcp run` and checked with the official client."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

sys.path.insert(0, str(Path(__file__).parent))
import samples as doc

ALL = doc.all_samples()
PYTHON = [s for s in ALL if s.lang == "python"]


def _source(s: doc.Sample) -> str:
    return "".join(line + "\n" for line in s.setup) + s.code


def _text(result: object) -> str:
    """What a check looks for its expected text in: every text block and the structured content."""
    parts: list[str] = []
    for block in getattr(result, "content", None) or getattr(result, "contents", None) or []:
        parts.append(getattr(block, "text", "") or "")
    for msg in getattr(result, "messages", None) or []:
        parts.append(getattr(msg.content, "text", "") or "")
    structured = getattr(result, "structured_content", None)
    if structured is not None:
        parts.append(json.dumps(structured))
    return "\n".join(parts)


async def _check_server(path: Path, s: doc.Sample) -> None:
    params = StdioServerParameters(command=sys.executable, args=["-m", "oxmcp", "run", path.name], cwd=str(path.parent))
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        for c in s.checks:
            if c.kind == "call":
                result = await session.call_tool(c.target, c.args)
                assert not result.is_error, f"{c.target}: {_text(result)}"
            elif c.kind == "read":
                result = await session.read_resource(c.target)  # type: ignore[arg-type]
            else:
                result = await session.get_prompt(c.target, c.args)
            assert c.expect in _text(result), f"{c.kind} {c.target}: {_text(result)!r} has no {c.expect!r}"


@pytest.mark.parametrize("sample", PYTHON, ids=[s.id for s in PYTHON])
async def test_python_sample(sample: doc.Sample, tmp_path: Path) -> None:
    if sample.skip:
        pytest.skip(sample.skip)
    path = tmp_path / "sample.py"
    path.write_text(_source(sample), encoding="utf-8")
    if sample.checks:
        await _check_server(path, sample)
    else:
        proc = await asyncio.to_thread(subprocess.run, [sys.executable, path.name], cwd=tmp_path, check=False,
                                       stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
        assert proc.returncode == 0, proc.stderr


def test_every_rust_sample_is_a_doctest() -> None:
    pages = {s.path for s in ALL if s.lang == "rust" and not s.skip}
    missing = pages - doc.doctest_pages()
    assert not missing, f"pages with Rust samples that core/src/lib.rs does not include as doctests: {sorted(missing)}"


def test_markers_name_a_reason_and_checks_only_servers() -> None:
    for s in ALL:
        assert s.skip is None or len(s.skip) > 10, f"{s.id}: a skip needs a reason"
        assert not (s.checks and s.lang not in ("python", "javascript")), f"{s.id}: checks on a {s.lang} sample"


def test_readme_links_exist() -> None:
    """The README is not a site page, so the strict build does not check its links: this does."""
    text = (doc.ROOT / "README.md").read_text(encoding="utf-8")
    missing = [t for t in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text)
               if not re.match(r"^[a-z]+:", t) and not (doc.ROOT / t).exists()]
    assert not missing, f"README.md links to files that do not exist: {missing}"
