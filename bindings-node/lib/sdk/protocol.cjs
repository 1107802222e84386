'use strict';
/**
 * The light names of `@modelcontextprotocol/sdk/types.js` (and of the v2 root that re-exports
 * them): the SDK's `ErrorCode`, `McpError`, protocol constants, JSON-RPC predicates and
 * `mergeCapabilities`. Apart from lib/sdk/types.cjs's schema table, so that `import ... from
 * 'oxmcp'` does not build that table: whatever a process allocates while it starts and still
 * holds at V8's first scavenges counts towards growing the young generation, and a grown young
 * generation is resident memory for the life of the process (docs/PERFORMANCE.md, "Node start-up kept light").
 */
const { McpError: BaseMcpError, ErrorCode: OxErrorCode } = require('../errors.cjs');

/** JSON-RPC error codes, with the SDK's reverse mapping (`ErrorCode[-32602] === 'InvalidParams'`). */
const ErrorCode = {};
for (const [k, v] of Object.entries({
  ConnectionClosed: -32000,
  RequestTimeout: -32001,
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  UrlElicitationRequired: OxErrorCode.UrlElicitationRequired,
})) {
  ErrorCode[k] = v;
  ErrorCode[v] = k;
}
Object.freeze(ErrorCode);

/** The SDK's McpError: its message is `MCP error <code>: <message>`; it is an oxmcp McpError, so the core maps it to a JSON-RPC error. */
class McpError extends BaseMcpError {
  constructor(code, message, data) {
    super(code, `MCP error ${code}: ${message}`, data);
    this.name = 'McpError';
  }
  static fromError(code, message, data) {
    if (code === ErrorCode.UrlElicitationRequired && data && data.elicitations) return new UrlElicitationRequiredError(data.elicitations, message);
    return new McpError(code, message, data);
  }
}

/** -32042: the tool needs the user to complete URL elicitations first (stays a JSON-RPC error). */
class UrlElicitationRequiredError extends McpError {
  constructor(elicitations, message = `URL elicitation${elicitations.length > 1 ? 's' : ''} required`) {
    super(ErrorCode.UrlElicitationRequired, message, { elicitations });
  }
  get elicitations() { return /** @type {{ elicitations?: unknown[] } | undefined} */ (this.data)?.elicitations ?? []; }
}

const LATEST_PROTOCOL_VERSION = '2025-11-25';
const DEFAULT_NEGOTIATED_PROTOCOL_VERSION = '2025-03-26';
const SUPPORTED_PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07'];
const JSONRPC_VERSION = '2.0';
const RELATED_TASK_META_KEY = 'io.modelcontextprotocol/related-task';

function isJSONRPCRequest(v) { return !!v && v.jsonrpc === '2.0' && 'id' in v && typeof v.method === 'string'; }
function isJSONRPCNotification(v) { return !!v && v.jsonrpc === '2.0' && !('id' in v) && typeof v.method === 'string'; }
function isJSONRPCResultResponse(v) { return !!v && v.jsonrpc === '2.0' && 'id' in v && 'result' in v; }
function isJSONRPCErrorResponse(v) { return !!v && v.jsonrpc === '2.0' && 'error' in v; }
function isJSONRPCResponse(v) { return isJSONRPCResultResponse(v); }
function isInitializeRequest(v) {
  const one = (m) => isJSONRPCRequest(m) && m.method === 'initialize' && !!m.params && typeof m.params.protocolVersion === 'string';
  return Array.isArray(v) ? v.some(one) : one(v);
}
function isInitializedNotification(v) { return isJSONRPCNotification(v) && v.method === 'notifications/initialized'; }
function isTaskAugmentedRequestParams(v) { return !!v && typeof v === 'object' && v.task !== undefined && typeof v.task === 'object'; }
function assertCompleteRequestPrompt(r) {
  if (r?.params?.ref?.type !== 'ref/prompt') throw new TypeError(`Expected CompleteRequestPrompt, but got ${r?.params?.ref?.type}`);
}
function assertCompleteRequestResourceTemplate(r) {
  if (r?.params?.ref?.type !== 'ref/resource') throw new TypeError(`Expected CompleteRequestResourceTemplate, but got ${r?.params?.ref?.type}`);
}

/** The SDK's `mergeCapabilities`: objects merge key by key, anything else is replaced. */
function mergeCapabilities(a, b) {
  const out = { ...a };
  for (const [k, v] of Object.entries(b ?? {})) {
    out[k] = v && typeof v === 'object' && !Array.isArray(v) && a?.[k] && typeof a[k] === 'object' ? mergeCapabilities(a[k], v) : v;
  }
  return out;
}

module.exports = {
  ErrorCode, McpError, UrlElicitationRequiredError,
  LATEST_PROTOCOL_VERSION, DEFAULT_NEGOTIATED_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS, JSONRPC_VERSION, RELATED_TASK_META_KEY,
  isJSONRPCRequest, isJSONRPCNotification, isJSONRPCResultResponse, isJSONRPCErrorResponse, isJSONRPCResponse, isJSONRPCError: isJSONRPCErrorResponse,
  isInitializeRequest, isInitializedNotification, isTaskAugmentedRequestParams,
  assertCompleteRequestPrompt, assertCompleteRequestResourceTemplate, mergeCapabilities,
};
