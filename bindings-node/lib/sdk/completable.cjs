'use strict';
// `oxmcp/server/completable.js` (the TS SDK v1 path).
const { completable } = require('../server.cjs');
module.exports = { completable };
