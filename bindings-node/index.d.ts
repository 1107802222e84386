// Public typings of oxmcp for Node (hand-written; the generated native layer's typings are
// bindings-node/native.d.ts and are not part of the public API).
// index.d.ts is the source; index.d.mts and index.d.cts are identical copies (a test checks).

/// <reference types="node" />

// ------------------------------------------------------------------ JSON and schemas

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };
/** A JSON Schema (2020-12) object. */
export type JsonSchema = { [key: string]: unknown } | boolean;

/** Structural view of a zod v4 schema (no compile-time dependency on zod). */
export interface ZodLike<Output = unknown, Input = unknown> {
  _zod: { output: Output; input: Input };
}
/** Structural view of a zod 3 schema (3.25+, as the TS SDK 1.x takes them). */
export interface Zod3Like<Output = unknown, Input = unknown> {
  _output: Output;
  _input: Input;
  _def: unknown;
}
export type ZodRawShapeLike = { [key: string]: ZodLike | Zod3Like };

/** A schema option: JSON Schema, a zod 4 or zod 3 schema, or a zod raw shape (`{ a: z.number() }`). */
export type SchemaInput = JsonSchema | ZodLike | Zod3Like | ZodRawShapeLike;

/** What a zod schema of either version gives. */
type ZodOutput<S> = S extends ZodLike<infer O> ? O : S extends Zod3Like<infer O> ? O : unknown;

/** The arguments a handler receives for an input schema. */
export type InferArgs<S> = S extends ZodLike<infer O>
  ? O
  : S extends Zod3Like<infer O>
    ? O
    : S extends ZodRawShapeLike
      ? { [K in keyof S]: ZodOutput<S[K]> }
      : { [key: string]: any };

// ------------------------------------------------------------------ content and results

export interface Annotations {
  audience?: ('user' | 'assistant')[];
  priority?: number;
  lastModified?: string;
}
export interface TextContent { type: 'text'; text: string; annotations?: Annotations; _meta?: JsonObject }
export interface ImageContent { type: 'image'; data: string; mimeType: string; annotations?: Annotations; _meta?: JsonObject }
export interface AudioContent { type: 'audio'; data: string; mimeType: string; annotations?: Annotations; _meta?: JsonObject }
export interface TextResourceContents { uri: string; mimeType?: string; text: string; _meta?: JsonObject }
export interface BlobResourceContents { uri: string; mimeType?: string; blob: string; _meta?: JsonObject }
export type ResourceContents = TextResourceContents | BlobResourceContents;
export interface EmbeddedResource { type: 'resource'; resource: ResourceContents; annotations?: Annotations; _meta?: JsonObject }
export interface ResourceLink {
  type: 'resource_link'; uri: string; name: string; title?: string; description?: string;
  mimeType?: string; size?: number; icons?: Icon[]; annotations?: Annotations; _meta?: JsonObject;
}
export type ContentBlock = TextContent | ImageContent | AudioContent | EmbeddedResource | ResourceLink;

export interface CallToolResult {
  content: ContentBlock[];
  structuredContent?: unknown;
  isError?: boolean;
  _meta?: JsonObject;
}

/** What a tool handler may return (see the README's table). */
export type ToolReturn = string | ContentBlock | (string | ContentBlock)[] | CallToolResult | JsonValue | object | undefined | void;

export interface PromptMessage { role: 'user' | 'assistant'; content: ContentBlock }
export interface GetPromptResult { description?: string; messages: PromptMessage[]; _meta?: JsonObject }
export type PromptReturn = string | (string | PromptMessage)[] | GetPromptResult;

export type Bytes = Buffer | Uint8Array | ArrayBuffer;
export type ResourceReturn =
  | string
  | Bytes
  | ResourceContents
  | { uri?: string; mimeType?: string; text: string }
  | { uri?: string; mimeType?: string; blob: string | Bytes }
  | (ResourceContents | { uri?: string; mimeType?: string; text: string } | { uri?: string; mimeType?: string; blob: string | Bytes })[]
  | { contents: ResourceContents[] };

export type CompletionReturn = string[] | { values: string[]; total?: number; hasMore?: boolean };

