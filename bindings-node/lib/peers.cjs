'use strict';
/**
 * oxmcp's optional peers (zod, express) are the server's own packages. They are looked up from
 * oxmcp's own location first (an oxmcp installed in the server's project finds the project's copy
 * there), then from the server's: its entry file (`node server.js`, `node --import oxmcp/register
 * server.js`, `oxmcp run server.js`) and the working directory. The second lookup is what lets a
 * server run on an oxmcp installed elsewhere (`npx oxmcp run`, a global install, a checkout), as
 * the zero-change mode promises: the SDK it replaces found them beside the server.
 */
const { createRequire } = require('node:module');
const fs = require('node:fs');
const path = require('node:path');

/** Where the server's own packages are found, after oxmcp's location. */
function serverBases() {
  const bases = [];
  const entry = process.argv[1];
  if (entry) {
    try {
      if (fs.statSync(entry).isFile()) bases.push(path.resolve(entry));
    } catch {
      // not a file (`node -e`, a REPL): nothing to resolve from
    }
  }
  bases.push(path.join(process.cwd(), 'noop.js'));
  return bases;
}

/**
 * `require(id)` for an optional peer: oxmcp's location, then the server's. Throws the first
 * lookup's error when no copy is found.
 * @param {string} id
 */
function requirePeer(id) {
  try {
    return require(id);
  } catch (first) {
    if (/** @type {any} */ (first)?.code !== 'MODULE_NOT_FOUND' && /** @type {any} */ (first)?.code !== 'ERR_PACKAGE_PATH_NOT_EXPORTED') throw first;
    for (const base of serverBases()) {
      try {
        return createRequire(base)(id);
      } catch {
        // try the next place
      }
    }
    throw first;
  }
}

/** `requirePeer(id)`, or null when no copy is found. */
function tryRequirePeer(id) {
  try {
    return requirePeer(id);
  } catch {
    return null;
  }
}

module.exports = { requirePeer, tryRequirePeer };
