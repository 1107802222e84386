// `oxmcp/server/index.js`: the TS SDK v1 path `@modelcontextprotocol/sdk/server/index.js`.
import type { LowLevelFacade } from './mcp.js';
/** The SDK's low-level Server: `setRequestHandler(ListToolsRequestSchema, ...)` and friends over the core. */
export declare class Server extends LowLevelFacade {
  constructor(serverInfo: { name: string; version?: string; title?: string }, options?: { capabilities?: { [key: string]: unknown }; instructions?: string; /** Opt in to 2026-07-28 (the SDK 1.x speaks only the initialize-era revisions). */ modern?: boolean });
  readonly native: unknown;
  /** oxmcp's middleware on the core's chain (as `Server.use` in oxmcp). */
  use(middleware: import('../../index.js').Middleware | import('../../index.js').MiddlewareHooks): this;
  use(methods: string | string[], middleware: import('../../index.js').Middleware): this;
  configureHttp(options: { [key: string]: unknown }): void;
  serveStdio(): Promise<void>;
  fetch(request: Request): Promise<Response>;
}
