#!/usr/bin/env python3
"""Check that the core's top-level modules depend on each other one way only.

Reads every core/src/**/*.rs, finds each top-level module's dependencies on the other
top-level modules (`use crate::...` trees with their groups, `super::`/`self::` resolved
against the file's and inline module's path, and paths written inline such as
`crate::server::Server`; a name lib.rs re-exports, `crate::Context`, counts as the module it
comes from), and builds the graph. Comments and string literals are left out, so a doc link
is not a dependency. Test code (`#[cfg(test)]` modules, tests.rs files) counts like the rest:
Rust lets a unit test reach anywhere, but a test that needs a higher layer belongs higher up.

It fails (exit 1) when
  - the reader misreads one of the forms in SELF_CHECKS below,
  - two or more modules import each other in a cycle (a strongly connected component of more
    than one module),
  - a module imports a module of a higher layer in LAYERS below (the file and line are named), or
  - a top-level module is missing from LAYERS, or LAYERS names one that does not exist.
Modules of the same layer may use each other (they must still form no cycle).

A feature lives in one folder even when its parts sit at different layers: LAYERS may name a
sub-module (`tasks::redis`), which is then a unit of its own, placed at its own layer. A file
belongs to the longest unit its module path starts with, and a path it names counts as the
longest unit that path starts with. A path written relative to the current module
(`use store::X` for a child `store`) is followed as well.

  python3 scripts/check-layers.py            # the check
  python3 scripts/check-layers.py --graph    # also every edge, with its first file:line
  python3 scripts/check-layers.py --no-layers  # only the cycle check

Standard library only. The last line is "N passed, M failed" over the four checks (the reader,
cycles, layer order, every module placed).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections import defaultdict

# The layer order, bottom first. A module may use modules of its own layer and of the layers
# below it, never one above; within a layer, imports must still form no cycle. A new top-level
# module is placed here when it is added (the check fails until it is).
LAYERS: list[tuple[str, list[str]]] = [
    # Spec types and parsed values: nothing of the crate below them.
    ("vocabulary", ["protocol", "schema", "identity", "uri_template", "authority"]),
    # How the bindings hand calls to their host thread on one CPU: tokio only.
    ("runtime", ["handover"]),
    # Errors, the JSON-RPC envelope, what a request carries besides its message, requests to
    # the client, and the change events the server, the tasks and Redis publish and hear.
    ("wire", ["error", "jsonrpc", "request", "client_requests", "bus"]),
    # What a handler sees and what primitives are built from; tasks sit under the Context that
    # links a call to its task.
    ("handlers", ["apps", "tasks", "context", "handler", "tool", "resource", "prompt", "skills",
                  "discovery", "macro_support", "completion", "element"]),
    # Services the server is built with: access, rate limits, metrics, Redis, telemetry, the
    # legacy sessions' state and stores, and the Redis backends of tasks.
    ("services", ["auth", "limits", "metrics", "redis", "http_client", "otel", "logging",
                  "session", "tasks::redis"]),
    # The dispatcher: one path for every transport; the server's side of tasks and sessions.
    ("server", ["server", "tasks::server", "session::server"]),
    # Framing: stdio and Streamable HTTP call the server.
    ("transport", ["transport"]),
    # The serde configuration builds servers and listeners.
    ("config", ["config"]),
    # The `oxmcp` command: a client of servers, above everything it may start.
    ("cli", ["cli"]),
]

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC = os.path.join(ROOT, "core", "src")

TOKEN = re.compile(r"\$?[A-Za-z_][A-Za-z0-9_]*|::|[{}(),;*<>\[\]#!=]|\S")


def strip(text: str) -> str:
    """The source with comments, strings and char literals blanked (newlines kept)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            i = j
            continue
        if text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append("\n" * text.count("\n", i, j))
            i = j
            continue
        m = re.match(r'b?r(#*)"', text[i:i + 260]) if c in "rb" and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")) else None
        if m:
            end = '"' + m.group(1)
            j = text.find(end, i + m.end())
            j = n if j < 0 else j + len(end)
            out.append('""' + "\n" * text.count("\n", i, j))
            i = j
            continue
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            j += 1
            out.append('""' + "\n" * text.count("\n", i, j))
            i = j
            continue
        if c == "'":
            # A char literal ('a', '\n', '\u{1F600}') or a lifetime ('a): only the literal is blanked.
            m = re.match(r"'(\\(u\{[0-9a-fA-F]+\}|x[0-9a-fA-F]{2}|.)|[^\\'])'", text[i:i + 12])
            if m:
                out.append("' '")
                i += m.end()
                continue
        out.append(c)
        i += 1
    return "".join(out)


