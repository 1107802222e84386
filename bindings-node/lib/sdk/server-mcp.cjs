'use strict';
// `oxmcp/server/mcp.js` for require(): the TS SDK v1 path `@modelcontextprotocol/sdk/server/mcp.js`.
const { McpServerV1: McpServer, ResourceTemplate } = require('./mcp.cjs');
module.exports = { McpServer, ResourceTemplate };
