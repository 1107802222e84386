"""``fastmcp.resources``: FastMCP's resource components (``Resource``, ``FunctionResource``,
``ResourceTemplate``, ``TextResource``, ``BinaryResource``, ``FileResource``), the standalone
``@resource`` decorator, ``ResourceContent`` and ``ResourceResult``."""

from .base import Resource, ResourceContent, ResourceResult
from .function_resource import FunctionResource, resource
from .security import ResourceSecurity
from .template import ResourceTemplate
from .types import BinaryResource, DirectoryResource, FileResource, TextResource

__all__ = ["BinaryResource", "DirectoryResource", "FileResource", "FunctionResource", "Resource",
           "ResourceContent", "ResourceResult", "ResourceSecurity", "ResourceTemplate", "TextResource", "resource"]
