"""Docstring parsing: a summary for the description and per-parameter descriptions.

Understands Google style (``Args:`` / ``Arguments:`` / ``Parameters:`` sections), NumPy style
(``Parameters`` underlined with dashes) and Sphinx fields (``:param name: text``, ``:returns:``).
Anything it does not recognise stays in the summary.
"""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass, field

_GOOGLE_PARAM_SECTIONS = {"args", "arguments", "parameters", "params", "keyword args", "keyword arguments"}
_GOOGLE_SECTIONS = _GOOGLE_PARAM_SECTIONS | {
    "returns", "return", "yields", "raises", "examples", "example", "notes", "note", "see also",
    "attributes", "warnings", "warning", "todo", "references",
}
_NUMPY_UNDERLINE = re.compile(r"^\s*-{3,}\s*$")
_GOOGLE_PARAM = re.compile(r"^\s*\*{0,2}(?P<name>[A-Za-z_][A-Za-z0-9_]*)\s*(\([^)]*\))?\s*:\s*(?P<desc>.*)$")
_SPHINX_FIELD = re.compile(r"^:(?P<kind>\w+)(?:\s+(?:[^:]*\s)?(?P<name>[A-Za-z_]\w*))?\s*:\s*(?P<desc>.*)$")
_NUMPY_PARAM = re.compile(r"^\*{0,2}[A-Za-z_]\w*(\s*,\s*\*{0,2}[A-Za-z_]\w*)*\s*(:.*)?$")


@dataclass
class Docstring:
    summary: str | None = None
    params: dict[str, str] = field(default_factory=dict)


def parse_docstring(doc: str | None) -> Docstring:
    """Split a docstring into its summary (text before the first section) and parameter descriptions."""
    if not doc:
        return Docstring()
    lines = inspect.cleandoc(doc).splitlines()
    summary_lines: list[str] = []
    params: dict[str, str] = {}
    i = 0
    in_summary = True
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        header = stripped.rstrip(":").lower()
        # NumPy: a title line followed by a dashed underline.
        if i + 1 < len(lines) and _NUMPY_UNDERLINE.match(lines[i + 1]) and stripped:
            in_summary = False
            i += 2
            body, i = _take_numpy_section(lines, i)
            if header in _GOOGLE_PARAM_SECTIONS:
                params.update(_numpy_params(body))
            continue
        # Google: "Args:" at column 0 with an indented body.
        if stripped.endswith(":") and header in _GOOGLE_SECTIONS and not line.startswith((" ", "\t")):
            in_summary = False
            i += 1
            body, i = _take_indented(lines, i)
            if header in _GOOGLE_PARAM_SECTIONS:
                params.update(_google_params(body))
            continue
        # Sphinx: ":param name: text" (continued by indented lines), and its other fields.
        field_match = _SPHINX_FIELD.match(stripped) if not line.startswith((" ", "\t")) else None
        if field_match is not None:
            in_summary = False
            i += 1
            more, i = _take_indented(lines, i)
            if field_match["kind"] in ("param", "parameter", "arg", "argument") and field_match["name"]:
                text = " ".join([field_match["desc"].strip(), *(m.strip() for m in more)]).strip()
                params[field_match["name"]] = text
            continue
        if in_summary:
            summary_lines.append(line)
        i += 1
    summary = "\n".join(summary_lines).strip() or None
    return Docstring(summary=summary, params=params)


def _take_indented(lines: list[str], i: int) -> tuple[list[str], int]:
    body: list[str] = []
    while i < len(lines) and (not lines[i].strip() or lines[i].startswith((" ", "\t"))):
        body.append(lines[i])
        i += 1
    return body, i


def _take_numpy_section(lines: list[str], i: int) -> tuple[list[str], int]:
    body: list[str] = []
    while i < len(lines):
        if i + 1 < len(lines) and lines[i].strip() and _NUMPY_UNDERLINE.match(lines[i + 1]):
            break
        body.append(lines[i])
        i += 1
    return body, i


def _dedent_width(body: list[str]) -> int:
    widths = [len(b) - len(b.lstrip()) for b in body if b.strip()]
    return min(widths) if widths else 0


def _google_params(body: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    base = _dedent_width(body)
    current: str | None = None
    for raw in body:
        if not raw.strip():
            continue
        indent = len(raw) - len(raw.lstrip())
        m = _GOOGLE_PARAM.match(raw)
        if indent == base and m:
            current = m.group("name")
            out[current] = m.group("desc").strip()
        elif current is not None:
            out[current] = (out[current] + " " + raw.strip()).strip()
    return out


def _numpy_params(body: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    base = _dedent_width(body)
    group: list[str] = []
    for raw in body:
        if not raw.strip():
            continue
        indent = len(raw) - len(raw.lstrip())
        if indent == base and _NUMPY_PARAM.match(raw.strip()):
            # "x, y : int" declares two parameters that share one description
            group = [n.strip().lstrip("*") for n in raw.split(":", 1)[0].split(",") if n.strip()]
            for n in group:
                out[n] = ""
            continue
        for n in group:
            out[n] = (out[n] + " " + raw.strip()).strip()
    return out
