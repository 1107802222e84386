"""mcp 2.x's client extensions (``mcp.client.ClientExtension``, SEP-2133) for the in-process ``Client``.

A client extension is declared under ``capabilities.extensions`` with its ``settings()``, and may
claim extra ``tools/call`` result shapes (``ResultClaim``): a result whose ``resultType`` one of
them names is parsed as the claim's model and finished by its ``resolve`` (which may call the
server again through ``ClaimContext.session``), so ``Client.call_tool`` returns an ordinary
``CallToolResult``; ``client.session.call_tool(..., allow_claimed=True)`` returns the parsed claim
instead, and without it a claimed shape raises ``UnexpectedClaimedResult``. A claim is active only
on a modern (2026-07-28) connection, within its ``protocol_versions``; an extension whose claims
are all inactive at the connection's version is not declared. Notification bindings are not
served: a client given an extension that has them refuses to start.
"""

from __future__ import annotations

import typing
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar

from .types.version import MODERN_PROTOCOL_VERSIONS

__all__ = ["ClaimContext", "ClientExtension", "ResultClaim", "UnexpectedClaimedResult", "advertise"]

#: The ``resultType`` values of the core protocol, which no claim may take.
CORE_RESULT_TYPES = frozenset({"complete", "input_required"})
#: Result members the client reads itself before a claim is parsed.
_RESERVED_WIRE_KEYS = frozenset({"requestState", "inputRequests"})

ClaimedT = TypeVar("ClaimedT")


@dataclass(frozen=True, kw_only=True)
class ClaimContext:
    """What a claim's ``resolve`` is given: the client's session (for follow-up requests), the tool
    called, and the call's read timeout."""

    session: Any
    tool_name: str
    read_timeout_seconds: float | None


@dataclass(frozen=True, kw_only=True)
class ResultClaim(Generic[ClaimedT]):
    """One extra ``tools/call`` result shape, named by its wire ``resultType``: ``model`` parses it
    (a ``Result`` subclass whose ``result_type`` is ``Literal[result_type]``), ``resolve`` finishes
    it into a ``CallToolResult``."""

    result_type: str
    model: type[ClaimedT]
    resolve: Callable[[ClaimedT, ClaimContext], Awaitable[Any]]
    method: Literal["tools/call"] = "tools/call"
    protocol_versions: frozenset[str] | None = None

    def __post_init__(self) -> None:
        from . import types

        if self.method != "tools/call":
            raise ValueError(f"claims attach to ['tools/call'] only; got method {self.method!r}")
        if self.result_type in CORE_RESULT_TYPES:
            raise ValueError(f"resultType {self.result_type!r} is core protocol vocabulary")
        if types.Result not in getattr(self.model, "__mro__", ()):
            raise ValueError(f"{getattr(self.model, '__name__', self.model)} must subclass mcp_types.Result")
        if issubclass(self.model, (types.CallToolResult, types.InputRequiredResult)):
            raise ValueError("claim models must not subclass core result types")  # noqa: TRY004  the SDK's
        fields = self.model.model_fields  # type: ignore[attr-defined]
        for name, info in fields.items():
            for clash in sorted({info.alias or name, info.serialization_alias or name} & _RESERVED_WIRE_KEYS):
                raise ValueError(f"{self.model.__name__}.{name} aliases {clash!r}, a typed field of the core "
                                 "result surface; a colliding value would fail core validation before the "
                                 "claim adapter runs")
        tag = fields.get("result_type")
        if tag is None or typing.get_args(tag.annotation) != (self.result_type,):
            raise ValueError(f"{self.model.__name__}.result_type must be Literal[{self.result_type!r}]")
        if self.protocol_versions is not None and not self.protocol_versions:
            raise ValueError("empty protocol_versions could never activate; use None for all")
        if self.protocol_versions is not None and not self.protocol_versions <= set(MODERN_PROTOCOL_VERSIONS):
            unknown = sorted(self.protocol_versions - set(MODERN_PROTOCOL_VERSIONS))
            raise ValueError(f"protocol_versions {unknown} are not modern protocol revisions; claimed shapes "
                             "cannot be delivered on a legacy wire (None means every modern version)")

    def active_at(self, version: str) -> bool:
        return version in MODERN_PROTOCOL_VERSIONS and (
            self.protocol_versions is None or version in self.protocol_versions)


