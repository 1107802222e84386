// The options of oxmcp's Node servers and listeners (`new Server(info, options)`,
// `server.listen(options)`, the HTTP mounts), re-exported by index.d.ts. The names and defaults
// are the core's (docs/OPTIONS.md).

import type { Icon } from './index.js';

// ------------------------------------------------------------------ options

export type CacheScope = 'public' | 'private';

/** One caller of the named-token table: its tokens (plain, or `sha256:<hex>` hashes; two at once to rotate), scopes and allow-lists. */
export interface TokenCaller {
  tokens?: string[];
  token?: string | string[];
  scopes?: string[];
  /** Tool names this caller may list and call (absent: all). */
  tools?: string[];
  /** Resource URIs / templates this caller may use; a trailing `*` is a prefix (absent: all). */
  resources?: string[];
  prompts?: string[];
}
/** Named bearer tokens: `{ alice: { tokens: ['s3cret'], tools: ['search'] }, ci: 'other' }`, or `"alice=s3cret,ci=other"`. */
export type TokensOption = string | { [caller: string]: TokenCaller | string | string[] };

/** OAuth 2.1 resource server: RFC 9728 metadata and JWT access tokens checked against a JWKS. */
export interface OAuthOptions {
  /** This server's canonical URI (the JWT audience unless `audience` is given). */
  resource?: string;
  authorizationServers?: string[];
  /** `scopes_supported`, and the scope asked for in a 401 challenge. */
  scopes?: string[];
  /** Required with `jwks` / `jwksUrl`. */
  issuer?: string;
  audience?: string;
  /** An inline JWKS document `{ keys: [...] }`. */
  jwks?: { keys: unknown[] };
  /** Where to fetch the JWKS (plain HTTP with the built-in fetcher). */
  jwksUrl?: string;
  resourceName?: string;
  documentation?: string;
  /** Allow-lists for callers that come from a JWT (`sub`, then `client_id`, `azp`). */
  allow?: { [caller: string]: { tools?: string[]; resources?: string[]; prompts?: string[] } };
  /** DPoP-bound access tokens (RFC 9449): `off` (default), `allowed` or `required`. */
  dpop?: 'off' | 'allowed' | 'required';
  /** How far a DPoP proof's `iat` may be from the server's clock, either way. Default 60000. */
  dpopWindowMs?: number;
  /** Most DPoP proof ids remembered for replay detection. Default 65536. */
  dpopReplayCache?: number;
  /** Require the server's nonce in each DPoP proof (RFC 9449 §9). Default false. */
  dpopNonce?: boolean;
}

/** Requests per second per caller, or a token bucket; beyond it HTTP 429 with `Retry-After`. */
export type RateLimitOption = number | { rate: number; burst?: number; perCaller?: { [caller: string]: number | { rate: number; burst?: number } } };

/** HTTP security options, accepted by the constructor (defaults for `listen()` and mounts) and by `listen()` / `http`. */
export interface HttpSecurityOptions {
  /** Named bearer tokens; when set (or `oauth`), every HTTP request needs `Authorization: Bearer …` (401 otherwise). */
  tokens?: TokensOption;
  oauth?: OAuthOptions;
  rateLimit?: RateLimitOption;
  /** The whole request body within this many ms (408). Default 30000. */
  bodyTimeoutMs?: number;
  /** At most this many request headers (431). Default 100. */
  maxHeaders?: number;
  /** At most this many bytes of request headers (431). Default 16 KiB. */
  maxHeaderBytes?: number;
  /** Failed authentications per client address (429 before the token is checked); `false`: no limit. Default: 10, then 1 per 6 s. */
  authFailureLimit?: number | { rate: number; burst?: number } | false;
}

/**
 * The constructor's options: the core's one schema (docs/OPTIONS.md; snake_case names are
 * accepted too), the listener options as the defaults of every `listen()` and mount, and the JS
 * layer's own (`exposeErrors`, `logErrors`, `handleSignals`, `http`). An unknown key or a bad
 * value throws with `err.code === 'INVALID_OPTION'`.
 */
