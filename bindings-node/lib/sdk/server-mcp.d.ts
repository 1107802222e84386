// `oxmcp/server/mcp.js`: the TS SDK v1 path `@modelcontextprotocol/sdk/server/mcp.js`.
export { McpServer, ResourceTemplate, RequestHandlerExtra, RegisteredHandle } from './mcp.js';
