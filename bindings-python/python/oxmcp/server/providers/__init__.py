"""``fastmcp.server.providers``: the skill providers oxmcp serves (see ``oxmcp.skills.provider``) and
``LocalProvider``, the view of a server's own components; ``Provider``, taken for its lifespan."""

from ...skills.provider import SkillCatalogProvider, SkillsDirectoryProvider
from .base import Provider
from .local import LocalProvider

__all__ = ["LocalProvider", "Provider", "SkillCatalogProvider", "SkillsDirectoryProvider"]