def tokens(text: str):
    line = 1
    pos = 0
    for m in TOKEN.finditer(text):
        line += text.count("\n", pos, m.start())
        pos = m.start()
        yield m.group(0), line


def module_path(rel: str) -> list[str]:
    parts = rel[:-3].split(os.sep)
    if parts[-1] in ("mod", "lib"):
        parts = parts[:-1]
    return parts


def top_modules() -> list[str]:
    lib = strip(open(os.path.join(SRC, "lib.rs"), encoding="utf-8").read())
    return re.findall(r"\bmod\s+([A-Za-z_][A-Za-z0-9_]*)\s*;", lib)


def root_reexports(tops: set[str]) -> dict[str, str]:
    """Names lib.rs re-exports (`pub use server::Server;`) → the top-level module they come from."""
    lib = strip(open(os.path.join(SRC, "lib.rs"), encoding="utf-8").read())
    names: dict[str, str] = {}
    toks = list(tokens(lib))
    i = 0
    while i < len(toks):
        if toks[i][0] == "use":
            paths, i = parse_use(toks, i + 1)
            for segs, alias, _line in paths:
                if segs and segs[0] == "crate":
                    segs = segs[1:]
                if segs and segs[0] in tops:
                    names[alias or segs[-1]] = segs[0]
        i += 1
    return names


def parse_use(toks, i):
    """Parse a use tree starting at toks[i]; returns ([(segments, alias, line)], index of `;`)."""
    out = []

    def tree(i, prefix):
        segs = list(prefix)
        line = toks[i][1] if i < len(toks) else 0
        while i < len(toks):
            t, line = toks[i]
            if t == "::":
                i += 1
                continue
            if t == "{":
                i += 1
                while i < len(toks) and toks[i][0] not in ("}", ";"):
                    j = tree(i, segs)
                    if j < len(toks) and toks[j][0] == ",":
                        j += 1
                    i = max(j, i + 1)  # malformed input still moves on
                return i + 1 if i < len(toks) and toks[i][0] == "}" else i
            if t == "*":
                out.append((segs + ["*"], None, line))
                return i + 1
            if t in (",", "}", ";"):
                if segs and segs[-1] == "self":
                    segs = segs[:-1]
                out.append((segs, None, line))
                return i
            if t == "as":
                alias = toks[i + 1][0] if i + 1 < len(toks) else None
                if segs and segs[-1] == "self":
                    segs = segs[:-1]
                out.append((segs, alias, line))
                return i + 2
            segs.append(t)
            i += 1
        if len(segs) > len(prefix):
            out.append((segs, None, line))
        return i

    i = tree(i, [])
    while i < len(toks) and toks[i][0] != ";":
        i += 1
    return out, i


def resolve(segs: list[str], here: list[str]) -> list[str] | None:
    """The absolute path (from the crate root) of a path written in module `here`, or None when
    it does not start at the crate (an extern crate, a local name)."""
    if not segs:
        return None
    if segs[0] in ("crate", "$crate"):
        return segs[1:]
    if segs[0] == "self":
        return here + segs[1:]
    if segs[0] == "super":
        base = list(here)
        k = 0
        while k < len(segs) and segs[k] == "super":
            if not base:
                return None
            base.pop()
            k += 1
        return base + segs[k:]
    return None


