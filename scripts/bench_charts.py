"""Bar charts of the per-language side-by-side tables of bench/RESULTS.md, for the site's
benchmarks page (scripts/mkdocs_hooks.py replaces `<!-- bench-charts -->` with them).

RESULTS.md holds the current figures; the charts are drawn from its tables when the site is
built, as inline SVG (no JavaScript, no image files committed). A table the reader cannot find
raises, so the strict build fails instead of publishing a page without its charts.
`python3 scripts/bench_charts.py` prints the Markdown.
"""

from __future__ import annotations

import html
import re
import sys
from pathlib import Path

SECTION = re.compile(r"^### (Rust|Python|Node): (.+)$")
# (column header, chart title, unit, whether more is better)
METRICS = [("add c=16 req/s", "tools/call throughput, 16 connections", "req/s", True),
           ("CPU µs/call (c=16)", "CPU per call", "µs", False)]


def _number(cell: str) -> float:
    return float(re.sub(r"\[.*?\]", "", cell).split("/")[0].replace(",", "").strip())


def tables(text: str) -> list[tuple[str, list[str], list[list[str]]]]:
    """(language, header cells, rows) of each side-by-side table, in file order."""
    out = []
    lines = text.splitlines()
    for i, line in enumerate(lines):
        m = SECTION.match(line)
        if not m:
            continue
        j = i + 1
        while j < len(lines) and not lines[j].startswith("|"):
            j += 1
        rows = []
        while j < len(lines) and lines[j].startswith("|"):
            rows.append([c.strip() for c in lines[j].strip("|").split("|")])
            j += 1
        if len(rows) >= 3:
            out.append((m.group(1), rows[0], rows[2:]))
    return out


def _svg(title: str, unit: str, bars: list[tuple[str, float]], more_is_better: bool) -> str:
    width, label_w, row_h = 720, 300, 26
    top = max(v for _, v in bars) or 1.0
    h = row_h * len(bars) + 34
    parts = [(f'<svg xmlns="http://www.w3.org/2000/svg" role="img" viewBox="0 0 {width} {h}" width="100%" '
             f'style="max-width:{width}px" aria-label="{html.escape(title)}">'),
             (f'<text x="0" y="14" font-size="13" font-weight="bold" fill="currentColor">{html.escape(title)} '
             f'({unit}; {"more" if more_is_better else "less"} is better)</text>')]
    for k, (name, value) in enumerate(bars):
        y = 26 + k * row_h
        w = (width - label_w - 90) * value / top
        fill = "#3f51b5" if name.startswith("oxmcp") else "#9e9e9e"
        parts.append(f'<text x="0" y="{y + 15}" font-size="12" fill="currentColor">{html.escape(name[:44])}</text>')
        parts.append(f'<rect x="{label_w}" y="{y + 3}" width="{w:.1f}" height="{row_h - 8}" fill="{fill}"/>')
        shown = f"{value:,.0f}" if value >= 100 else f"{value:,.1f}"
        parts.append(f'<text x="{label_w + w + 6:.1f}" y="{y + 15}" font-size="12" fill="currentColor">{shown}</text>')
    parts.append("</svg>")
    return "".join(parts)


def render(path: Path) -> str:
    found = tables(path.read_text(encoding="utf-8"))
    if len(found) != 3:
        raise ValueError(f"{path}: expected the Rust, Python and Node side-by-side tables, found {len(found)}")
    out = []
    for lang, header, rows in found:
        out.append(f"### {lang}\n")
        for column, title, unit, more in METRICS:
            if column not in header:
                raise ValueError(f"{path}: the {lang} table has no column {column!r}")
            col = header.index(column)
            bars = [(re.sub(r"[`*]", "", r[0]), _number(r[col])) for r in rows]
            out.append(_svg(f"{lang}: {title}", unit, bars, more) + "\n")
    return "\n".join(out)


if __name__ == "__main__":
    sys.stdout.write(render(Path(__file__).resolve().parents[1] / "bench" / "RESULTS.md"))
