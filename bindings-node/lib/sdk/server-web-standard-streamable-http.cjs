'use strict';
// `oxmcp/server/webStandardStreamableHttp.js` (the TS SDK v1 path `@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js`).
const { WebStandardStreamableHTTPServerTransport } = require('./transports.cjs');
module.exports = { WebStandardStreamableHTTPServerTransport };
