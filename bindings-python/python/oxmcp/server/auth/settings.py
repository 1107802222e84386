"""``mcp.server.auth.settings``: ``AuthSettings``, a protected resource's OAuth settings.

On oxmcp they correspond to the core's ``oauth`` option (docs/OPTIONS.md): ``resource_server_url``
is ``oauth.resource``, ``issuer_url`` its authorization server, ``required_scopes`` the scopes every
request needs (``oauth.required_scopes``), ``validate_token_resource`` whether a verified token must
name the resource (``oauth.verifier_resource_required``; one naming another resource is always refused). The authorization-server options (client registration, revocation) describe a server
oxmcp does not host.
"""

from __future__ import annotations

import warnings

from pydantic import AnyHttpUrl, BaseModel, ConfigDict, Field, model_validator
from typing_extensions import Self

__all__ = ["AuthSettings", "ClientRegistrationOptions", "RevocationOptions"]


class ClientRegistrationOptions(BaseModel):
    enabled: bool = False
    client_secret_expiry_seconds: int | None = None
    valid_scopes: list[str] | None = None
    default_scopes: list[str] | None = None


class RevocationOptions(BaseModel):
    enabled: bool = False


class AuthSettings(BaseModel):
    # A path-less URL keeps its exact spelling (no trailing slash added): issuers compare as strings.
    model_config = ConfigDict(url_preserve_empty_path=True)

    issuer_url: AnyHttpUrl
    service_documentation_url: AnyHttpUrl | None = None
    client_registration_options: ClientRegistrationOptions | None = None
    revocation_options: RevocationOptions | None = None
    required_scopes: list[str] | None = None
    identity_assertion_enabled: bool = False
    resource_server_url: AnyHttpUrl | None = Field(...)
    validate_token_resource: bool | None = None

    @model_validator(mode="after")
    def _check_validate_token_resource(self) -> Self:
        """As the SDK: checking the token's resource needs ``resource_server_url``; leaving it unset
        with one warns (the token's resource is then checked only when the verifier reports one)."""
        if self.validate_token_resource and self.resource_server_url is None:
            raise ValueError("validate_token_resource requires resource_server_url")
        if self.validate_token_resource is None and self.resource_server_url is not None:
            from ...shared.exceptions import MCPDeprecationWarning

            warnings.warn("`AuthSettings.validate_token_resource` is not set, so bearer tokens are not "
                          "required to name `resource_server_url`; set it to True to refuse tokens that name "
                          "no resource, or to False if your TokenVerifier validates the token's audience itself.",
                          MCPDeprecationWarning, stacklevel=3)
        return self
