// Types of oxmcp's TS-SDK-shaped McpServer (lib/sdk/mcp.cjs).
import type { Server, Context, ResourceTemplate as BaseTemplate, CompleteCallback, ServerOptions } from '../../index.js';

/** The SDK's `RequestHandlerExtra`, over oxmcp's `Context` (every Context member is there too). */
export interface RequestHandlerExtra extends Context {
  readonly ctx: Context;
  readonly _meta: { [key: string]: unknown };
  readonly sessionId: string | undefined;
  readonly authInfo: { token: string; clientId: string; scopes: string[]; extra?: { [key: string]: unknown } } | undefined;
  readonly requestInfo: undefined;
  sendNotification(notification: { method: string; params?: any }): Promise<void>;
  sendRequest<T = any>(request: { method: string; params?: any }, resultSchema?: { parse(v: unknown): T }): Promise<T>;
}

export interface RegisteredHandle {
  readonly name: string;
  readonly enabled: boolean;
  enable(): void;
  disable(): void;
  remove(): void;
  update(updates: { [key: string]: unknown }): void;
}

/** `mcpServer.server`: the SDK's low-level Server as McpServer-based servers use it. */
export declare class LowLevelFacade {
  oninitialized: (() => void) | undefined;
  onclose: (() => void) | undefined;
  onerror: ((e: Error) => void) | undefined;
  readonly transport: unknown;
  connect(transport: unknown): Promise<void>;
  close(): Promise<void>;
  registerCapabilities(capabilities: { [key: string]: unknown }): void;
  getCapabilities(): { [key: string]: unknown };
  setRequestHandler(schema: unknown, handler: (request: any, extra: RequestHandlerExtra) => unknown): void;
  removeRequestHandler(method: string): void;
  assertCanSetRequestHandler(method: string): void;
  setNotificationHandler(schema: unknown, handler: (notification: any) => unknown): void;
  removeNotificationHandler(method: string): void;
  getClientCapabilities(): { [key: string]: unknown } | undefined;
  getClientVersion(): { name: string; version: string } | undefined;
  sendLoggingMessage(params: { level: string; data: unknown; logger?: string }, sessionId?: string): Promise<void>;
  sendResourceUpdated(params: { uri: string }): Promise<void>;
  sendResourceListChanged(): void;
  sendToolListChanged(): void;
  sendPromptListChanged(): void;
  notification(n: { method: string; params?: any }): Promise<void>;
  createMessage(params: any): Promise<any>;
  elicitInput(params: any): Promise<any>;
  createElicitationCompletionNotifier(elicitationId: string): () => Promise<void>;
  listRoots(): Promise<{ roots: { uri: string; name?: string }[] }>;
  ping(): Promise<{}>;
  request<T = any>(request: { method: string; params?: any }, resultSchema?: { parse(v: unknown): T }): Promise<T>;
}

/** The SDK's `new ResourceTemplate(uriTemplate, { list, complete })` (`list` must be undefined). */
export declare class ResourceTemplate extends BaseTemplate {
  constructor(uriTemplate: string, callbacks: { list: undefined; complete?: { [variable: string]: CompleteCallback } });
  readonly listCallback: undefined;
  completeCallback(variable: string): CompleteCallback | undefined;
}

type Cb = (...args: any[]) => unknown;

/**
 * The TS SDK's McpServer: registration callbacks get the SDK's `extra` (`RequestHandlerExtra`),
 * `connect(transport)` serves, and a thrown Error's message is the `isError` text.
 */
export declare class McpServer extends Server {
  constructor(serverInfo: Omit<ServerOptions, 'version'> & { version?: string }, options?: Partial<ServerOptions> & { capabilities?: unknown; instructions?: string; taskStore?: import('./experimental.js').TaskStore; taskMessageQueue?: unknown });
  readonly server: LowLevelFacade;
  connect(transport: { start(): Promise<void> }): Promise<void>;
  isConnected(): boolean;
  registerTool(name: string, config: { [key: string]: any }, cb: Cb): RegisteredHandle & any;
  tool(name: string, ...rest: any[]): RegisteredHandle & any;
  registerResource(name: string, uriOrTemplate: string | BaseTemplate, metadata: { [key: string]: any }, cb: Cb): RegisteredHandle & any;
  resource(name: string, uriOrTemplate: string | BaseTemplate, ...rest: any[]): RegisteredHandle & any;
  registerPrompt(name: string, config: { [key: string]: any }, cb: Cb): RegisteredHandle & any;
  prompt(name: string, ...rest: any[]): RegisteredHandle & any;
  sendLoggingMessage(params: { level: string; data: unknown; logger?: string }, sessionId?: string): Promise<void>;
  sendResourceListChanged(): void;
  sendToolListChanged(): void;
  sendPromptListChanged(): void;
  /** The SDK's experimental tasks API: `experimental.tasks.registerToolTask(...)`. */
  readonly experimental: { readonly tasks: import('./experimental.js').ExperimentalMcpServerTasks };
}
