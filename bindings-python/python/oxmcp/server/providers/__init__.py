"""``fastmcp.server.providers``: the skill providers oxmcp serves (see ``oxmcp.skills.provider``)."""

from ...skills.provider import SkillCatalogProvider, SkillsDirectoryProvider

__all__ = ["SkillCatalogProvider", "SkillsDirectoryProvider"]