export interface Icon { src: string; mimeType?: string; sizes?: string[]; theme?: 'light' | 'dark' }
export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

// ------------------------------------------------------------------ helpers

export function text(value: unknown, extra?: { annotations?: Annotations; _meta?: JsonObject }): TextContent;
export function image(data: string | Bytes, mimeType: string, extra?: { annotations?: Annotations; _meta?: JsonObject }): ImageContent;
export function audio(data: string | Bytes, mimeType: string, extra?: { annotations?: Annotations; _meta?: JsonObject }): AudioContent;
export function resource(
  contents: { uri: string; mimeType?: string; text?: string; blob?: string | Bytes; _meta?: JsonObject },
  extra?: { annotations?: Annotations; _meta?: JsonObject },
): EmbeddedResource;
export function resourceLink(link: Omit<ResourceLink, 'type'>): ResourceLink;

// ------------------------------------------------------------------ errors

export declare const ErrorCode: {
  readonly ParseError: -32700;
  readonly InvalidRequest: -32600;
  readonly MethodNotFound: -32601;
  readonly InvalidParams: -32602;
  readonly InternalError: -32603;
  readonly HeaderMismatch: -32020;
  readonly MissingRequiredClientCapability: -32021;
  readonly UnsupportedProtocolVersion: -32022;
  readonly ResourceNotFoundLegacy: -32002;
  readonly UrlElicitationRequired: -32042;
};

/** Thrown from a tool: the call answers `isError: true` with this message (the model sees it). */
export declare class ToolError extends Error {
  readonly code: 'TOOL_ERROR';
  content?: ContentBlock[];
  structuredContent?: unknown;
  constructor(message: string, options?: { content?: ContentBlock[]; structuredContent?: unknown; cause?: unknown });
}

/** Thrown from any handler: the request is answered with a JSON-RPC error. */
export declare class McpError extends Error {
  code: number;
  data?: unknown;
  /** The HTTP status, on errors the in-memory client received. */
  status?: number;
  constructor(code: number, message: string, data?: unknown);
}

/** A definition the core rejected (bad schema, duplicate name, bad URI template). */
export declare class RegistrationError extends Error {
  code: 'INVALID_SCHEMA' | 'DUPLICATE_NAME' | 'BAD_URI_TEMPLATE' | 'INVALID_DEFINITION' | 'IMPORT_FAILED' | string;
}

// ------------------------------------------------------------------ context

export type LogLevel = 'debug' | 'info' | 'notice' | 'warning' | 'error' | 'critical' | 'alert' | 'emergency';
export type ClientCapabilityName = 'elicitation' | 'elicitation.url' | 'sampling' | 'sampling.tools' | 'roots';

export interface ElicitParams {
  message: string;
  mode?: 'form' | 'url';
  requestedSchema?: JsonSchema;
  url?: string;
  [key: string]: unknown;
}
export interface ElicitResult { action: 'accept' | 'decline' | 'cancel'; content?: { [key: string]: unknown } }
export interface CreateMessageParams {
  messages: { role: 'user' | 'assistant'; content: ContentBlock | ContentBlock[] }[];
  maxTokens: number;
  [key: string]: unknown;
}
export interface CreateMessageResult { role: 'user' | 'assistant'; content: any; model?: string; stopReason?: string; [key: string]: unknown }
export interface ListRootsResult { roots: { uri: string; name?: string }[] }
export type InputRequestSpec =
  | { method: 'elicitation/create'; params: ElicitParams }
  | { method: 'sampling/createMessage'; params: CreateMessageParams }
  | { method: 'roots/list'; params?: undefined };

/** The authenticated caller. `key` is its identity (the name, qualified by a JWT's issuer): what
 *  tasks, sessions and rate buckets are bound to. */
export interface Caller { name: string; key: string; scopes: string[]; claims?: unknown }

/** A legacy session (stdio's, or one `Mcp-Session-Id`), which outlives the request that found it:
 *  the back-channel for server-to-client requests between the client's own requests. */
