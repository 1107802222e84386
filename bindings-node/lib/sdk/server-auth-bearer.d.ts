// `oxmcp/server/auth/middleware/bearerAuth.js`: the TS SDK v1 path `@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js`.
import type { RequestHandler } from 'express';
/** What a verified access token grants (the SDK's `AuthInfo`). */
export interface AuthInfo {
  token: string;
  clientId: string;
  scopes: string[];
  /** Seconds since the epoch; a token without one is refused. */
  expiresAt?: number;
  resource?: URL;
  extra?: Record<string, unknown>;
}
/** The app's token verifier: the grant of `token`, or a throw to refuse it. */
export interface OAuthTokenVerifier {
  verifyAccessToken(token: string): Promise<AuthInfo>;
}
export interface BearerAuthMiddlewareOptions {
  verifier: OAuthTokenVerifier;
  /** Scopes every request must hold (403 `insufficient_scope` without them). */
  requiredScopes?: string[];
  /** The metadata URL the `WWW-Authenticate` challenges name. */
  resourceMetadataUrl?: string;
  /** Accept only tokens whose `AuthInfo.resource` is this resource. */
  expectedResource?: URL;
}
/** An Express middleware: the core checks each request's bearer token with `verifier`. */
export declare function requireBearerAuth(options: BearerAuthMiddlewareOptions): RequestHandler;
