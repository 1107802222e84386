// `oxmcp/server/index.js`: the TS SDK v1 path `@modelcontextprotocol/sdk/server/index.js`.
import type { LowLevelFacade } from './mcp.js';
/** The SDK's low-level Server: `setRequestHandler(ListToolsRequestSchema, ...)` and friends over the core. */
export declare class Server extends LowLevelFacade {
  constructor(serverInfo: { name: string; version?: string; title?: string }, options?: { capabilities?: { [key: string]: unknown }; instructions?: string });
  readonly native: unknown;
  configureHttp(options: { [key: string]: unknown }): void;
  serveStdio(): Promise<void>;
  fetch(request: Request): Promise<Response>;
}
