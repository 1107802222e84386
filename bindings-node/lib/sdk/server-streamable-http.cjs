'use strict';
// `oxmcp/server/streamableHttp.js` (the TS SDK v1 path `@modelcontextprotocol/sdk/server/streamableHttp.js`).
const { StreamableHTTPServerTransport } = require('./transports.cjs');
module.exports = { StreamableHTTPServerTransport };