export interface ServerOptions extends ListenOptions {
  name: string;
  version: string;
  title?: string;
  description?: string;
  websiteUrl?: string;
  icons?: Icon[];
  instructions?: string;
  /** Arguments that fail the input schema: an `isError` result (default) or JSON-RPC -32602. */
  validation?: 'toolError' | 'jsonRpcError' | 'tool_error' | 'jsonrpc_error';
  /** Accept numeric/boolean strings where the schema asks for numbers/booleans. */
  lenientCoercion?: boolean;
  /** Default `ttlMs` / `cacheScope` of cacheable results. */
  cacheTtlMs?: number;
  cacheScope?: CacheScope;
  /** Per-method cache hints, e.g. `{ 'tools/list': { ttlMs: 60000, scope: 'public' } }` (`default` sets both defaults). */
  cache?: { [method: string]: { ttlMs?: number; scope?: CacheScope } };
  pageSize?: number;
  /** Key sealing MRTR requestState (HMAC-SHA256), at least 16 bytes; a random per-process key when absent. */
  stateKey?: string | number[];
  /** A key ring in place of `stateKey`: the first key seals MRTR requestState, every key opens it (rotation); each at least 32 bytes. */
  stateKeys?: (string | number[])[];
  /** The audience a sealed requestState is bound to (default: the server's name); a state sealed for another is refused. */
  stateAudience?: string;
  stateTtlMs?: number;
  includeServerInfo?: boolean;
  /** Default bound on a handler call (per-registration `timeoutMs` overrides it). Default: none. */
  toolTimeoutMs?: number;
  maxListeners?: number;
  sessionIdleMs?: number;
  maxSessions?: number;
  /** Legacy sessions one caller may hold at once (default 100; 503 beyond). */
  maxSessionsPerCaller?: number;
  legacyStateless?: boolean;
  /** Serve the 2026-07-28 revision (default true; false for the 1.x shapes unless given). */
  modern?: boolean;
  /** Force `cacheScope: "private"` on every cacheable result. */
  forcePrivateCache?: boolean;
  /** Leave out of lists what the caller's scopes do not cover (`requiredScopes`); calls get the 403 step-up challenge either way. Default false. */
  hideOutOfScope?: boolean;
  /** Global cap on handler runs in flight; beyond it requests are refused (HTTP 503). */
  maxInFlight?: number;
  /**
   * Prometheus metrics: `true` serves them at `/metrics` on the server's HTTP listener;
   * `{path, address, token}` at another path, on a listener of its own, or behind a bearer
   * token (an `address` off loopback needs one). docs/OPERATIONS.md lists the metrics.
   */
  metrics?: boolean | { path?: string; address?: string; token?: string };
  /** Show internal error text to clients (core and JS handlers); debugging only. */
  exposeInternalErrors?: boolean;
  /** Longest URI `resources/read` accepts, in bytes (default 8 KiB; -32602 beyond). */
  maxUriLen?: number;
  /** Most resources one legacy session may subscribe to (default 1000; -32602 beyond). */
  maxSubscriptions?: number;
  /** Most bytes of the URIs one legacy session subscribes to, together (default 256 KiB; -32602 beyond). */
  maxSubscriptionBytes?: number;
  /** Most bytes (as JSON) of a legacy `initialize`'s `clientInfo` and `capabilities` (default 64 KiB; -32602 beyond). */
  maxClientInfoBytes?: number;
  /** Most `taskIds` one `subscriptions/listen` may name (default 100; -32602 beyond). */
  maxListenTaskIds?: number;
  /** Tasks: how long a task and its result are kept (default 3600000), and the polling interval suggested to clients (default 500). */
  taskTtlMs?: number;
  taskPollIntervalMs?: number;
  /** Tasks one caller may hold, running or kept (default 100; 429 beyond). */
  maxTasksPerCaller?: number;
  /** Tasks one caller may have running at once (default 16; 429 beyond). */
  maxRunningTasksPerCaller?: number;
  /** `search_tools` + `call_tool` in place of the tool list (docs/SEARCH.md). */
  toolSearch?: 'bm25' | 'regex';
  toolSearchMaxResults?: number;
  toolSearchAlwaysVisible?: string[];
  searchToolName?: string;
  callToolName?: string;
  /** The experimental `oxmcp/tools/search` method. */
  toolSearchMethod?: boolean;
  /** Declare `completions` (and answer `completion/complete`): unset, when a prompt or template is registered; false, never; true, always. */
  completions?: boolean;
  /** Extensions declared in `capabilities.extensions` beside the ones the registrations need (id → settings). */
  extensions?: { [id: string]: object };
  /** A PEM file with an Ed25519 private key (PKCS#8) that signs each list's catalog digest (docs/CATALOG.md); a bad file stops the start. */
  catalogSigningKey?: string;
  /** The content-addressed catalog on lists (digests, catalog digest, ETag, unchanged answer). Default true; false in the TS SDK layer. */
  catalogDigests?: boolean;
  /** The text of a tool call's timeout result: `{name}` becomes the tool's name, `{timeout}` its timeout in seconds (default `Tool {name} timed out`). */
  toolTimeoutText?: string;
  /** Largest task result kept, in bytes as JSON (default 1 MiB; a larger one fails the task). */
  maxTaskResultBytes?: number;
  /** Tasks: how long a running task's lease lasts (default 30000, at least 100); its replica renews it every third, and a task whose lease lapsed is failed by the replica that reads it. */
  taskLeaseMs?: number;
  /** Scale-out: the Redis the replicas share (`redis://host:port/db`; env `OXMCP_REDIS_URL`). Needs `stateKey`. */
  redisUrl?: string;
  /** Prefix of every Redis key and channel (default `oxmcp:`). */
  redisPrefix?: string;
  /** How long one Redis command or connection attempt may take (default 1000, 1 to 60000; env `OXMCP_REDIS_TIMEOUT_MS`). */
  redisTimeoutMs?: number;
  /** Where HTTP rate-limit buckets live: `"memory"` (per replica, default) or `"redis"` (shared). */
  rateLimitStore?: 'memory' | 'redis';
  /** Include a thrown Error's message in the `isError` text of a tool (default false: a safe generic message). */
  exposeErrors?: boolean;
  /** Where handler failures are logged (default: message and stack to stderr). */
  logErrors?: (message: string, error: unknown) => void;
  /** Install SIGINT/SIGTERM handlers that close the server while it serves (default true). */
  handleSignals?: boolean;
  /** Options of the handler behind `fetch()` / `nodeHandler()`. */
  http?: HttpOptions;
}

