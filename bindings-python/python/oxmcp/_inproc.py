"""Reading a server's own resources in-process (``ctx.read_resource``), as FastMCP and the SDK allow."""

from __future__ import annotations

import base64
import re
from typing import Any

from ._compat_ctx import AttrDict
from ._errors import McpError, ResourceError

_EXPR = re.compile(r"\{([+#./;?&]?)([A-Za-z0-9_,*]+)\}")


def _template_regex(template: str) -> re.Pattern[str]:
    out, pos = [], 0
    for m in _EXPR.finditer(template):
        out.append(re.escape(template[pos:m.start()]))
        op, names = m.group(1), m.group(2).split(",")
        for i, raw in enumerate(names):
            name = raw.rstrip("*")
            wide = op in ("+", "#") or raw.endswith("*")
            if i:
                out.append(",")
            out.append(f"(?P<{name}>{'.+' if wide else '[^/?#,]+'})")
        pos = m.end()
    out.append(re.escape(template[pos:]))
    return re.compile("^" + "".join(out) + "$")


class ResourceResult(list):  # type: ignore[type-arg]
    """What ``ctx.read_resource`` returns: a list of contents (``.content``, ``.mime_type``, ``.uri``),
    also reachable as ``.contents`` (FastMCP 4's ``ResourceResult``)."""

    @property
    def contents(self) -> list[Any]:
        return list(self)


def find_resource(server: Any, uri: str) -> tuple[Any, dict[str, Any]]:
    """The server's resource of that URI, else the first of its templates that matches it, with the
    template's variables; ``(None, {})`` when none does (an in-process read: the function is called
    directly, as the frameworks' ``read_resource`` does)."""
    entry = server._resources.get(uri)
    if entry is not None and not entry.is_template:
        return entry, {}
    for candidate in server._resources.values():
        if candidate.is_template:
            m = _template_regex(candidate.uri).match(uri)
            if m:
                return candidate, m.groupdict()
    return None, {}


async def read_resource(server: Any, uri: str, ctx: Any = None) -> ResourceResult:
    if server is None:
        raise McpError(-32603, "no server: read_resource needs a request context")
    sdk_read = getattr(server, "_sdk_context_read", None)
    if sdk_read is not None:  # mcp 2.x's MCPServer reads on the function, raising its exceptions
        return await sdk_read(uri, ctx)  # type: ignore[no-any-return]
    entry, variables = find_resource(server, uri)
    if entry is None:
        raise ResourceError(f"Unknown resource: {uri}")
    payload = {"uri": uri, "vars": variables}
    native = getattr(ctx, "_native", None)
    outcome = await entry.call_async(payload, native) if entry.is_async else entry.call_sync(payload, native)
    kind, value = outcome
    if kind == "mcp_error":
        code, message, data = value
        raise McpError(code, message, data)
    if kind != "ok":
        raise McpError(-32603, f"reading {uri} did not complete ({kind})")
    return contents_of(value)


def contents_of(value: list[dict[str, Any]]) -> ResourceResult:
    """A read's contents (the wire's dicts) as ``ctx.read_resource`` returns them."""
    out = ResourceResult()
    for c in value:
        item = AttrDict(c)
        if "text" in c:
            item["content"] = c["text"]
        else:
            item["content"] = base64.b64decode(c.get("blob", ""))
        item["mime_type"] = c.get("mimeType")
        out.append(item)
    return out
