'use strict';
/**
 * Errors that carry a kind. JS code sees `err.code`; the Rust core maps each
 * kind to the wire exactly once (ToolError → `isError` result, McpError →
 * JSON-RPC error).
 */

/** JSON-RPC error codes (mirrors `oxmcp::ErrorCode`). */
const ErrorCode = Object.freeze({
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  HeaderMismatch: -32020,
  MissingRequiredClientCapability: -32021,
  UnsupportedProtocolVersion: -32022,
  ResourceNotFoundLegacy: -32002,
  UrlElicitationRequired: -32042,
});

/**
 * A failure the model should see: the call answers a normal result with
 * `isError: true` whose text is `message`.
 */
class ToolError extends Error {
  /**
   * @param {string} message
   * @param {{ content?: unknown[], structuredContent?: unknown, cause?: unknown }} [options]
   */
  constructor(message, options = {}) {
    super(message, options.cause !== undefined ? { cause: options.cause } : undefined);
    this.name = 'ToolError';
    this.code = 'TOOL_ERROR';
    this.content = options.content;
    this.structuredContent = options.structuredContent;
  }
}

/** A protocol error: the request is answered with a JSON-RPC error `{code, message, data}`. */
class McpError extends Error {
  /**
   * @param {number} code JSON-RPC code (see ErrorCode)
   * @param {string} message
   * @param {unknown} [data]
   */
  constructor(code, message, data) {
    super(message);
    this.name = 'McpError';
    this.code = code;
    this.data = data;
  }
}

/** Thrown by registration when a definition is rejected (bad schema, duplicate name, bad URI template). */
class RegistrationError extends Error {
  constructor(message, code = 'INVALID_DEFINITION', cause) {
    super(message, cause !== undefined ? { cause } : undefined);
    this.name = 'RegistrationError';
    this.code = code;
  }
}

/**
 * Rethrow a native (napi) error with a JS class and a stable `code`. Native
 * errors arrive as `Error` whose `code` is the napi status or a prefix
 * `"CODE: message"` our Rust layer writes; map once, here.
 */
function fromNative(err) {
  if (!(err instanceof Error)) return err;
  const m = /^([A-Z][A-Z_]+): ([\s\S]*)$/.exec(err.message);
  if (!m) return err;
  const [, code, message] = m;
  if (code === 'MCP_ERROR') {
    try {
      const e = JSON.parse(message);
      return new McpError(e.code, e.message, e.data);
    } catch {}
  }
  if (code === 'INVALID_SCHEMA' || code === 'DUPLICATE_NAME' || code === 'BAD_URI_TEMPLATE' || code === 'INVALID_DEFINITION') {
    return new RegistrationError(message, code, err);
  }
  const e = new Error(message, { cause: err });
  e.code = code;
  return e;
}

module.exports = { ErrorCode, ToolError, McpError, RegistrationError, fromNative };