export interface HttpOptions extends HttpSecurityOptions {
  /** MCP endpoint path (default "/mcp"). Mounts serve whatever path their host routes to them. */
  path?: string;
  /** Origins allowed besides the server's own host names. */
  allowedOrigins?: string[];
  /** Host header values accepted (DNS-rebinding protection); empty: loopback names on a loopback bind. */
  allowedHosts?: string[];
  /** Skip the Host check (a proxy in front checks it); a non-loopback bind needs this or `allowedHosts`. */
  allowAnyHost?: boolean;
  /** This endpoint keeps no legacy sessions (the server-wide `legacyStateless`, per endpoint). */
  sessionless?: boolean;
  maxBodyBytes?: number;
  /** Longest JSON string (key or value) in a request, in bytes (default 1 MiB; 413 above it). */
  maxStringBytes?: number;
  keepAliveMs?: number;
  headerTimeoutMs?: number;
  /** How long in-flight requests may finish at shutdown (HTTP and stdio). Default 5000. */
  drainTimeoutMs?: number;
  /** stdio: the longest line (default 4 MiB). */
  maxLineBytes?: number;
  /** Serve the 2024-11-05 HTTP+SSE transport beside Streamable HTTP (default false; see docs/OPTIONS.md). */
  sse?: boolean;
  /** HTTP+SSE: where `GET` opens a stream (default "/sse"). */
  ssePath?: string;
  /** HTTP+SSE: where messages are POSTed (default "/messages"). */
  messagesPath?: string;
  /** HTTP+SSE: most unread bytes queued for one stream before it is closed (default 16 MiB). */
  sseMaxQueuedBytes?: number;
}

export interface ListenOptions extends HttpOptions {
  host?: string;
  /** 0 picks a free port. Default 8000. */
  port?: number;
  /**
   * Listen on this Unix domain socket (a file path) instead of `host`/`port`, which must then be left
   * out. Not `path` (the MCP endpoint's path) and not Node's `socketPath` (a client's option): the
   * core's `uds`. Unix only.
   */
  uds?: string;
  /** The socket file's mode: octal digits (`"0660"`) or the number (`0o660`). Default `"0600"`. */
  udsMode?: string | number;
  /** TLS: the certificate chain, a PEM file (with `tlsKey`; reloaded when either file changes). */
  tlsCert?: string;
  /** TLS: the certificate's private key, a PEM file. */
  tlsKey?: string;
}