def file_uses(text: str, base: list[str], tops: set[str], reexports: dict[str, str],
              known: set[tuple[str, ...]] = frozenset()):
    """The crate paths a file of module `base` names, each starting at a top-level module:
    [(path, line)], and the paths that name the crate root as a whole (`use super::*` in a
    top-level module): [(line, path)]. `known` holds every module path of the crate, so a path
    relative to the current module (`use store::X` for a child `store`) is followed too."""
    found: list[tuple[list[str], int]] = []
    unknown: list[tuple[int, str]] = []
    toks = list(tokens(strip(text)))
    # Inline modules (`mod tests { ... }`): the stack of (name, brace depth at its `{`).
    inline: list[tuple[str, int]] = []
    depth = 0
    i = 0

    def add(segs, line, here):
        p = resolve(segs, here)
        if p is None and segs and tuple(here + segs[:1]) in known:
            p = here + segs
        if p is None:
            return
        if not p or p[0] == "*":
            unknown.append((line, "::".join(segs)))
            return
        if p[0] in tops:
            found.append((p, line))
        elif p[0] in reexports:  # else an item of lib.rs itself, or an extern crate it re-exports
            found.append(([reexports[p[0]]], line))

    while i < len(toks):
        t, line = toks[i]
        here = base + [name for name, _ in inline]
        if t == "{":
            depth += 1
        elif t == "}":
            if inline and inline[-1][1] == depth:
                inline.pop()
            depth -= 1
        elif t == "mod" and i + 2 < len(toks) and toks[i + 2][0] == "{":
            inline.append((toks[i + 1][0], depth + 1))
            i += 2
            continue
        elif t == "use" and (i == 0 or toks[i - 1][0] != "::"):
            paths, j = parse_use(toks, i + 1)
            for segs, _alias, l in paths:
                add(segs, l, here)
            i = j + 1
            continue
        elif t in ("crate", "$crate", "super", "self") and i + 1 < len(toks) and toks[i + 1][0] == "::":
            if i > 0 and toks[i - 1][0] == "::":
                i += 1
                continue
            segs = [t]
            j = i + 1
            while j + 1 < len(toks) and toks[j][0] == "::" and re.match(r"[A-Za-z_]", toks[j + 1][0]):
                segs.append(toks[j + 1][0])
                j += 2
            # `pub(in crate::x)` is visibility, not use (`pub(crate)`, `pub(super)` have no `::`).
            if not (i >= 2 and toks[i - 1][0] == "in" and toks[i - 2][0] == "("):
                add(segs, line, here)
            i = j
            continue
        i += 1
    return found, unknown


def unit_of(path: list[str], units: set[str]) -> str:
    """The longest unit (a top-level module, or a sub-module LAYERS names) `path` starts with."""
    for k in range(len(path), 0, -1):
        u = "::".join(path[:k])
        if u in units:
            return u
    return path[0]


def known_modules() -> set[tuple[str, ...]]:
    """Every module path of the crate that has a file of its own."""
    out = set()
    for dirpath, _dirs, files in os.walk(SRC):
        for f in files:
            if f.endswith(".rs"):
                out.add(tuple(module_path(os.path.relpath(os.path.join(dirpath, f), SRC))))
    return out


def scan(tops: set[str], reexports: dict[str, str], units: set[str]):
    """{(from, to): [(file, line), ...]} over every file of core/src, between units."""
    edges: dict[tuple[str, str], list[tuple[str, int]]] = defaultdict(list)
    unknown: list[tuple[str, int, str]] = []
    known = known_modules()
    for dirpath, _dirs, files in os.walk(SRC):
        for f in sorted(files):
            if not f.endswith(".rs"):
                continue
            path = os.path.join(dirpath, f)
            rel = os.path.relpath(path, SRC)
            if rel == "lib.rs":
                continue
            base = module_path(rel)
            found, odd = file_uses(open(path, encoding="utf-8").read(), base, tops, reexports, known)
            src = unit_of(base, units)
            for p, line in found:
                dst = unit_of(p, units)
                if dst != src:
                    edges[(src, dst)].append((rel, line))
            unknown += [(rel, line, p) for line, p in odd]
    return edges, unknown


# The forms the reader must follow, each with the modules it must find: a wrong answer here
# means the graph above cannot be trusted, so it fails the run.
SELF_CHECKS: list[tuple[list[str], str, list[str]]] = [
    (["x"], "use crate::{a, b::c};", ["a", "b"]),
    (["x"], "use crate::a::{self as m, T};", ["a"]),
    (["x", "y", "z"], "use super::super::super::a::T;", ["a"]),
    (["x", "y"], "use super::w::T; use self::v::U; use super::super::a::T;", ["a"]),
    (["x"], "fn f() { crate::a::g(); let _: crate::b::T; }", ["a", "b"]),
    (["x"], "pub use crate::a::{b::{C, D}, e};", ["a"]),
    (["x"], "// crate::a::T\n/* crate::b /* nested */ crate::c */ let s = \"crate::d\";", []),
    (["x"], "let s = r#\"crate::a \"q\"\"#; let c = '\"'; crate::b::f();", ["b"]),
    (["x"], "fn f<'a>(s: &'a str) -> char { 'x' } fn g() { crate::a::h() }", ["a"]),
    (["x"], "mod tests { use super::*; use super::super::a::T; }", ["a"]),
    (["x"], "pub(in crate::a) fn f() {} pub(crate) fn g() {}", []),
    (["x"], "fn f() -> crate::Ctx { todo!() }", ["c"]),
    (["x"], "use ::a::T; use a::U; let v = std::a::f();", []),
    (["x"], "use crate::{a, ; use crate::b::{c, d}}}; use crate::c", ["a", "b", "c"]),
    # Sub-module units: `a::s` is a unit of its own; `x::k` is a child module of `x`.
    (["x"], "use crate::a::s::T; use crate::a::t::U;", ["a", "a::s"]),
    (["a", "s"], "use super::T; use crate::a::s::q::V;", ["a"]),
    (["x"], "use k::T; pub use k::U; use j::V;", ["x::k"]),
]


