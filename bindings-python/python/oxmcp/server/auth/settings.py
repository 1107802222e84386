"""``mcp.server.auth.settings``: ``AuthSettings``, a protected resource's OAuth settings.

On oxmcp they correspond to the core's ``oauth`` option (docs/OPTIONS.md): ``resource_server_url``
is ``oauth.resource``, ``issuer_url`` its authorization server, ``required_scopes`` the scopes every
call needs. The authorization-server options (client registration, revocation) describe a server
oxmcp does not host.
"""

from __future__ import annotations

from pydantic import AnyHttpUrl, BaseModel, ConfigDict, Field

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
