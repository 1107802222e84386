'use strict';
// `oxmcp/server/index.js`: the TS SDK v1 path `@modelcontextprotocol/sdk/server/index.js`.
const { Server } = require('./lowlevel.cjs');
module.exports = { Server };
