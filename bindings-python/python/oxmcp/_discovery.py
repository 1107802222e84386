"""Discovery: ``@oxmcp.tool`` / ``@oxmcp.resource`` / ``@oxmcp.prompt`` mark functions where they are
defined, with no server; ``Server.discover("myapp.tools")`` (or a directory) imports the modules below
it in sorted order and registers what is marked.

What is host idiom stays here: marking, importing modules, the place of a function. Which of two
registrations of one name wins is the core's rule (``oxmcp::discovery::admit``, asked through
``Server._settle``): one registered by hand wins whatever the order, two discovered are an error
naming both places.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import os
import pkgutil
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from types import ModuleType
from typing import Any, NamedTuple, TypeVar

from ._errors import DefinitionError

F = TypeVar("F", bound=Callable[..., Any])

__all__ = ["MARK", "discover", "prompt", "resource", "resource_template", "tool"]

#: The attribute a marked function carries: a list of ``Mark``.
MARK = "__oxmcp_marks__"


class Mark(NamedTuple):
    kind: str  # "tool" | "resource" | "prompt"
    uri: str | None
    kwargs: dict[str, Any]


class Found(NamedTuple):
    """One marked function found by discovery, and where it is defined."""

    kind: str
    name: str
    module: str
    file: str
    line: int
    fn: Callable[..., Any]
    mark: Mark

    @property
    def place(self) -> tuple[str, str, int]:
        return (self.module, self.file, self.line)


_KEYWORDS: dict[str, frozenset[str]] = {}


def _keywords(kind: str) -> frozenset[str]:
    """The keywords the server's own decorator of ``kind`` takes (so both spellings take the same)."""
    got = _KEYWORDS.get(kind)
    if got is None:
        from ._handlers import PromptEntry
        from ._server import Server

        if kind == "tool":
            params = inspect.signature(Server.add_tool).parameters
            got = frozenset(params) - {"self", "fn", "replace"}
        elif kind == "resource":
            got = frozenset(inspect.signature(Server.resource).parameters) - {"self", "uri"}
        else:
            got = (frozenset(inspect.signature(PromptEntry.__init__).parameters) - {"self", "fn", "server"}) | {
                "completions"}
        _KEYWORDS[kind] = got
    return got


def _mark(fn: Any, kind: str, uri: str | None, kwargs: dict[str, Any], what: str) -> None:
    if not callable(fn):
        raise TypeError(f"@oxmcp.{what} marks a function, got {type(fn).__name__}")
    unknown = sorted(set(kwargs) - _keywords(kind))
    if unknown:
        raise TypeError(f"@oxmcp.{what}: unexpected keyword argument{'s' if len(unknown) > 1 else ''} "
                        f"{', '.join(map(repr, unknown))}")
    marks = fn.__dict__.get(MARK)
    if marks is None:
        marks = []
        setattr(fn, MARK, marks)
    marks.append(Mark(kind, uri, dict(kwargs)))


def tool(fn: Any = None, **kwargs: Any) -> Any:
    """Mark a function as a tool for :meth:`Server.discover`: ``@oxmcp.tool`` or ``@oxmcp.tool(name=...)``,
    with the keywords of ``@server.tool``."""
    if isinstance(fn, str):
        kwargs.setdefault("name", fn)
        fn = None
    if fn is None:
        def deco(f: F) -> F:
            _mark(f, "tool", None, kwargs, "tool")
            return f
        return deco
    _mark(fn, "tool", None, kwargs, "tool")
    return fn


def resource(uri: str, **kwargs: Any) -> Callable[[F], F]:
    """Mark a function as a resource (``"config://app"``) or template (``"user://{id}"``) for
    :meth:`Server.discover`, with the keywords of ``@server.resource``."""
    if not isinstance(uri, str):
        raise TypeError("@oxmcp.resource(uri, ...) needs the URI (or URI template) first")

    def deco(f: F) -> F:
        _mark(f, "resource", uri, kwargs, "resource")
        return f
    return deco


def resource_template(uri_template: str, **kwargs: Any) -> Callable[[F], F]:
    """:func:`resource` for a URI template, which must have a ``{variable}``."""
    if not isinstance(uri_template, str) or "{" not in uri_template:
        raise TypeError(f"@oxmcp.resource_template({uri_template!r}): a URI template has a {{variable}}")
    return resource(uri_template, **kwargs)


def prompt(fn: Any = None, **kwargs: Any) -> Any:
    """Mark a function as a prompt for :meth:`Server.discover`, with the keywords of ``@server.prompt``."""
    if isinstance(fn, str):
        kwargs.setdefault("name", fn)
        fn = None
    if fn is None:
        def deco(f: F) -> F:
            _mark(f, "prompt", None, kwargs, "prompt")
            return f
        return deco
    _mark(fn, "prompt", None, kwargs, "prompt")
    return fn


# -- finding modules ---------------------------------------------------------------------------------

def _excluded(exclude: frozenset[str], dotted: str) -> bool:
    """``exclude`` holds names (a package or directory anywhere below the root: ``vendor``) and
    dotted module names (``myapp.tools.legacy``, and what is below it)."""
    parts = dotted.split(".")
    if any(p in exclude for p in parts[1:]):
        return True
    return any(dotted == e or dotted.startswith(e + ".") for e in exclude if "." in e)


