'use strict';
// `oxmcp/experimental/tasks/stores/in-memory.js` for require() (the TS SDK v1 path of the same name).
const { InMemoryTaskStore, InMemoryTaskMessageQueue } = require('./tasks.cjs');
module.exports = { InMemoryTaskStore, InMemoryTaskMessageQueue };
