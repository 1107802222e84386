"""``fastmcp.server.auth``: the token verifiers oxmcp's core can apply itself. Each translates into
the core's auth options (``tokens=``), where every access decision is made; a setting the core
cannot honour is refused when the verifier is built."""

from .providers.jwt import StaticTokenVerifier

__all__ = ["StaticTokenVerifier"]
