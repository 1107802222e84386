"""``fastmcp.server.providers``: the skill providers oxmcp serves (see ``oxmcp.skills.provider``) and
``LocalProvider``, the view of a server's own components."""

from ...skills.provider import SkillCatalogProvider, SkillsDirectoryProvider
from .local import LocalProvider

__all__ = ["LocalProvider", "SkillCatalogProvider", "SkillsDirectoryProvider"]