export interface Session {
  /** The `Mcp-Session-Id`, or null on stdio. */
  readonly id: string | null;
  /** The same number for every `ctx.session` of one session while it lives. */
  readonly key: number;
  /** Send `ping` to the client; resolves when it answers. */
  ping(): Promise<void>;
  /** Resolves when the session ends (DELETE, expiry, end of stdin) or the server stops. */
  closed(): Promise<void>;
  isOpen(): boolean;
  request(method: string, params?: unknown): Promise<any>;
  notify(method: string, params?: unknown): boolean;
}

/** The second argument of every handler. */
export declare class Context {
  readonly requestId: string | number;
  readonly protocolVersion: string;
  readonly era: 'modern' | 'legacy';
  readonly clientInfo: { name: string; version: string; [key: string]: unknown } | undefined;
  readonly clientCapabilities: { [key: string]: unknown };
  readonly caller: Caller | undefined;
  /** The legacy HTTP session's id (`Mcp-Session-Id`); undefined on stdio and modern (2026-07-28) requests. */
  readonly sessionId: string | undefined;
  /** The request's legacy session; undefined on modern (2026-07-28) and stateless HTTP requests,
   *  which have no back-channel for server-to-client requests. */
  readonly session: Session | undefined;
  readonly meta: { [key: string]: unknown };
  readonly traceparent: string | undefined;
  /** Aborted on cancellation (client disconnect / notifications/cancelled), shutdown, or timeout. */
  readonly signal: AbortSignal;
  /** Handler state carried across MRTR rounds (sealed by the core). */
  requestState: unknown;
  supports(capability: ClientCapabilityName): boolean;
  progress(progress: number, total?: number, message?: string): Promise<void>;
  progress(p: { progress: number; total?: number; message?: string }): Promise<void>;
  log(level: LogLevel, data: unknown, logger?: string): Promise<void>;
  elicit(params: ElicitParams): Promise<ElicitResult>;
  elicit(key: string, params: ElicitParams): Promise<ElicitResult>;
  sample(params: CreateMessageParams): Promise<CreateMessageResult>;
  sample(key: string, params: CreateMessageParams): Promise<CreateMessageResult>;
  roots(key?: string): Promise<ListRootsResult>;
  inputs<K extends string>(requests: Record<K, InputRequestSpec>): Promise<Record<K, any>>;
}

// ------------------------------------------------------------------ middleware

/** A request as `server.use(...)` middleware sees it: the call's Context plus the request. */
export declare class MiddlewareContext extends Context {
  /** The JSON-RPC method, e.g. "tools/call". */
  readonly method: string;
  /** The request's params; `next()` passes them on (change them in place, or give `next(params)`). */
  params: { [key: string]: any };
  /** What the rest of the chain answered, once `next()` resolved (change it in place to rewrite the answer). */
  result: any;
  /** `params.name` (tools/call, prompts/get). */
  readonly name: string | undefined;
  /** `params.arguments` (tools/call, prompts/get). */
  readonly arguments: { [key: string]: unknown } | undefined;
  /** `params.uri` (resources/read). */
  readonly uri: string | undefined;
}
/** Runs the rest of the chain; resolves to its result object, rejects with its McpError. */
export type MiddlewareNext = (params?: { [key: string]: any }) => Promise<any>;
/** What a middleware returns: the answer's result object, or nothing (then `ctx.result`). */
export type Middleware = (ctx: MiddlewareContext, next: MiddlewareNext) => Awaitable<object | void>;
/** FastMCP-shaped hooks (camelCased): each sees only its method; onRequest / onMessage see every request. */
export interface MiddlewareHooks {
  onMessage?: Middleware;
  onRequest?: Middleware;
  onInitialize?: Middleware;
  onCallTool?: Middleware;
  onListTools?: Middleware;
  onReadResource?: Middleware;
  onListResources?: Middleware;
  onListResourceTemplates?: Middleware;
  onGetPrompt?: Middleware;
  onListPrompts?: Middleware;
}

// The options of servers and listeners: options.d.ts.
export * from './options.js';
import type { HttpOptions, ListenOptions, ServerOptions } from './options.js';

// ------------------------------------------------------------------ server

