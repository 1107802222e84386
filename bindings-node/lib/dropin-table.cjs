'use strict';
/**
 * The zero-change mode's table (`node --import oxmcp/register`, `oxmcp run server.js`): each
 * TypeScript-SDK module oxmcp mirrors, and the oxmcp module that stands for it (the same pairs as
 * the import table of docs/COMPATIBILITY.md).
 *
 * Only these resolve. Any other module of the SDK's packages is an error that names it: the real
 * SDK is never loaded behind the server's back, since half a server on oxmcp and half on the SDK
 * would not work, and would not say why.
 */
const MIRRORS = {
  // @modelcontextprotocol/sdk (1.x)
  '@modelcontextprotocol/sdk/server/mcp.js': 'oxmcp/server/mcp.js',
  '@modelcontextprotocol/sdk/server/index.js': 'oxmcp/server/index.js',
  '@modelcontextprotocol/sdk/server/stdio.js': 'oxmcp/server/stdio.js',
  '@modelcontextprotocol/sdk/server/streamableHttp.js': 'oxmcp/server/streamableHttp.js',
  '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js': 'oxmcp/server/webStandardStreamableHttp.js',
  '@modelcontextprotocol/sdk/server/sse.js': 'oxmcp/server/sse.js',
  '@modelcontextprotocol/sdk/server/express.js': 'oxmcp/server/express.js',
  // requireBearerAuth, decided by the core; the authorization-server router (server/auth/router.js)
  // is not mirrored: oxmcp hosts no authorization server.
  '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js': 'oxmcp/server/auth/middleware/bearerAuth.js',
  '@modelcontextprotocol/sdk/server/completable.js': 'oxmcp/server/completable.js',
  '@modelcontextprotocol/sdk/types.js': 'oxmcp/types.js',
  '@modelcontextprotocol/sdk/experimental': 'oxmcp/experimental',
  '@modelcontextprotocol/sdk/experimental/index.js': 'oxmcp/experimental',
  '@modelcontextprotocol/sdk/experimental/tasks': 'oxmcp/experimental/tasks',
  '@modelcontextprotocol/sdk/experimental/tasks/index.js': 'oxmcp/experimental/tasks',
  '@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js': 'oxmcp/experimental/tasks/stores/in-memory.js',
  '@modelcontextprotocol/sdk/experimental/tasks/interfaces.js': 'oxmcp/experimental/tasks',
  // @modelcontextprotocol/server and @modelcontextprotocol/node (2.x)
  '@modelcontextprotocol/server': 'oxmcp',
  '@modelcontextprotocol/server/stdio': 'oxmcp/stdio',
  '@modelcontextprotocol/server/ext/skills': 'oxmcp/ext/skills',
  '@modelcontextprotocol/server/ext/skills/node': 'oxmcp/ext/skills/node',
  '@modelcontextprotocol/node': 'oxmcp/node',
  // createMcpExpressApp only: its auth and validation middleware are not mirrored, so a server that
  // imports them fails at start-up (ESM: no such export) rather than serving without them.
  '@modelcontextprotocol/express': 'oxmcp/server/express.js',
};

/** The packages the mode takes over. */
const PACKAGES = ['@modelcontextprotocol/sdk', '@modelcontextprotocol/server', '@modelcontextprotocol/node', '@modelcontextprotocol/express'];

/**
 * The oxmcp module for `specifier`; undefined for a module of another package; throws for a module
 * of a taken-over package that oxmcp does not mirror.
 * @param {string} specifier
 * @returns {string | undefined}
 */
function mirrorOf(specifier) {
  const target = MIRRORS[specifier];
  if (target) return target;
  if (!PACKAGES.some((p) => specifier === p || specifier.startsWith(`${p}/`))) return undefined;
  const err = new Error(`oxmcp: ${specifier} has no oxmcp counterpart, so this server cannot run on oxmcp unchanged `
    + '(the modules that have one are listed in docs/COMPATIBILITY.md, "Porting from the TypeScript SDK")');
  /** @type {any} */ (err).code = 'ERR_OXMCP_NO_MIRROR';
  throw err;
}

module.exports = { MIRRORS, PACKAGES, mirrorOf };
