// `oxmcp/server/stdio.js` (v1) and `oxmcp/stdio` (v2 `@modelcontextprotocol/server/stdio`).
export { StdioServerTransport } from './transports.js';
import type { McpServer } from './mcp.js';
/** Serve the process's stdio from a server factory (called once); returns `{ close }`. */
export declare function serveStdio(
  factory: (ctx: { era: 'legacy' | 'modern' }) => McpServer | Promise<McpServer>,
  options?: { legacy?: 'serve' | 'reject'; onerror?: (e: Error) => void },
): { close(): Promise<void> };