export interface ToolConfig<I extends SchemaInput | undefined = undefined, O extends SchemaInput | undefined = undefined> {
  title?: string;
  description?: string;
  inputSchema?: I;
  outputSchema?: O;
  annotations?: ToolAnnotations;
  icons?: Icon[];
  _meta?: JsonObject;
  /** Tasks extension: `{ taskSupport: 'forbidden' | 'optional' | 'required' }`, as in the TS SDK. */
  execution?: { taskSupport?: 'forbidden' | 'optional' | 'required' } & JsonObject;
  /** With task support: run a call as a plain request this long first; a task only if still running (default: a task at once). */
  taskAfterMs?: number;
  /** Bound on one call; a handler that never settles ends with a timeout error and `ctx.signal` aborts. */
  timeoutMs?: number;
  /** Scopes the caller must hold (enforced by the core when HTTP auth is configured; 403 step-up challenge otherwise). */
  requiredScopes?: string[];
  /** The TS SDK's spelling: `requireScopes(...)`, enforced as `requiredScopes`. Another resolver is refused. */
  scopeChallenge?: ScopeChallengeResolver;
  /** Cap on concurrent runs of this tool. */
  maxConcurrency?: number;
  /**
   * The words of a refusal of this tool's arguments (a compatibility layer's framework's text):
   * the core decides that a call is refused and why (`violations`), this gives the text the client
   * reads, or `undefined` for the core's. `registerTool` only.
   */
  refusalText?: (args: JsonObject, violations: Array<{ pointer: string; message: string }>) => Awaitable<string | undefined | null>;
}

export type Awaitable<T> = T | Promise<T>;

/** With an inputSchema: `(args, ctx)`; without: `(ctx)`, as in the TS SDK. */
export type ToolHandler<I extends SchemaInput | undefined> = [I] extends [undefined]
  ? (ctx: Context) => Awaitable<ToolReturn>
  : (args: InferArgs<I>, ctx: Context) => Awaitable<ToolReturn>;

export interface RegisteredItem {
  readonly name: string;
  remove(): boolean;
  update(updates: { [key: string]: unknown }): RegisteredItem;
}

export interface ResourceMetadata {
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  icons?: Icon[];
  annotations?: Annotations;
  _meta?: JsonObject;
  timeoutMs?: number;
  /** For a URI template given as a string: how its variables are completed. */
  complete?: { [variable: string]: Completer };
  /**
   * A template's non-exploded query variables (`{?tags}`) read as lists: the value split on its
   * literal commas, each item percent-decoded (`?tags=a%2Cb,c` gives `['a,b', 'c']`; `?tags=`
   * the empty list).
   */
  listVariables?: string[];
  /** Scopes the caller must hold (enforced by the core when HTTP auth is configured; 403 step-up challenge otherwise). */
  requiredScopes?: string[];
  /** The TS SDK's spelling: `requireScopes(...)`, enforced as `requiredScopes`. Another resolver is refused. */
  scopeChallenge?: ScopeChallengeResolver;
}

export type CompleteCallback = (value: string, context: { arguments: { [key: string]: string }; ctx: Context }) => Awaitable<CompletionReturn>;
/**
 * How one argument is completed: a function (answers for itself), or values the core matches
 * against the typed text (those starting with it, in order): an array, a zod enum, or a
 * TypeScript enum object (string values, or the member names of a numeric enum).
 */
export type Completer = CompleteCallback | readonly string[] | { readonly options: readonly string[] } | { readonly [member: string]: string | number };

export declare class ResourceTemplate {
  readonly uriTemplate: string;
  constructor(uriTemplate: string, callbacks?: { list?: undefined; complete?: { [variable: string]: Completer } });
}

export interface PromptArgument { name: string; title?: string; description?: string; required?: boolean }
export interface PromptConfig<A extends SchemaInput | undefined = undefined> {
  title?: string;
  description?: string;
  argsSchema?: A;
  arguments?: PromptArgument[];
  icons?: Icon[];
  _meta?: JsonObject;
  complete?: { [argument: string]: Completer };
  timeoutMs?: number;
  /** Scopes the caller must hold (enforced by the core when HTTP auth is configured; 403 step-up challenge otherwise). */
  requiredScopes?: string[];
  /** The TS SDK's spelling: `requireScopes(...)`, enforced as `requiredScopes`. Another resolver is refused. */
  scopeChallenge?: ScopeChallengeResolver;
}

