"""``fastmcp.server.auth.providers.jwt``: ``StaticTokenVerifier``, fixed bearer tokens, as the core's
named tokens (``tokens=``: each client id with its tokens and scopes)."""

from __future__ import annotations

from typing import Any

__all__ = ["StaticTokenVerifier"]

#: What a token's entry may hold: the caller it names and the scopes it grants.
_ENTRY_KEYS = frozenset({"client_id", "scopes"})


class StaticTokenVerifier:
    """Bearer tokens fixed in advance: ``{token: {"client_id": ..., "scopes": [...]}}``. The core
    checks them (``tokens=``) and binds each legacy session to the client id that opened it."""

    def __init__(self, tokens: dict[str, dict[str, Any]], required_scopes: list[str] | None = None) -> None:
        if required_scopes:
            raise TypeError("StaticTokenVerifier(required_scopes=...): oxmcp requires scopes per component "
                            "(auth=require_scopes(...)); a server-wide requirement is not applied here")
        callers: dict[str, dict[str, Any]] = {}
        for token, entry in tokens.items():
            extra = sorted(set(entry) - _ENTRY_KEYS)
            if extra:
                raise TypeError(f"StaticTokenVerifier: token entry keys {extra} are not applied by oxmcp "
                                "(client_id and scopes are)")
            client_id = entry.get("client_id")
            if not isinstance(client_id, str) or not client_id:
                raise TypeError("StaticTokenVerifier: each token needs its client_id")
            scopes = list(entry.get("scopes") or [])
            caller = callers.setdefault(client_id, {"tokens": [], "scopes": scopes})
            if caller["scopes"] != scopes:
                raise TypeError(f"StaticTokenVerifier: the tokens of {client_id!r} grant different scopes; "
                                "oxmcp grants scopes per client id")
            caller["tokens"].append(token)
        self.tokens = dict(tokens)
        self.required_scopes: list[str] = []
        self._callers = callers

    def _oxmcp_tokens(self) -> dict[str, dict[str, Any]]:
        """The core's ``tokens=`` option for these tokens."""
        return {name: {"tokens": list(c["tokens"]), "scopes": list(c["scopes"])} for name, c in self._callers.items()}