class UnexpectedClaimedResult(RuntimeError):
    """A claimed result on a ``call_tool`` that did not opt in (``allow_claimed=True``); the parsed
    value is ``result``."""

    def __init__(self, result: Any) -> None:
        super().__init__(
            f"Server returned a claimed result ({type(result).__name__}); pass the owning extension to "
            "Client(extensions=[...]) for transparent resolution, or call with allow_claimed=True "
            "and handle the shape. The carried result may reference server-side state needing cleanup.")
        self.result = result


class ClientExtension:
    """A client extension: ``identifier``, the ``settings()`` it declares and the result shapes it
    ``claims()``; override only what it has."""

    identifier: str

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if (identifier := cls.__dict__.get("identifier")) is not None:
            from .server.extension import validate_extension_identifier

            validate_extension_identifier(identifier, owner=cls.__name__)

    def settings(self) -> dict[str, Any]:
        return {}

    def claims(self) -> Sequence[ResultClaim[Any]]:
        return ()

    def notifications(self) -> Sequence[Any]:
        return ()


class _AdvertiseOnly(ClientExtension):
    def __init__(self, identifier: str, settings: dict[str, Any]) -> None:
        self.identifier = identifier
        self._settings = settings

    def settings(self) -> dict[str, Any]:
        return self._settings


def advertise(identifier: str, settings: dict[str, Any] | None = None) -> ClientExtension:
    """An extension the client only declares (``capabilities.extensions[identifier] = settings``)."""
    from .server.extension import validate_extension_identifier

    validate_extension_identifier(identifier, owner="advertise")
    return _AdvertiseOnly(identifier, {} if settings is None else settings)


@dataclass
class Folded:
    """``Client(extensions=[...])`` folded: each extension's settings and claims."""

    settings: dict[str, dict[str, Any]]
    claims: dict[str, tuple[ResultClaim[Any], ...]]

    def declared(self, version: str | None) -> dict[str, dict[str, Any]]:
        """The extensions declared on a connection at ``version`` (``None``: a legacy one): one
        whose claims are all inactive there is left out."""
        return {identifier: settings for identifier, settings in self.settings.items()
                if identifier not in self.claims
                or (version is not None and any(c.active_at(version) for c in self.claims[identifier]))}

    def active(self, version: str | None) -> dict[str, ResultClaim[Any]]:
        """The claims active at ``version`` (``None``: none on a legacy connection), by ``resultType``."""
        return {c.result_type: c for claims in self.claims.values() for c in claims
                if version is not None and c.active_at(version)}


def fold(extensions: Any) -> Folded:
    """Check and fold ``extensions``: a repeated identifier or claimed ``resultType`` is refused, and
    so is an extension with notification bindings (not served by this client)."""
    from .server.extension import validate_extension_identifier

    folded = Folded({}, {})
    owners: dict[str, str] = {}
    if isinstance(extensions, dict):
        raise TypeError("extensions= takes a sequence of ClientExtension instances. The mapping form was "
                        "replaced: use advertise(identifier, settings) for advertise-only entries")
    for ext in extensions or ():
        if not isinstance(ext, ClientExtension):
            raise TypeError("extensions= takes a sequence of ClientExtension instances (mcp.client.advertise)")
        identifier = getattr(ext, "identifier", None)
        if identifier is None:
            raise ValueError(f"{type(ext).__name__} has no `identifier`; a ClientExtension must set the "
                             "`identifier` class attribute (or assign one in `__init__`) before it can be used")
        validate_extension_identifier(identifier, owner=type(ext).__name__)
        if identifier in folded.settings:
            raise ValueError(f"extension identifier {identifier!r} is passed more than once")
        if list(ext.notifications()):
            raise TypeError(f"client extension {identifier!r}: oxmcp's in-process client does not deliver "
                            "notifications to extensions; notification bindings are not supported")
        folded.settings[identifier] = dict(ext.settings())
        claims = tuple(ext.claims())
        for claim in claims:
            if claim.result_type in owners:
                owner = owners[claim.result_type]
                both = (f"extension {identifier!r} claims" if owner == identifier
                        else f"extensions {owner!r} and {identifier!r} both claim")
                raise ValueError(f"{both} resultType {claim.result_type!r}; a wire tag can have only one resolver")
            owners[claim.result_type] = identifier
        if claims:
            folded.claims[identifier] = claims
    return folded