/** One item of `Server.addTools`: `registerTool(name, config, handler)` as one object. */
export type ToolBatchItem = ToolConfig<any, any> & {
  name: string;
  handler: (...args: any[]) => Awaitable<ToolReturn>;
};

/** With argsSchema or arguments: `(args, ctx)`; without: `(ctx)`. */
export type PromptHandler<A extends SchemaInput | undefined> = [A] extends [undefined]
  ? (ctx: Context) => Awaitable<PromptReturn>
  : (args: InferArgs<A>, ctx: Context) => Awaitable<PromptReturn>;

/** A scope challenge resolver (the TS SDK's shape): made by {@link requireScopes}. */
export type ScopeChallengeResolver = (context: { authInfo?: { scopes: string[] } }) => { scopes: string[]; errorDescription?: string } | undefined;
/** The TS SDK's `requireScopes(...scopes)`: a registration needs every one of `scopes`. */
export declare function requireScopes(...scopes: string[]): ScopeChallengeResolver;
export declare function completable<S>(schema: S, complete: (value: string, context: { arguments: { [key: string]: string } }) => Awaitable<CompletionReturn>): S;

export interface Listening {
  host: string;
  port: number;
  /** The endpoint's URL; on a Unix socket, the one to request over it (`http://localhost/mcp`). */
  url: string;
  /** The Unix socket's path, when listening on one. */
  uds?: string;
}

// ------------------------------------------------------------------ discovery

/** A definition made by `defineTool` & co., registered by `server.discover(dir)` from the module exporting it. */
export declare class Definition {
  readonly kind: 'tool' | 'resource' | 'resource template' | 'prompt';
  /** A tool's or prompt's name, a resource's URI, a template's URI template. */
  readonly name: string;
}
/** What discovery registered, and where it is defined (`module`: the file's path below the directory). */
export interface DiscoveredItem {
  kind: 'tool' | 'resource' | 'resource template' | 'prompt';
  name: string;
  module: string;
  file: string;
  /** The line of the `define*` call; 0 when unknown. */
  line: number;
}
/** `registerTool`'s arguments, as a definition `server.discover()` registers. */
export declare function defineTool<I extends SchemaInput | undefined = undefined, O extends SchemaInput | undefined = undefined>(
  name: string,
  config: ToolConfig<I, O>,
  handler: ToolHandler<I>,
): Definition;
/** `registerResource`'s arguments, as a definition `server.discover()` registers. */
export declare function defineResource(name: string, uri: string, metadata: ResourceMetadata, read: (uri: URL, ctx: Context) => Awaitable<ResourceReturn>): Definition;
export declare function defineResource(
  name: string,
  template: ResourceTemplate,
  metadata: ResourceMetadata,
  read: (uri: URL, variables: { [name: string]: string | string[] }, ctx: Context) => Awaitable<ResourceReturn>,
): Definition;
/** A resource template's definition (the URI template has a `{variable}`). */
export declare function defineResourceTemplate(
  name: string,
  uriTemplate: string | ResourceTemplate,
  metadata: ResourceMetadata,
  read: (uri: URL, variables: { [name: string]: string | string[] }, ctx: Context) => Awaitable<ResourceReturn>,
): Definition;
/** `registerPrompt`'s arguments, as a definition `server.discover()` registers. */
export declare function definePrompt<A extends SchemaInput | undefined = undefined>(name: string, config: PromptConfig<A>, handler: PromptHandler<A>): Definition;

/** The oxmcp server: register handlers, then `listen()`, `serveStdio()` or mount `fetch` / `nodeHandler()`. */
export declare class Server {
  /** `options.capabilities` is derived from what is registered, but for its `extensions` (the `extensions` option). */
  constructor(info: ServerOptions, options?: Partial<ServerOptions> & { capabilities?: { extensions?: { [id: string]: object }; [key: string]: unknown } });

