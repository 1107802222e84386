"""The import hook of ``oxmcp run``: ``mcp``, ``mcp.*``, ``mcp_types``, ``fastmcp`` and ``fastmcp.*`` are
oxmcp's mirrors.

With it installed (``oxmcp run`` installs it in the process it serves), a server written for FastMCP or
the ``mcp`` SDK runs on oxmcp unmodified: ``import mcp.server.stdio`` binds ``mcp`` to oxmcp's
package and ``mcp.server.stdio`` to ``oxmcp.server.stdio``, so module-qualified calls work too.

Only the modules in ``MIRRORS`` resolve. Any other module of those packages raises an
``ImportError`` that names it: the real package is never imported behind the server's back, since
half a server on oxmcp and half on the SDK would not work (and would not say why).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
from collections.abc import Sequence
from types import ModuleType

__all__ = ["MIRRORS", "DropInFinder", "install", "installed"]

#: The packages the hook takes over.
PACKAGES = ("mcp", "fastmcp", "mcp_types")

#: Each upstream module oxmcp mirrors, and the oxmcp module that stands for it.
MIRRORS: dict[str, str] = {
    # mcp (1.x and 2.x); its top level is oxmcp's with the SDK's Client and types (_mirror_mcp.py)
    "mcp": "oxmcp._mirror_mcp",
    "mcp.types": "oxmcp.types",
    "mcp_types": "oxmcp.types",  # mcp 2.x's types package
    "mcp.client": "oxmcp.client",
    "mcp.client.client": "oxmcp.client",
    "mcp.client.session": "oxmcp._client_session",
    "mcp.client.context": "oxmcp._client_session",
    "mcp.client.extension": "oxmcp._client_claims",
    "mcp.shared": "oxmcp.shared",
    "mcp.shared.exceptions": "oxmcp.shared.exceptions",
    "mcp.shared.context": "oxmcp.shared.context",
    "mcp.server": "oxmcp.server",
    "mcp.server.context": "oxmcp.server.context",
    "mcp.server.models": "oxmcp.server.models",
    "mcp.server.session": "oxmcp.server.session",
    "mcp.server.elicitation": "oxmcp.server.elicitation",
    "mcp.server.sse": "oxmcp.server.sse",
    "mcp.server.stdio": "oxmcp.server.stdio",
    "mcp.server.transport_security": "oxmcp.server.transport_security",
    "mcp.shared.memory": "oxmcp.shared.memory",
    "mcp.shared.message": "oxmcp.shared.message",
    "mcp.shared.session": "oxmcp.shared.session",
    "mcp.shared.uri_template": "oxmcp.shared.uri_template",
    "mcp.shared.path_security": "oxmcp.shared.path_security",
    "mcp.shared.tool_name_validation": "oxmcp.shared.tool_name_validation",
    "mcp.server.subscriptions": "oxmcp.server.subscriptions",
    "mcp.server.extension": "oxmcp.server.extension",
    "mcp.server.apps": "oxmcp.server.apps",
    "mcp.server.request_state": "oxmcp.server.request_state",
    "mcp.server.mcpserver.resolve": "oxmcp.server.mcpserver.resolve",
    "mcp.shared.metadata_utils": "oxmcp.shared.metadata_utils",
    "mcp.server.streamable_http_manager": "oxmcp.server.streamable_http_manager",
    "mcp.server.streamable_http": "oxmcp.server.streamable_http",
    "mcp.client.streamable_http": "oxmcp._client_http",
    "mcp.client.sse": "oxmcp._client_sse",
    "mcp.shared.inbound": "oxmcp.shared.inbound",
    "mcp.shared.transport_context": "oxmcp.shared.transport_context",
    "mcp.server.runner": "oxmcp.server.runner",
    "mcp.server._streamable_http_modern": "oxmcp.server._streamable_http_modern",
    "mcp.shared._compat": "oxmcp.shared._compat",
    "mcp_types.version": "oxmcp.types.version",
    "mcp.shared._stream_protocols": "oxmcp.shared._stream_protocols",
    "mcp.server.validation": "oxmcp.server.validation",
    "mcp.server.auth": "oxmcp.server.auth",
    "mcp.server.auth.provider": "oxmcp.server.auth.provider",
    "mcp.server.auth.settings": "oxmcp.server.auth.settings",
    "mcp.server.auth.middleware": "oxmcp.server.auth.middleware",
    "mcp.server.auth.middleware.bearer_auth": "oxmcp.server.auth.middleware.bearer_auth",
    "mcp.server.auth.middleware.auth_context": "oxmcp.server.auth.middleware.auth_context",
    "mcp.server.lowlevel": "oxmcp.server.lowlevel",
    "mcp.server.lowlevel.server": "oxmcp.server.lowlevel.server",
    "mcp.server.lowlevel.helper_types": "oxmcp.server.lowlevel.helper_types",
    # mcp 1.x's FastMCP
    "mcp.server.fastmcp": "oxmcp.server.fastmcp",
    "mcp.server.fastmcp.server": "oxmcp.server.fastmcp",
    "mcp.server.fastmcp.exceptions": "oxmcp.exceptions",
    "mcp.server.fastmcp.tools": "oxmcp.server.mcpserver.tools",
    "mcp.server.fastmcp.tools.base": "oxmcp.server.mcpserver.tools",
    "mcp.server.fastmcp.prompts": "oxmcp.server.fastmcp.prompts",
    "mcp.server.fastmcp.prompts.base": "oxmcp.server.fastmcp.prompts.base",
    "mcp.server.fastmcp.resources": "oxmcp.server.fastmcp.resources",
    "mcp.server.fastmcp.resources.base": "oxmcp.server.fastmcp.resources",
    "mcp.server.fastmcp.resources.types": "oxmcp.server.fastmcp.resources",
    "mcp.server.fastmcp.resources.templates": "oxmcp.server.fastmcp.resources",
    "mcp.server.fastmcp.utilities": "oxmcp.utilities",
    "mcp.server.fastmcp.utilities.types": "oxmcp.utilities.types",
    "mcp.server.fastmcp.utilities.logging": "oxmcp.utilities.logging",
    # mcp 2.x's MCPServer
    "mcp.server.mcpserver": "oxmcp.server.mcpserver",
    "mcp.server.mcpserver.server": "oxmcp.server.mcpserver",
    "mcp.server.mcpserver.context": "oxmcp.server.context",
    "mcp.server.mcpserver.exceptions": "oxmcp.server.mcpserver.exceptions",
    "mcp.server.mcpserver.resources": "oxmcp.server.mcpserver.resources",
    "mcp.server.mcpserver.resources.base": "oxmcp.server.mcpserver.resources",
    "mcp.server.mcpserver.resources.types": "oxmcp.server.mcpserver.resources",
    "mcp.server.mcpserver.resources.templates": "oxmcp.server.mcpserver.resources",
    "mcp.server.mcpserver.tools": "oxmcp.server.mcpserver.tools",
    "mcp.server.mcpserver.tools.base": "oxmcp.server.mcpserver.tools",
    "mcp.server.mcpserver.tools.tool_manager": "oxmcp.server.mcpserver.tools",
    "mcp.server.mcpserver.prompts": "oxmcp.server.fastmcp.prompts",
    "mcp.server.mcpserver.prompts.base": "oxmcp.server.fastmcp.prompts.base",
    "mcp.server.mcpserver.utilities": "oxmcp.utilities",
    "mcp.server.mcpserver.utilities.types": "oxmcp.utilities.types",
    "mcp.server.mcpserver.utilities.logging": "oxmcp.utilities.logging",
    # FastMCP (2.x to 4.x)
    "fastmcp": "oxmcp._mirror_fastmcp",
    "fastmcp.client": "oxmcp._fastmcp_client",
    "fastmcp.client.client": "oxmcp._fastmcp_client",
    "fastmcp.exceptions": "oxmcp.exceptions",
    "fastmcp.prompts": "oxmcp.prompts",
    "fastmcp.prompts.prompt": "oxmcp.prompts",
    "fastmcp.prompts.base": "oxmcp.prompts.base",
    "fastmcp.prompts.function_prompt": "oxmcp.prompts.function_prompt",
    "fastmcp.tools": "oxmcp.tools",
    "fastmcp.resources": "oxmcp.resources",
    "fastmcp.resources.base": "oxmcp.resources.base",
    "fastmcp.resources.function_resource": "oxmcp.resources.function_resource",
    "fastmcp.resources.security": "oxmcp.resources.security",
    "fastmcp.resources.template": "oxmcp.resources.template",
    "fastmcp.resources.types": "oxmcp.resources.types",
    "fastmcp.tools.tool": "oxmcp.tools.tool",
    "fastmcp.tools.base": "oxmcp.tools.base",
    "fastmcp.tools.function_tool": "oxmcp.tools.function_tool",
    "fastmcp.server": "oxmcp.server",
    "fastmcp.server.context": "oxmcp.server.context",
    "fastmcp.server.server": "oxmcp._fastmcp",
    "fastmcp.server.lifespan": "oxmcp.server.lifespan",
    "fastmcp.server.http": "oxmcp.server.http",
    "fastmcp.server.elicitation": "oxmcp._compat_ctx",
    "fastmcp.server.dependencies": "oxmcp.server.dependencies",
    "fastmcp.server.sessions": "oxmcp.server.sessions",
    "fastmcp.dependencies": "oxmcp.dependencies",
    "fastmcp.server.completions": "oxmcp.server.completions",
    "fastmcp.server.auth": "oxmcp.server.fastmcp_auth",
    "fastmcp.server.auth.providers": "oxmcp.server.fastmcp_auth.providers",
    "fastmcp.server.auth.providers.jwt": "oxmcp.server.fastmcp_auth.providers.jwt",
    "fastmcp.server.middleware": "oxmcp.server.middleware",
    "fastmcp.server.middleware.middleware": "oxmcp.server.middleware.middleware",
    "fastmcp.server.middleware.authorization": "oxmcp.server.middleware.authorization",
    "fastmcp.server.middleware.timing": "oxmcp.server.middleware.timing",
    "fastmcp.server.middleware.logging": "oxmcp.server.middleware.logging",
    "fastmcp.server.middleware.error_handling": "oxmcp.server.middleware.error_handling",
    "fastmcp.server.middleware.rate_limiting": "oxmcp.server.middleware.rate_limiting",
    "fastmcp.server.middleware.ping": "oxmcp.server.middleware.ping",
    "fastmcp.server.transforms": "oxmcp.server.transforms",
    "fastmcp.server.transforms.search": "oxmcp.server.transforms.search",
    "fastmcp.server.transforms.tool_transform": "oxmcp.server.transforms.tool_transform",
    "fastmcp.tools.tool_transform": "oxmcp.tools.tool_transform",
    "fastmcp.utilities": "oxmcp.utilities",
    "fastmcp.utilities.types": "oxmcp.utilities.types",
    "fastmcp.utilities.json_schema": "oxmcp.utilities.json_schema",
    "fastmcp.utilities.logging": "oxmcp.utilities.logging",
    "fastmcp.utilities.pagination": "oxmcp.utilities.pagination",
    "fastmcp.utilities.tests": "oxmcp.utilities.tests",
    "fastmcp.utilities.lifespan": "oxmcp.utilities.lifespan",
    "fastmcp.skills": "oxmcp.skills",
    "fastmcp.skills.provider": "oxmcp.skills.provider",
    "fastmcp.skills.extension": "oxmcp.skills.extension",
    "fastmcp.skills.client": "oxmcp.skills.client",
    "fastmcp.server.providers": "oxmcp.server.providers",
    "fastmcp.server.providers.skills": "oxmcp.skills.provider",
}


class _AliasLoader(importlib.abc.Loader):
    """Loads an upstream name as the already-imported oxmcp module (one module object, two names)."""

    def __init__(self, target: str) -> None:
        self.target = target
        self._own_spec: importlib.machinery.ModuleSpec | None = None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        module = importlib.import_module(self.target)
        self._own_spec = module.__spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        # The import system set the alias's spec on the shared module; the module keeps its own
        # (its relative imports, reloads and pickling go by it).
        module.__spec__ = self._own_spec


class DropInFinder(importlib.abc.MetaPathFinder):
    """A ``sys.meta_path`` finder for ``mcp`` / ``fastmcp`` and their submodules."""

    def find_spec(self, fullname: str, path: Sequence[str] | None = None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        top = fullname.partition(".")[0]
        if top not in PACKAGES:
            return None
        mirror = MIRRORS.get(fullname)
        if mirror is None:
            raise ModuleNotFoundError(
                f"No module named {fullname!r}: oxmcp does not provide it. Under `oxmcp run`, the "
                f"{top!r} package is oxmcp's mirror of it, and this module is not mirrored "
                "(docs/COMPATIBILITY.md lists the modules that are)", name=fullname)
        return importlib.machinery.ModuleSpec(fullname, _AliasLoader(mirror))


_FINDER = DropInFinder()


def install(mcp_major: int | None = None) -> None:
    """Resolve ``mcp`` and ``fastmcp`` to oxmcp in this process (idempotent).

    ``mcp.types`` (and ``mcp_types``) read as the types of the ``mcp`` generation the server is
    written for, ``mcp_major``: by default the installed ``mcp`` distribution's (the server's own
    dependency, still in place under ``oxmcp run``), else 1. Under 2, a resource's URI is the string
    given and a dump by field name spells the fields in snake_case, as mcp 2.x's models do.

    Modules of those packages already imported by then are the real ones, and a mix cannot work:
    that is an error naming them.
    """
    if mcp_major is None:
        mcp_major = _installed_mcp_major()
    if mcp_major not in (1, 2):
        raise ValueError(f"oxmcp mirrors mcp 1.x and 2.x, not mcp {mcp_major}.x")
    if _FINDER in sys.meta_path:
        return
    loaded = sorted(m for m in sys.modules if m.partition(".")[0] in PACKAGES)
    if loaded:
        raise RuntimeError(f"oxmcp's import hook must be installed before {', '.join(loaded[:3])} "
                           "is imported")
    from .types._base import GENERATION

    GENERATION.major = mcp_major
    sys.meta_path.insert(0, _FINDER)


def _installed_mcp_major() -> int:
    from importlib import metadata

    try:
        major = metadata.version("mcp").split(".", 1)[0]
    except metadata.PackageNotFoundError:
        return 1
    return 2 if major == "2" else 1


def installed() -> bool:
    return _FINDER in sys.meta_path
