// `oxmcp/server/mcp.js` (the TS SDK v1 path `@modelcontextprotocol/sdk/server/mcp.js`).
import cjs from './server-mcp.cjs';
export const { McpServer, ResourceTemplate } = cjs;