  registerTool<I extends SchemaInput | undefined = undefined, O extends SchemaInput | undefined = undefined>(
    name: string,
    config: ToolConfig<I, O>,
    handler: ToolHandler<I>,
  ): RegisteredItem;
  tool(name: string, handler: (ctx: Context) => Awaitable<ToolReturn>): RegisteredItem;
  tool(name: string, description: string, handler: (ctx: Context) => Awaitable<ToolReturn>): RegisteredItem;
  tool<I extends SchemaInput>(name: string, inputSchema: I, handler: (args: InferArgs<I>, ctx: Context) => Awaitable<ToolReturn>): RegisteredItem;
  tool<I extends SchemaInput>(name: string, description: string, inputSchema: I, handler: (args: InferArgs<I>, ctx: Context) => Awaitable<ToolReturn>): RegisteredItem;
  tool<I extends SchemaInput>(name: string, description: string, inputSchema: I, annotations: ToolAnnotations, handler: (args: InferArgs<I>, ctx: Context) => Awaitable<ToolReturn>): RegisteredItem;
  /**
   * Register many tools as one change: each item is `{ name, handler, ...config }` (`registerTool`'s
   * config keys). All or none: a bad definition, a name already registered or twice in the batch
   * throws naming the tool and nothing is registered; at most one `notifications/tools/list_changed`.
   */
  addTools(tools: readonly ToolBatchItem[]): RegisteredItem[];
  /** Remove a tool at runtime (publishes `notifications/tools/list_changed`). */
  /**
   * An explicit element: a spec-shaped definition (`inputSchema`: a tool, `uriTemplate`: a resource
   * template, `uri`: a resource, otherwise a prompt) with its handler, or a `define*` definition of
   * the same kind whose handler is used. The core checks the pairing and a tool's input schema.
   */
  add(definition: { name: string; [key: string]: unknown }, handler: ((...args: any[]) => unknown) | Definition): RegisteredItem;
  removeTool(name: string): boolean;
  listTools(): string[];

  registerResource(name: string, uri: string, metadata: ResourceMetadata, read: (uri: URL, ctx: Context) => Awaitable<ResourceReturn>): RegisteredItem;
  registerResource(
    name: string,
    template: ResourceTemplate,
    metadata: ResourceMetadata,
    read: (uri: URL, variables: { [name: string]: string | string[] }, ctx: Context) => Awaitable<ResourceReturn>,
  ): RegisteredItem;
  resource(name: string, uri: string, read: (uri: URL, ctx: Context) => Awaitable<ResourceReturn>): RegisteredItem;
  resource(name: string, uri: string, metadata: ResourceMetadata, read: (uri: URL, ctx: Context) => Awaitable<ResourceReturn>): RegisteredItem;
  removeResource(uri: string): boolean;
  removeResourceTemplate(uriTemplate: string): boolean;
  notifyResourceUpdated(uri: string): void;
  /**
   * Serve every folder below `root` holding a SKILL.md (the Skills extension); returns the SKILL.md URIs.
   * `listed: false` (here and below) leaves the skills and their files out of `skills/list` and
   * `resources/list`; `skills/get` and reads by URI still serve them.
   */
  addSkillsDir(root: string, options?: { prefix?: string; listed?: boolean }): string[];
  /** Serve the one skill in the folder `dir` at `skill://<path>/` (default: the folder's name). */
  addSkillDir(dir: string, path?: string, options?: { listed?: boolean }): string;
  /** Serve one skill at `skill://<path>/` from its files; returns its SKILL.md URI. */
  addSkill(path: string, files: Record<string, string | Uint8Array>, options?: { listed?: boolean }): string;
  /** A skill whose files are generated per read (`"resources": "dynamic"`). */
  dynamicSkill(
    path: string,
    options: { description: string; frontmatter?: Record<string, unknown>; mimeType?: string; listed?: boolean },
    read: (file: string, ctx: Context) => string | Uint8Array | { text: string; mimeType?: string } | { bytes: Uint8Array; mimeType?: string } | Promise<string | Uint8Array | { text: string; mimeType?: string } | { bytes: Uint8Array; mimeType?: string }>,
  ): string;

