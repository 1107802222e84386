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

from pydantic import AnyUrl, BaseModel, model_validator

from ._base import Uri
from ._generated import *
from ._generated import (
    ClientCapabilities,
    CompleteRequestParams,
    ElicitRequestFormParams,
    ElicitRequestURLParams,
    Error,
    JSONRPCErrorResponse,
    JSONRPCResultResponse,
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
REQUEST_TIMEOUT = -32001  # the SDK's code for a request that timed out waiting for its answer
URL_ELICITATION_REQUIRED = -32042
RESOURCE_NOT_FOUND = -32002

# The 2026-07-28 revision's error codes and request-metadata keys (``mcp_types`` of mcp 2.x).
HEADER_MISMATCH = -32020
MISSING_REQUIRED_CLIENT_CAPABILITY = -32021
UNSUPPORTED_PROTOCOL_VERSION = -32022
PROTOCOL_VERSION_META_KEY = "io.modelcontextprotocol/protocolVersion"
CLIENT_CAPABILITIES_META_KEY = "io.modelcontextprotocol/clientCapabilities"
CLIENT_INFO_META_KEY = "io.modelcontextprotocol/clientInfo"
SERVER_INFO_META_KEY = "io.modelcontextprotocol/serverInfo"
LOG_LEVEL_META_KEY = "io.modelcontextprotocol/logLevel"

#: An icon's ``theme`` ("light" or "dark").
IconTheme = Theme
ElicitCompleteNotification = ElicitationCompleteNotification  # mcp 2.x's (mcp_types') name
#: One content block of a tool result or prompt message.
ContentBlock = TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource
#: One server-to-client request embedded in an ``InputRequiredResult`` (2026-07-28).
InputRequest = CreateMessageRequest | ListRootsRequest | ElicitRequest
#: A client's answer to one of them.
InputResponse = CreateMessageResult | ListRootsResult | ElicitResult
#: A client's answers to a server's input requests, by the server's keys (2026-07-28).
InputResponses = dict[str, InputResponse]
#: The server's input requests, by key (the sampling, roots or elicitation request each stands for).
InputRequests = dict[str, Any]


class InputRequiredResult(Result):
    """The 2026-07-28 answer "input required": the requests the client must answer (``input_requests``)
    and opaque state to echo (``request_state``) when it retries the original request."""

    resultType: typing.Literal["input_required"] = "input_required"
    inputRequests: InputRequests | None = None
    requestState: str | None = None

    @model_validator(mode="after")
    def _one_of(self) -> InputRequiredResult:
        if not self.inputRequests and self.requestState is None:
            raise ValueError("InputRequiredResult requires at least one of input_requests or request_state")
        return self


def _result_fields_of_2026() -> list[Any]:
    """mcp 2.x's results declare the 2026-07-28 revision's fields with defaults: ``resultType``
    ("complete") on every result a request may answer input-required, and ``ttlMs`` (0) and
    ``cacheScope`` ("private") on the cacheable ones. Declared here too, a result read from the
    wire equals one built by hand, as with the SDK's models. A value equal to its default is left
    out of a dump, so a result a handler returns is sent as before (the core writes these fields
    for the session's revision)."""
    from pydantic.fields import FieldInfo

    def declare(model: Any, name: str, annotation: Any, default: Any) -> None:
        model.model_fields[name] = FieldInfo(annotation=annotation, default=default,
                                             exclude_if=lambda value: value == default)

    Result.undeclared_defaults = {"resultType": "complete", "ttlMs": 0, "cacheScope": "private"}
    cacheable: list[Any] = [ListToolsResult, ListResourcesResult, ListResourceTemplatesResult, ListPromptsResult,
                 ReadResourceResult]
    complete = [*cacheable, CallToolResult, GetPromptResult, CompleteResult]
    for model in cacheable:
        declare(model, "ttlMs", int, 0)
        declare(model, "cacheScope", typing.Literal["public", "private"], "private")
    for model in complete:
        declare(model, "resultType", str, "complete")
    return complete


def _requests_as_the_sdks() -> list[Any]:
    """Both SDKs' request and notification models hold the method and its params only (the
    JSON-RPC envelope is the session's): the schema's ``jsonrpc`` is left out of their dumps, and
    ``id`` unless given. Their params name what is asked first (``name``, then ``arguments``); and
    mcp 2.x's params of a request that may be answered input-required declare the 2026-07-28
    retry fields (``inputResponses``, ``requestState``) after ``_meta``, dumped under its
    generation as its models dump them (``None`` left out under mcp 1.x, which has no such field)."""
    from pydantic.fields import FieldInfo

    from . import _generated
    from ._base import GENERATION

    touched: list[Any] = []
    for model in vars(_generated).values():
        fields = getattr(model, "__pydantic_fields__", None)
        if isinstance(model, type) and fields and "jsonrpc" in fields and "method" in fields \
                and not model.__name__.startswith("JSONRPC"):
            fields["jsonrpc"].exclude_if = lambda value: True
            if "id" in fields:
                fields["id"].exclude_if = lambda value: value is None
            touched.append(model)

    def absent(value: Any) -> bool:
        return value is None and GENERATION.major != 2

    for model in (CallToolRequestParams, GetPromptRequestParams, ReadResourceRequestParams):
        fields = model.model_fields
        own = {name: fields.pop(name) for name in list(fields) if name != "field_meta"}
        fields["inputResponses"] = FieldInfo(annotation=dict[str, Any] | None, default=None, exclude_if=absent)
        fields["requestState"] = FieldInfo(annotation=str | None, default=None, exclude_if=absent)
        for name in ("name", "uri", *own):
            if name in own and name not in fields:
                fields[name] = own[name]
        touched.append(model)
    return touched


def _schemas_as_dicts() -> None:
    """Both SDKs type a tool's ``inputSchema`` / ``outputSchema`` as a plain dict (``tool.inputSchema
    ["properties"]``, ``== {...}``); the generator makes models of them. The fields are retyped, and the
    models that hold a ``Tool`` are rebuilt after it, in definition order."""
    from pydantic import BaseModel as _Model

    from . import _generated

    Tool.model_fields["inputSchema"].annotation = dict[str, Any]
    # A JSON-RPC response's result is a plain dict in both SDKs (``response.result["content"]``).
    JSONRPCResultResponse.model_fields["result"].annotation = dict[str, Any]
    JSONRPCResultResponse.model_rebuild(force=True)
    Tool.model_fields["outputSchema"].annotation = dict[str, Any] | None  # type: ignore[assignment]
    # The SDKs' CallToolResult.isError is False unless set (the spec's default), not None.
    CallToolResult.model_fields["isError"].default = False
    # And a tool result in a sampling message holds no content unless given (both SDKs).
    ToolResultContent.model_fields["content"].default = []
    # 2026-07-28 capabilities name their extensions (SEP-2133); the 2025-11-25 schema has no such member.
    from pydantic.fields import FieldInfo

    for caps in (ServerCapabilities, ClientCapabilities):
        caps.model_fields["extensions"] = FieldInfo(annotation=dict[str, Any] | None, default=None)  # type: ignore[assignment]
    # A resource's URI is read as the generation served reads it (``_base.Uri``); a root's stays a URL.
    uris = [model for model in vars(_generated).values() if isinstance(model, type) and issubclass(model, _Model)
            and model is not Root and "uri" in model.model_fields and model.model_fields["uri"].annotation is AnyUrl]
    for model in uris:
        model.model_fields["uri"].annotation = Uri
    touched = {Tool, CallToolResult, ServerCapabilities, ClientCapabilities, *uris, *_result_fields_of_2026(),
               *_requests_as_the_sdks()}
    rebuilt = False
    for value in list(vars(_generated).values()):
        if any(value is model for model in touched):
            rebuilt = True
        if rebuilt and isinstance(value, type) and issubclass(value, _Model) and value.__module__ == _generated.__name__:
            value.model_rebuild(force=True)


_schemas_as_dicts()

# The SDKs' message names over the generated ones (``_messages.py``).
from ._messages import JSONRPCResponse as JSONRPCResponse  # type: ignore[assignment]
from ._messages import SamplingToolsCapability as SamplingToolsCapability
from ._messages import jsonrpc_message_adapter as jsonrpc_message_adapter

# mcp 2.x's ``Request[ParamsT, MethodT]`` and ``Notification[ParamsT, MethodT]`` are generic in their
# params and method (a vendor request is declared ``Request[MyParams, Literal["x/y"]]``); the schema's
# are plain models. The generic classes below are subclasses of those, so both read alike.
_ParamsT = typing.TypeVar("_ParamsT")
_MethodT = typing.TypeVar("_MethodT")


class Request(Request, typing.Generic[_ParamsT, _MethodT]):  # type: ignore[no-redef,misc,valid-type]
    method: _MethodT  # type: ignore[assignment]
    params: _ParamsT | None = None  # type: ignore[assignment]
    #: The params key whose value an HTTP client sends in the ``Mcp-Name`` header (a subclass sets
    #: it by plain assignment); a class attribute, not a field.
    name_param: typing.ClassVar[str | None] = None


class Notification(Notification, typing.Generic[_ParamsT, _MethodT]):  # type: ignore[no-redef,misc,valid-type]
    method: _MethodT  # type: ignore[assignment]
    params: _ParamsT | None = None  # type: ignore[assignment]

# The 2026-07-28 types the 2025-11-25 schema lacks (server/discover, subscriptions/listen).
from ._modern import *