def self_check() -> list[str]:
    tops = {"a", "b", "c", "d", "x"}
    units = tops | {"a::s", "x::k"}
    known = {("x",), ("x", "k"), ("a",), ("a", "s"), ("a", "s", "q")}
    problems = []
    for base, text, want in SELF_CHECKS:
        found, _ = file_uses(text, base, tops, {"Ctx": "c"}, known)
        src = unit_of(base, units)
        got = sorted({u for u in (unit_of(p, units) for p, _ in found) if u != src})
        if got != sorted(want):
            problems.append(f"{'::'.join(base)}: {text!r} read as {got}, not {sorted(want)}")
    return problems


def sccs(nodes: list[str], adj: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(adj.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(sorted(comp))

    for v in nodes:
        if v not in index:
            visit(v)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--graph", action="store_true", help="print every edge with its first file:line")
    ap.add_argument("--no-layers", action="store_true", help="check only for cycles")
    args = ap.parse_args()

    passed = failed = 0
    problems = self_check()
    if problems:
        failed += 1
        print("check-layers: FAIL: the reader misreads forms it must follow:")
        for p in problems:
            print(f"    {p}")
    else:
        passed += 1
        print(f"check-layers: ok: the reader follows the {len(SELF_CHECKS)} forms of its self-check")

    tops_list = top_modules()
    tops = set(tops_list)
    subs = [m for _name, mods in LAYERS for m in mods if "::" in m]
    units = tops | set(subs)
    edges, unknown = scan(tops, root_reexports(tops), units)
    adj: dict[str, set[str]] = defaultdict(set)
    for a, b in edges:
        adj[a].add(b)

    print(f"check-layers: {len(tops)} top-level modules in core/src and {len(subs)} sub-modules placed "
          f"on their own, {len(edges)} edges between them")
    if args.graph:
        for (a, b), at in sorted(edges.items()):
            f, l = at[0]
            print(f"  {a} -> {b}  ({len(at)} uses; first core/src/{f}:{l})")
    for f, l, p in unknown:
        print(f"check-layers: core/src/{f}:{l}: `{p}` names the crate root as a whole; not followed")

    comps = sccs(sorted(units), adj)
    cyclic = [c for c in comps if len(c) > 1]
    if cyclic:
        failed += 1
        for c in cyclic:
            print(f"check-layers: FAIL: {len(c)} modules import each other in a cycle: {', '.join(c)}")
            members = set(c)
            for (a, b), at in sorted(edges.items()):
                if a in members and b in members:
                    f, l = at[0]
                    print(f"    {a} -> {b}  (core/src/{f}:{l}{', +%d more' % (len(at) - 1) if len(at) > 1 else ''})")
    else:
        passed += 1
        print("check-layers: ok: no import cycle among the top-level modules")

    if not args.no_layers:
        rank = {m: r for r, (_name, mods) in enumerate(LAYERS) for m in mods}
        missing = [m for m in tops_list if m not in rank]
        here = known_modules()
        stale = [m for m in rank if m not in tops and tuple(m.split("::")) not in here]
        if missing or stale:
            failed += 1
            if missing:
                print(f"check-layers: FAIL: not placed in LAYERS (scripts/check-layers.py): {', '.join(missing)}")
            if stale:
                print(f"check-layers: FAIL: in LAYERS but not a module of core/src: {', '.join(stale)}")
        else:
            passed += 1
        upward = []
        for (a, b), at in sorted(edges.items()):
            if a in rank and b in rank and rank[b] > rank[a]:
                for f, l in sorted(set(at), key=lambda x: (x[0], x[1])):
                    upward.append(f"core/src/{f}:{l}: {a} ({LAYERS[rank[a]][0]}) imports {b} ({LAYERS[rank[b]][0]})")
        if upward:
            failed += 1
            print(f"check-layers: FAIL: {len(upward)} upward imports (a lower layer using a higher one):")
            for u in upward:
                print(f"    {u}")
        else:
            passed += 1
            print("check-layers: ok: every import points to the same or a lower layer")

    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