  registerPrompt(
    name: string,
    config: PromptConfig & { arguments: PromptArgument[] },
    handler: (args: { [key: string]: string }, ctx: Context) => Awaitable<PromptReturn>,
  ): RegisteredItem;
  registerPrompt<A extends SchemaInput | undefined = undefined>(name: string, config: PromptConfig<A>, handler: PromptHandler<A>): RegisteredItem;
  prompt(name: string, handler: (ctx: Context) => Awaitable<PromptReturn>): RegisteredItem;
  prompt(name: string, description: string, handler: (ctx: Context) => Awaitable<PromptReturn>): RegisteredItem;
  prompt<A extends SchemaInput>(name: string, description: string, argsSchema: A, handler: (args: InferArgs<A>, ctx: Context) => Awaitable<PromptReturn>): RegisteredItem;
  removePrompt(name: string): boolean;

  /**
   * Import every module (.js, .mjs, .cjs) below `dir`, in sorted order, and register the definitions
   * they export. `exclude`: directory names skipped (`node_modules` always is). A name registered by
   * hand wins over a discovered one, before or after; two discovered with one name reject with a
   * `RegistrationError` (`DUPLICATE_NAME`) naming both places, a module that fails to import with one
   * (`IMPORT_FAILED`) naming its file.
   */
  discover(dir: string | URL, options?: { exclude?: string[] }): Promise<DiscoveredItem[]>;
  /** What is registered from discovery, with its place (a name registered by hand is not). */
  discovered(): DiscoveredItem[];

  /**
   * Add middleware to the core's chain (the first added sees a request first). `use(fn)` sees every
   * request; `use(method | methods, fn)` and `use({ onCallTool, ... })` only theirs, so other
   * requests never call into JS.
   */
  use(middleware: Middleware | MiddlewareHooks): this;
  use(methods: string | string[], middleware: Middleware): this;

  /** Options of the handler behind `fetch()` / `nodeHandler()` / `client()`. */
  configureHttp(options: HttpOptions): void;
  /** Serve Streamable HTTP; resolves once bound. The process stays alive until `close()`. */
  listen(options?: ListenOptions): Promise<Listening>;
  /** Serve stdio; resolves when stdin ends or `close()` is called. Log to stderr, never stdout. */
  serveStdio(): Promise<void>;
  /** Stop every transport; in-flight requests are cancelled after the drain deadline. */
  close(): Promise<void>;
  /** A WHATWG fetch handler (Hono, Workers-style hosts). `peer`: the client's address, if the host knows it. */
  fetch(request: Request, options?: { peer?: string }): Promise<Response>;
  /** A Node `http` / Express handler. */
  nodeHandler(options?: HttpOptions): (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse, next?: (err?: unknown) => void) => void;
  /** An in-memory client for tests (modern requests through `fetch`). */
  client(options?: InMemoryClientOptions): InMemoryClient;
}

/** The TS SDK's McpServer (v2 shapes; v1's from `oxmcp/server/mcp.js`): `(args, extra)` callbacks, `connect`, `server.server`. */
export { McpServer } from './lib/sdk/mcp.js';
/** The TS SDK v2's fetch-style HTTP entry over a server factory. */
export { createMcpHandler } from './lib/sdk/v2.js';
/** The TS SDK v2's constants, error classes and predicates. */
export * from './lib/sdk/v2-names.js';

// ------------------------------------------------------------------ in-memory client

export interface InMemoryClientOptions {
  clientInfo?: { name: string; version: string };
  capabilities?: { [key: string]: unknown };
  protocolVersion?: string;
  url?: string;
  /** Sent as `Authorization: Bearer <token>`. */
  token?: string;
}
export interface SendOptions {
  capabilities?: { [key: string]: unknown };
  logLevel?: LogLevel;
  progressToken?: string | number;
  meta?: { [key: string]: unknown };
  signal?: AbortSignal;
  onNotification?: (n: { method: string; params?: any }) => void;
  inputResponses?: { [key: string]: unknown };
  requestState?: string;
}
export interface JsonRpcMessage { jsonrpc: '2.0'; id?: string | number; method?: string; params?: any; result?: any; error?: any }

