// `node --import oxmcp/register server.js`: runs a server written for the TypeScript SDK on oxmcp
// with no change to its code. ESM imports go through the hook in dropin-hooks.mjs; `require()`
// (CommonJS servers) through Module._resolveFilename, which Node 20's loader hooks do not cover.
import Module, { register } from 'node:module';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { mirrorOf } = require('./dropin-table.cjs');

register('./dropin-hooks.mjs', import.meta.url);

const original = /** @type {any} */ (Module)._resolveFilename;
/** @type {any} */ (Module)._resolveFilename = function resolveFilename(/** @type {string} */ request, /** @type {any[]} */ ...rest) {
  const target = mirrorOf(request);
  return target ? require.resolve(target) : original.call(this, request, ...rest);
};
