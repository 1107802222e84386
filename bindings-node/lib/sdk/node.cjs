'use strict';
// `oxmcp/node` (the TS SDK v2 package `@modelcontextprotocol/node`).
const { StreamableHTTPServerTransport } = require('./transports.cjs');
const { toNodeHandler, toWebRequest } = require('./v2.cjs');
module.exports = { NodeStreamableHTTPServerTransport: StreamableHTTPServerTransport, toNodeHandler, toWebRequest };
