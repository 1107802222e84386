"""mkdocs hooks for the documentation site (mkdocs.yml).

- A relative link from a page to a repository file outside docs/ (an example, a test,
  bench/RESULTS.md) works on GitHub as written; on the site it becomes a link to that file on
  GitHub. The file must exist: a missing one is a warning, so `mkdocs build --strict` fails on it
  as it does on a broken link between pages.
- `<!-- include: PATH -->` on a line of its own is replaced by the repository file PATH, its
  relative links rebased and its headings one level down, so a page can show a file that lives beside the code it describes.
- A Rust block's rustdoc hidden lines (`# ...`, there so that the block compiles as a doctest)
  are left out, as docs.rs leaves them out.
- `<!-- bench-charts -->` is replaced by bar charts drawn from bench/RESULTS.md's tables
  (scripts/bench_charts.py).
- `<!-- node-api -->` is replaced by the Node API reference, generated from
  bindings-node/index.d.ts by scripts/node_api.py (the typings are the source; nothing generated
  is committed).
"""

from __future__ import annotations

import logging
import posixpath
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = "docs"
BLOB = "https://github.com/oxmcp/oxmcp/blob/main/"
TREE = "https://github.com/oxmcp/oxmcp/tree/main/"

log = logging.getLogger("mkdocs.plugins.oxmcp")

FENCE = re.compile(r"^( {0,3})(`{3,}|~{3,})", re.MULTILINE)
LINK = re.compile(r"(\]\()([^)\s]+)(\))")
INCLUDE = re.compile(r"^<!-- include: (\S+) -->$", re.MULTILINE)
RUST_FENCE = re.compile(r"^ {0,3}`{3,}rust\b")
HIDDEN = re.compile(r"^\s*#(?: .*)?\n", re.MULTILINE)


def _split_fences(text: str) -> list[tuple[bool, str]]:
    """The text cut into (is_code, chunk) pieces, so links inside code blocks are left alone."""
    out: list[tuple[bool, str]] = []
    pos, fence = 0, None
    for m in FENCE.finditer(text):
        if fence is None:
            out.append((False, text[pos:m.start()]))
            pos, fence = m.start(), m.group(2)
        elif m.group(2).startswith(fence):
            end = text.find("\n", m.end())
            end = len(text) if end < 0 else end + 1
            out.append((True, text[pos:end]))
            pos, fence = end, None
    out.append((fence is not None, text[pos:]))
    return out


def _rewrite_links(text: str, src_dir: str, page_dir: str, where: str) -> str:
    """Rebase the relative links of `text`, written in repository folder `src_dir`, for a page in
    docs/`page_dir`: links into docs/ stay relative (mkdocs checks them), others go to GitHub."""

    def one(m: re.Match[str]) -> str:
        target = m.group(2)
        if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith(("#", "/")):
            return m.group(0)
        path, _, anchor = target.partition("#")
        repo_path = posixpath.normpath(posixpath.join(src_dir, path))
        if repo_path == DOCS or repo_path.startswith(DOCS + "/"):
            rel = posixpath.relpath(repo_path, posixpath.join(DOCS, page_dir) if page_dir else DOCS)
            return f"{m.group(1)}{rel}{'#' + anchor if anchor else ''}{m.group(3)}"
        full = ROOT / repo_path
        if repo_path.startswith("..") or not full.exists():
            log.warning("%s: link to %s: no such file in the repository", where, target)
            return m.group(0)
        base = TREE if full.is_dir() else BLOB
        return f"{m.group(1)}{base}{repo_path}{'#' + anchor if anchor else ''}{m.group(3)}"

    return LINK.sub(one, text)


def _include(m: re.Match[str], page_dir: str, where: str) -> str:
    rel = m.group(1)
    path = ROOT / rel
    if not path.is_file():
        log.warning("%s: include of %s: no such file", where, rel)
        return m.group(0)
    text = path.read_text(encoding="utf-8")
    # One heading level down: the included file's title sits under the page's own.
    return "".join(chunk if code else re.sub(r"^(#{1,5}) ", r"#\1 ", _rewrite_links(chunk, posixpath.dirname(rel), page_dir, where), flags=re.MULTILINE)
                   for code, chunk in _split_fences(text))


def on_page_markdown(markdown: str, page, config, files) -> str:
    src = page.file.src_uri
    page_dir = posixpath.dirname(src)
    src_dir = posixpath.join(DOCS, page_dir) if page_dir else DOCS
    pieces = []
    for code, chunk in _split_fences(markdown):
        if code and RUST_FENCE.match(chunk):
            # rustdoc's hidden lines (`# use ...;`) make a fragment compile as a doctest; the
            # reader sees the fragment, as on docs.rs.
            first, _, rest = chunk.partition("\n")
            # rustdoc's attributes (`rust,no_run`, `rust,ignore`) are not a language the
            # highlighter knows, and superfences takes such a line for no fence at all.
            first = re.sub(r"^( {0,3}`{3,})rust\S*", r"\1rust", first)
            chunk = first + "\n" + HIDDEN.sub("", rest)
        if not code:
            chunk = _rewrite_links(chunk, src_dir, page_dir, src)
            chunk = INCLUDE.sub(lambda m: _include(m, page_dir, src), chunk)
            if "<!-- bench-charts -->" in chunk:
                sys.path.insert(0, str(ROOT / "scripts"))
                import bench_charts

                chunk = chunk.replace("<!-- bench-charts -->", bench_charts.render(ROOT / "bench" / "RESULTS.md"))
            if "<!-- node-api -->" in chunk:
                sys.path.insert(0, str(ROOT / "scripts"))
                import node_api

                chunk = chunk.replace("<!-- node-api -->", node_api.render(ROOT / "bindings-node" / "index.d.ts"))
        pieces.append(chunk)
    return "".join(pieces)
