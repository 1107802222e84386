'use strict';
/**
 * oxmcp for Node: register JS/TS tools, resources and prompts; the Rust core
 * validates, dispatches and serves them over stdio and Streamable HTTP.
 */
const { Server, ResourceTemplate, completable } = require('./lib/server.cjs');
const { ToolError, McpError, ErrorCode, RegistrationError } = require('./lib/errors.cjs');
const { text, image, audio, resource, resourceLink } = require('./lib/results.cjs');
const { Context, MiddlewareContext } = require('./lib/context.cjs');
const { InMemoryClient } = require('./lib/client.cjs');
const { parseServeArgs, runFromArgs } = require('./lib/cli.cjs');
const { registerAppTool, registerAppResource, RESOURCE_MIME_TYPE } = require('./lib/apps.cjs');
const sdk = require('./lib/sdk/mcp.cjs');
const { requireScopes } = require('./lib/scopes.cjs');
/** The TS SDK v2's `createMcpHandler` (lib/sdk/v2.cjs, loaded by the first call). */
function createMcpHandler(factory, options) {
  return require('./lib/sdk/v2.cjs').createMcpHandler(factory, options);
}

/** Discovery's `define*` (lib/discovery.cjs, loaded by the first call). */
const defineTool = (...a) => require('./lib/discovery.cjs').defineTool(...a);
const defineResource = (...a) => require('./lib/discovery.cjs').defineResource(...a);
const defineResourceTemplate = (...a) => require('./lib/discovery.cjs').defineResourceTemplate(...a);
const definePrompt = (...a) => require('./lib/discovery.cjs').definePrompt(...a);

const v2Names = require('./lib/sdk/v2-names.cjs');

module.exports = {
  Server,
  /** The TS SDK's McpServer (v1 and v2 shapes: connect, server.server, `(args, extra)` callbacks). */
  McpServer: sdk.McpServer,
  createMcpHandler,
  ResourceTemplate,
  completable,
  requireScopes,
  defineTool,
  defineResource,
  defineResourceTemplate,
  definePrompt,
  ToolError,
  McpError,
  ErrorCode,
  RegistrationError,
  Context,
  MiddlewareContext,
  InMemoryClient,
  text,
  image,
  audio,
  resource,
  resourceLink,
  parseServeArgs,
  runFromArgs,
  registerAppTool,
  registerAppResource,
  RESOURCE_MIME_TYPE,
};
// The TS SDK v2's constants, error classes and predicates (lib/sdk/v2-names.cjs); copied as
// properties so its limits, read from the core, stay lazy getters.
Object.defineProperties(module.exports, Object.getOwnPropertyDescriptors(v2Names));
// `import oxmcp from 'oxmcp'` and `require('oxmcp').default` both work.
module.exports.default = module.exports;