export declare class InMemoryClient {
  constructor(server: { fetch(r: Request): Promise<Response> }, options?: InMemoryClientOptions);
  /** Sent as `Authorization: Bearer <token>` (change it between requests to act as another caller). */
  token: string | undefined;
  send(method: string, params?: { [key: string]: unknown }, options?: SendOptions): Promise<{ result: any; notifications: JsonRpcMessage[]; status: number }>;
  request(method: string, params?: { [key: string]: unknown }, options?: SendOptions): Promise<any>;
  discover(options?: SendOptions): Promise<any>;
  listTools(params?: { cursor?: string }, options?: SendOptions): Promise<{ tools: any[]; nextCursor?: string }>;
  callTool(name: string, args?: { [key: string]: unknown }, options?: SendOptions): Promise<CallToolResult & { resultType: string; inputRequests?: any; requestState?: string }>;
  listResources(params?: { cursor?: string }, options?: SendOptions): Promise<{ resources: any[] }>;
  listResourceTemplates(params?: { cursor?: string }, options?: SendOptions): Promise<{ resourceTemplates: any[] }>;
  readResource(uri: string, options?: SendOptions): Promise<{ contents: ResourceContents[] }>;
  listPrompts(params?: { cursor?: string }, options?: SendOptions): Promise<{ prompts: any[] }>;
  getPrompt(name: string, args?: { [key: string]: string }, options?: SendOptions): Promise<GetPromptResult>;
  complete(
    ref: { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string },
    argument: { name: string; value: string },
    context?: { arguments?: { [key: string]: string } },
    options?: SendOptions,
  ): Promise<{ completion: { values: string[]; total?: number; hasMore?: boolean } }>;
}

// ------------------------------------------------------------------ command line

export type ServeArgs = { mode: 'stdio' } | { mode: 'http'; host: string; port: number; path: string };
/** The examples' command line: no args → stdio; `--http HOST:PORT` → Streamable HTTP at /mcp. */
export declare function parseServeArgs(argv?: string[]): ServeArgs;
export declare function runFromArgs(server: Server, argv?: string[]): Promise<void>;

declare const _default: {
  Server: typeof Server;
  McpServer: typeof Server;
  ResourceTemplate: typeof ResourceTemplate;
  completable: typeof completable;
  defineTool: typeof defineTool;
  defineResource: typeof defineResource;
  defineResourceTemplate: typeof defineResourceTemplate;
  definePrompt: typeof definePrompt;
  ToolError: typeof ToolError;
  McpError: typeof McpError;
  ErrorCode: typeof ErrorCode;
  RegistrationError: typeof RegistrationError;
  Context: typeof Context;
  InMemoryClient: typeof InMemoryClient;
  text: typeof text;
  image: typeof image;
  audio: typeof audio;
  resource: typeof resource;
  resourceLink: typeof resourceLink;
  parseServeArgs: typeof parseServeArgs;
  runFromArgs: typeof runFromArgs;
};
export default _default;

/** MCP Apps: the MIME type of a `ui://` app resource. */
export declare const RESOURCE_MIME_TYPE: 'text/html;profile=mcp-app';
/** MCP Apps: a tool linked to a `ui://` resource by `_meta.ui.resourceUri` (shaped like `@modelcontextprotocol/ext-apps/server`). */
export declare function registerAppTool(server: Server, name: string, config: ToolConfig<any, any> & { _meta: { ui: { resourceUri: string; visibility?: ('model' | 'app')[] } } & JsonObject }, handler: (...args: any[]) => any): unknown;
/** MCP Apps: the `ui://` HTML resource; `_meta.ui` (csp, permissions, domain, prefersBorder) is copied onto the contents. */
export declare function registerAppResource(server: Server, name: string, uri: string, config: { mimeType?: string; title?: string; description?: string; _meta?: JsonObject }, read: (uri: URL, ctx: any) => any): unknown;
