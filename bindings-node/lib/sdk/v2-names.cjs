'use strict';
/**
 * Names `@modelcontextprotocol/server` (TS SDK v2) exports that are plain values or small helpers:
 * protocol constants, `_meta` keys, error codes and classes, and JSON-RPC predicates. Re-exported
 * by the `oxmcp` root so that a v2 server's imports resolve.
 */
const { McpError } = require('../errors.cjs');
const protocol = require('./protocol.cjs');

const ProtocolErrorCode = {};
for (const [k, v] of Object.entries({
  ParseError: -32700, InvalidRequest: -32600, MethodNotFound: -32601, InvalidParams: -32602, InternalError: -32603,
  ResourceNotFound: -32002, MissingRequiredClientCapability: -32021, UnsupportedProtocolVersion: -32022, UrlElicitationRequired: -32042,
})) {
  ProtocolErrorCode[k] = v;
  ProtocolErrorCode[v] = k;
}
Object.freeze(ProtocolErrorCode);

/** v2's protocol error: answered as a JSON-RPC error `{ code, message, data }` (an oxmcp McpError). */
class ProtocolError extends McpError {
  constructor(code, message, data) {
    super(code, message, data);
    this.name = 'ProtocolError';
  }
}

/** -32002 for a resource URI nothing serves. */
class ResourceNotFoundError extends ProtocolError {
  constructor(uri, message = `Resource ${uri} not found`) {
    super(ProtocolErrorCode.ResourceNotFound, message, { uri });
    this.name = 'ResourceNotFoundError';
  }
}

/** `title`, else `annotations.title`, else `name` (the spec's display-name rule). */
function getDisplayName(metadata) {
  if (metadata.title !== undefined && metadata.title !== '') return metadata.title;
  if (metadata.annotations?.title) return metadata.annotations.title;
  return metadata.name;
}

/** A value shaped like a CallToolResult (a `content` array). */
function isCallToolResult(value) {
  return typeof value === 'object' && value !== null && Array.isArray(value.content);
}

module.exports = {
  BAGGAGE_META_KEY: 'baggage',
  CLIENT_CAPABILITIES_META_KEY: 'io.modelcontextprotocol/clientCapabilities',
  CLIENT_INFO_META_KEY: 'io.modelcontextprotocol/clientInfo',
  LOG_LEVEL_META_KEY: 'io.modelcontextprotocol/logLevel',
  PROTOCOL_VERSION_META_KEY: 'io.modelcontextprotocol/protocolVersion',
  SERVER_INFO_META_KEY: 'io.modelcontextprotocol/serverInfo',
  SUBSCRIPTION_ID_META_KEY: 'io.modelcontextprotocol/subscriptionId',
  TRACEPARENT_META_KEY: 'traceparent',
  TRACESTATE_META_KEY: 'tracestate',
  RELATED_TASK_META_KEY: protocol.RELATED_TASK_META_KEY,
  DEFAULT_REQUEST_TIMEOUT_MSEC: 60000,
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
  JSONRPC_VERSION: protocol.JSONRPC_VERSION,
  LATEST_PROTOCOL_VERSION: protocol.LATEST_PROTOCOL_VERSION,
  DEFAULT_NEGOTIATED_PROTOCOL_VERSION: protocol.DEFAULT_NEGOTIATED_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS: protocol.SUPPORTED_PROTOCOL_VERSIONS,
  ProtocolError,
  ProtocolErrorCode,
  ResourceNotFoundError,
  UrlElicitationRequiredError: protocol.UrlElicitationRequiredError,
  isInitializeRequest: protocol.isInitializeRequest,
  isInitializedNotification: protocol.isInitializedNotification,
  isJSONRPCRequest: protocol.isJSONRPCRequest,
  isJSONRPCNotification: protocol.isJSONRPCNotification,
  isJSONRPCResponse: protocol.isJSONRPCResponse,
  isJSONRPCResultResponse: protocol.isJSONRPCResultResponse,
  isJSONRPCErrorResponse: protocol.isJSONRPCErrorResponse,
  isTaskAugmentedRequestParams: protocol.isTaskAugmentedRequestParams,
  assertCompleteRequestPrompt: protocol.assertCompleteRequestPrompt,
  assertCompleteRequestResourceTemplate: protocol.assertCompleteRequestResourceTemplate,
  getDisplayName,
  isCallToolResult,
  mergeCapabilities: protocol.mergeCapabilities,
};

// The limits oxmcp serves with are the core's defaults (its `max_body_bytes` and, for stdio,
// `max_line_bytes`), read from the native module when first asked for: requiring the package
// loads no native code.
let defaults;
const core = () => (defaults ??= require('../native.cjs').loadNative().effectiveOptions({}));
Object.defineProperties(module.exports, {
  DEFAULT_MAX_REQUEST_BODY_SIZE: { enumerable: true, get: () => core().max_body_bytes },
  STDIO_DEFAULT_MAX_BUFFER_SIZE: { enumerable: true, get: () => core().max_line_bytes },
});
