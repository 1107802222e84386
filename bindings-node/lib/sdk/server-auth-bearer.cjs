'use strict';
/**
 * `oxmcp/server/auth/middleware/bearerAuth.js` (the TS SDK v1 path
 * `@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js`): `requireBearerAuth({ verifier,
 * requiredScopes, resourceMetadataUrl, expectedResource })`, an Express middleware.
 *
 * The decision is the core's: the middleware builds the core's authenticator with the app's
 * `OAuthTokenVerifier` as the source it asks about each token (`verifyAccessToken(token)` ->
 * `AuthInfo`, or a throw: refused), hands it each request's head, and writes what the core
 * decided: the refusal (401 `invalid_token`, 403 `insufficient_scope`, worded as the SDK words
 * them), or `req.auth` built from the caller the core made of the grant (expiry, resource and
 * scopes checked there). A request it lets through reaches a StreamableHTTPServerTransport as
 * that caller. The SDK's authorization-server router (`mcpAuthRouter`) is not mirrored: oxmcp
 * hosts no authorization server.
 */
const { loadNative } = require('../native.cjs');
const { BEARER_CALLER, rawHeaderPairs } = require('../http.cjs');

/** An `AuthInfo` as the grant the core reads. */
function grantOf(info) {
  if (info === undefined || info === null) return null;
  const resource = info.resource === undefined || info.resource === null ? null : String(info.resource);
  return {
    client_id: info.clientId,
    scopes: Array.isArray(info.scopes) ? info.scopes.map(String) : [],
    expires_at: typeof info.expiresAt === 'number' ? info.expiresAt : null,
    resource,
    subject: null,
    claims: info.extra && typeof info.extra === 'object' ? info.extra : null,
  };
}

/** The `AuthInfo` of the caller the core verified (`{name, scopes, claims}`). */
function authInfoOf(caller, token) {
  const claims = { ...(caller.claims ?? {}) };
  const { client_id: clientId, exp, aud } = claims;
  delete claims.client_id; delete claims.exp; delete claims.aud;
  const info = { token, clientId: typeof clientId === 'string' ? clientId : caller.name, scopes: caller.scopes ?? [] };
  if (typeof exp === 'number') info.expiresAt = exp;
  if (typeof aud === 'string') { try { info.resource = new URL(aud); } catch {} }
  if (Object.keys(claims).length) info.extra = claims;
  return info;
}

/**
 * @param {{ verifier: { verifyAccessToken(token: string): Promise<any> }, requiredScopes?: string[],
 *   resourceMetadataUrl?: string, expectedResource?: URL | string }} options
 */
function requireBearerAuth(options) {
  const { verifier, requiredScopes = [], resourceMetadataUrl, expectedResource } = options ?? {};
  if (!verifier || typeof verifier.verifyAccessToken !== 'function') {
    throw new TypeError('requireBearerAuth: verifier.verifyAccessToken(token) is required');
  }
  const oauth = {
    verifier: true,
    verifierExpiryRequired: true,
    requiredScopes: [...requiredScopes],
    answers: 'mcp-ts',
  };
  if (resourceMetadataUrl !== undefined) oauth.resourceMetadataUrl = String(resourceMetadataUrl);
  if (expectedResource !== undefined) {
    oauth.resource = String(expectedResource);
    oauth.verifierResourceRequired = true;
  }
  const verify = async (token) => JSON.stringify(grantOf(await verifier.verifyAccessToken(token)));
  const auth = new (loadNative().NativeBearerAuth)(oauth, verify);
  return function bearerAuth(req, res, next) {
    const path = (req.originalUrl ?? req.url ?? '/').split('?')[0];
    auth.check(req.method, path, rawHeaderPairs(req)).then((d) => {
      if (d.caller) {
        const header = req.headers.authorization ?? '';
        Object.defineProperty(req, BEARER_CALLER, { value: d.caller, configurable: true });
        req.auth = authInfoOf(d.caller, header.slice(header.indexOf(' ') + 1).trim());
        next();
        return;
      }
      res.statusCode = d.status ?? 401;
      for (const [k, v] of d.headers ?? []) res.appendHeader(k, v);
      res.end(d.body ?? '');
    }, next);
  };
}

module.exports = { requireBearerAuth };
