"""``oxmcp.types``: the spec's types as pydantic models (``mcp.types``), for low-level servers.

``_generated.py`` is generated from the 2025-11-25 revision's schema.json by
``scripts/gen-types.sh`` (datamodel-code-generator); tests/python/test_types.py checks that
regenerating changes nothing. Field names are the wire's (``inputSchema``, ``isError``), as in
mcp 1.x; mcp 2.x's snake_case spellings (``input_schema=``, ``.is_error``, ``meta=``) are taken as
the same fields (``_base.SpecModel``). Below: the SDK's names for types the schema declares inline, and its constants.
Handlers may return these models: oxmcp dumps them once (``by_alias``, ``exclude_none``).
"""

from __future__ import annotations

import typing
from typing import Any

from pydantic import BaseModel

from ._generated import *
from ._generated import (
    ClientCapabilities,
    CompleteRequestParams,
    ElicitRequestFormParams,
    ElicitRequestURLParams,
    Error,
    JSONRPCErrorResponse,
    ResourceTemplateReference,
    ServerCapabilities,
)

#: The SDK's name for the JSON-RPC error object (the schema's ``Error``).
ErrorData = Error


def _inner(model: type[BaseModel], field: str) -> Any:
    ann = model.model_fields[field].annotation
    return next((a for a in typing.get_args(ann) if a is not type(None)), ann)


PromptsCapability = _inner(ServerCapabilities, "prompts")
ResourcesCapability = _inner(ServerCapabilities, "resources")
ToolsCapability = _inner(ServerCapabilities, "tools")
CompletionArgument = _inner(CompleteRequestParams, "argument")
RootsCapability = _inner(ClientCapabilities, "roots")
SamplingCapability = _inner(ClientCapabilities, "sampling")
ElicitationCapability = _inner(ClientCapabilities, "elicitation")
ClientTasksCapability = _inner(ClientCapabilities, "tasks")
ServerTasksCapability = _inner(ServerCapabilities, "tasks")
JSONRPCError = JSONRPCErrorResponse
ResourceReference = ResourceTemplateReference  # the SDK's deprecated name
CompletionContext = _inner(CompleteRequestParams, "context")
# Unions the generator inlines into the fields that use them (--collapse-root-models: a handler reads
# `params.progressToken` as the str or int the client sent, as with the SDKs' types).
RequestId = str | int
ElicitRequestParams = ElicitRequestURLParams | ElicitRequestFormParams


class LoggingCapability(dict):  # type: ignore[type-arg]
    """The schema declares ``logging`` as an open object: a dict."""


class CompletionsCapability(dict):  # type: ignore[type-arg]
    """The schema declares ``completions`` as an open object: a dict."""


TASK_FORBIDDEN = "forbidden"
TASK_OPTIONAL = "optional"
TASK_REQUIRED = "required"
TASK_STATUS_WORKING = "working"
TASK_STATUS_INPUT_REQUIRED = "input_required"
TASK_STATUS_COMPLETED = "completed"
TASK_STATUS_FAILED = "failed"
TASK_STATUS_CANCELLED = "cancelled"

LATEST_PROTOCOL_VERSION = "2025-11-25"
DEFAULT_NEGOTIATED_VERSION = "2025-03-26"

# JSON-RPC error codes (mcp.types)
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
CONNECTION_CLOSED = -32000
URL_ELICITATION_REQUIRED = -32042
RESOURCE_NOT_FOUND = -32002
