"""Tool names against the spec's SHOULD (2025-11-25, "Tool names"): 1 to 128 characters of
``A-Z a-z 0-9 _ - .``. A name outside it is still registered (the rule is a SHOULD); a warning
naming what is off goes to the ``mcp.shared.tool_name_validation`` logger, where the SDKs (and
FastMCP, which calls theirs) write it, so a test or an operator watching that logger sees it.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field

logger = logging.getLogger("mcp.shared.tool_name_validation")

TOOL_NAME_REGEX = re.compile(r"^[A-Za-z0-9._-]{1,128}$")
SEP_986_URL = "https://modelcontextprotocol.io/specification/2025-11-25/server/tools#tool-names"
_ALLOWED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-.")


@dataclass
class ToolNameValidationResult:
    is_valid: bool
    warnings: list[str] = field(default_factory=list)


def validate_tool_name(name: str) -> ToolNameValidationResult:
    """What in ``name`` departs from the spec's naming rule (empty when nothing does)."""
    if not name:
        return ToolNameValidationResult(False, ["Tool name cannot be empty"])
    if len(name) > 128:
        return ToolNameValidationResult(
            False, [f"Tool name exceeds maximum length of 128 characters (current: {len(name)})"])
    notes = []
    if " " in name:
        notes.append("Tool name contains spaces, which may cause parsing issues")
    if "," in name:
        notes.append("Tool name contains commas, which may cause parsing issues")
    for mark, word in (("-", "dash"), (".", "dot")):
        if name.startswith(mark) or name.endswith(mark):
            notes.append(f"Tool name starts or ends with a {word}, which may cause parsing issues in some contexts")
    bad = list(dict.fromkeys(c for c in name if c not in _ALLOWED))
    if bad:
        notes.append(f"Tool name contains invalid characters: {', '.join(repr(c) for c in bad)}")
        notes.append("Allowed characters are: A-Z, a-z, 0-9, underscore (_), dash (-), and dot (.)")
    return ToolNameValidationResult(not bad, notes)


def issue_tool_name_warning(name: str, warnings: list[str]) -> None:
    if not warnings:
        return
    logger.warning('Tool name validation warning for "%s":', name)
    for note in warnings:
        logger.warning("  - %s", note)
    logger.warning("Tool registration will proceed, but this may cause compatibility issues.")
    logger.warning("Consider updating the tool name to conform to the MCP tool naming standard.")
    logger.warning("See SEP-986 (%s) for more details.", SEP_986_URL)


def validate_and_warn_tool_name(name: str) -> bool:
    """Check ``name``, log a warning for what departs from the rule; whether it conforms."""
    result = validate_tool_name(name)
    issue_tool_name_warning(name, result.warnings)
    return result.is_valid
