'use strict';
/**
 * Per-registration OAuth scopes: oxmcp's `requiredScopes: [...]` and the TS SDK's
 * `scopeChallenge: requireScopes(...)`. Both become the scopes the core requires of a caller
 * (docs/SECURITY.md); the core answers a caller without them with the 403 step-up challenge.
 */

const SCOPES = Symbol.for('oxmcp.requireScopes');
// RFC 6749 scope-token characters, as the TS SDK checks them.
const SCOPE_TOKEN = /^[\u0021\u0023-\u005B\u005D-\u007E]+$/;

/**
 * The TS SDK's `requireScopes(...scopes)`: a scope challenge resolver that asks for every one of
 * `scopes`. On oxmcp the core enforces it; the function also answers as the SDK's does when called.
 */
function requireScopes(...scopes) {
  if (scopes.length === 0) throw new TypeError('requireScopes must contain at least one scope');
  scopes.forEach((scope, i) => {
    if (typeof scope !== 'string' || !SCOPE_TOKEN.test(scope)) {
      throw new TypeError(`requireScopes scope[${i}] must satisfy the OAuth scope-token grammar`);
    }
  });
  const required = [...scopes];
  /** @param {{ authInfo?: { scopes: string[] } }} context */
  const resolve = (context) => {
    const authInfo = context?.authInfo;
    if (authInfo === undefined) return undefined;
    const held = new Set(authInfo.scopes);
    return required.every((s) => held.has(s)) ? undefined : { scopes: required };
  };
  Object.defineProperty(resolve, SCOPES, { value: required });
  return resolve;
}

/**
 * The scopes a registration requires: `requiredScopes` and the scopes of a `scopeChallenge`
 * made by `requireScopes`. Another resolver is code the core would not run, so it is refused
 * rather than left unenforced.
 */
function scopesOf(what, config) {
  const out = [...(config.requiredScopes ?? [])];
  const challenge = config.scopeChallenge;
  if (challenge !== undefined && challenge !== null) {
    const scopes = typeof challenge === 'function' ? challenge[SCOPES] : undefined;
    if (scopes === undefined) {
      throw new TypeError(`${what}: scopeChallenge must be made by requireScopes(...); oxmcp enforces scopes in its core and runs no other resolver (docs/SECURITY.md)`);
    }
    for (const s of scopes) if (!out.includes(s)) out.push(s);
  }
  return out.length ? out : undefined;
}

module.exports = { requireScopes, scopesOf };