def _import(name: str, file: str | None) -> ModuleType:
    try:
        return importlib.import_module(name)
    except Exception as e:
        raise DefinitionError(f"discovery: cannot import {file or name} (module {name}): "
                              f"{type(e).__name__}: {e}") from e


def _package_modules(name: str, exclude: frozenset[str]) -> list[ModuleType]:
    spec = importlib.util.find_spec(name)
    if spec is None:
        raise DefinitionError(f"discovery: no module or package named {name!r} (and no such directory)")
    root = _import(name, spec.origin)
    out = [root]
    todo = [root]
    while todo:
        pkg = todo.pop()
        path = getattr(pkg, "__path__", None)
        if path is None:
            continue
        for info in sorted(pkgutil.iter_modules(path), key=lambda i: i.name):
            full = f"{pkg.__name__}.{info.name}"
            if _excluded(exclude, full):
                continue
            finder_path = getattr(info.module_finder, "path", None)
            file = os.path.join(finder_path, info.name) if isinstance(finder_path, str) else None
            mod = _import(full, file)
            out.append(mod)
            if info.ispkg:
                todo.append(mod)
    return out


def _directory_modules(root: Path, exclude: frozenset[str]) -> list[ModuleType]:
    """Every ``.py`` file below ``root``. A package directory (it has ``__init__.py``) is imported as
    the package of that name, its parent put on ``sys.path``; the files of a plain directory are
    loaded each on its own, as modules named by their path below it (``math/add.py``: ``math.add``)."""
    if (root / "__init__.py").is_file():
        parent = str(root.parent)
        if parent not in sys.path:
            sys.path.append(parent)
        return _package_modules(root.name, exclude)
    files: list[tuple[str, Path]] = []
    for dirpath, dirnames, filenames in os.walk(root):
        rel = Path(dirpath).relative_to(root).parts
        dirnames[:] = [d for d in dirnames
                       if d not in exclude and d != "__pycache__" and not d.startswith(".")]
        for f in filenames:
            if f.endswith(".py"):
                stem = f[:-3]
                dotted = ".".join((*rel, stem)) if stem != "__init__" else ".".join(rel)
                if dotted and not _excluded(exclude, "_." + dotted):
                    files.append((dotted, Path(dirpath) / f))
    out = []
    for dotted, file in sorted(files):
        spec = importlib.util.spec_from_file_location(dotted, file)
        assert spec is not None and spec.loader is not None
        mod = importlib.util.module_from_spec(spec)
        # In sys.modules while it runs (dataclasses and typing look a module up there), and not
        # after: two directories may both hold an `a.py`, and a plain directory's `math.py` is not
        # the standard library's. Use a package for modules that import each other.
        previous = sys.modules.get(dotted)
        sys.modules[dotted] = mod
        try:
            spec.loader.exec_module(mod)
        except Exception as e:
            raise DefinitionError(f"discovery: cannot import {file} (module {dotted}): "
                                  f"{type(e).__name__}: {e}") from e
        finally:
            if previous is None:
                sys.modules.pop(dotted, None)
            else:
                sys.modules[dotted] = previous
        out.append(mod)
    return out


def find(target: str | os.PathLike[str], exclude: Iterable[str] = ()) -> list[Found]:
    """Import the modules of ``target`` (a package name or a directory) and return what is marked in
    them, sorted by module then name. A function is found in the module that defines it only."""
    ex = frozenset(exclude)
    if isinstance(target, os.PathLike) or os.sep in target or "/" in target or os.path.isdir(target):
        root = Path(target).resolve()
        if not root.is_dir():
            raise DefinitionError(f"discovery: {os.fspath(target)} is not a directory")
        modules = _directory_modules(root, ex)
    else:
        modules = _package_modules(target, ex)
    found: list[Found] = []
    for mod in modules:
        for value in list(vars(mod).values()):
            d = getattr(value, "__dict__", None)
            if type(d) is not dict or MARK not in d or getattr(value, "__module__", None) != mod.__name__:
                continue
            code = getattr(inspect.unwrap(value), "__code__", None)
            file = code.co_filename if code is not None else (getattr(mod, "__file__", None) or "")
            line = code.co_firstlineno if code is not None else 0
            for mark in d[MARK]:
                if mark.kind == "resource":
                    name = str(mark.uri)
                else:
                    name = mark.kwargs.get("name") or value.__name__
                found.append(Found(mark.kind, name, mod.__name__, file, line, value, mark))
    found.sort(key=lambda f: (f.module, f.name, f.line))
    return found


def discover(server: Any, target: str | os.PathLike[str], exclude: Iterable[str] = ()) -> list[Found]:
    """Register on ``server`` what :func:`find` finds, each with its place as its origin."""
    found = find(target, exclude)
    # One lock for the whole discovery: the origin it sets is read by the registrations it makes.
    with server._lock:
        before = server._origin
        try:
            for f in found:
                server._origin = f.place
                # Through the server's own decorators: a subclass's rules (FastMCP's defaults) apply alike.
                if f.kind == "tool":
                    server.tool(**f.mark.kwargs)(f.fn)
                elif f.kind == "resource":
                    server.resource(str(f.mark.uri), **f.mark.kwargs)(f.fn)
                else:
                    server.prompt(**f.mark.kwargs)(f.fn)
        finally:
            server._origin = before
    return found
