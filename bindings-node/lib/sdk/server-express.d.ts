// `oxmcp/server/express.js`: the TS SDK v1 path `@modelcontextprotocol/sdk/server/express.js`.
import type { Express } from 'express';
export interface CreateMcpExpressAppOptions {
  /** The hostname the app will listen on (default '127.0.0.1'): loopback names keep the core's loopback-only Host check. */
  host?: string;
  /** The Host names the core accepts for this app's MCP requests (for IPv6, with brackets). */
  allowedHosts?: string[];
}
/** An Express app with a JSON body parser; its MCP requests are Host-checked by the core. */
export declare function createMcpExpressApp(options?: CreateMcpExpressAppOptions): Express;
