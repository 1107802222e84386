'use strict';
// `oxmcp/server/sse.js` (the TS SDK v1 path `@modelcontextprotocol/sdk/server/sse.js`).
const { SSEServerTransport } = require('./sse.cjs');
module.exports = { SSEServerTransport };
