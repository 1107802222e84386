'use strict';
// `oxmcp/server/stdio.js` (v1) and `oxmcp/stdio` (v2 `@modelcontextprotocol/server/stdio`).
const { StdioServerTransport } = require('./transports.cjs');
const { serveStdio } = require('./v2.cjs');
module.exports = { StdioServerTransport, serveStdio };
