'use strict';
/**
 * Errors that carry a kind. JS code sees `err.code`; the Rust core maps each
 * kind to the wire exactly once (ToolError -> `isError` result, McpError ->
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
 * Rethrow a native (napi) error with a JS class. Native errors already carry their kind as
 * `err.code`, set natively by napi from the Rust error's typed status (`src/errors.rs`); this
 * only gives a few codes their JS class, by that code.
 * @param {any} err whatever a native call threw
 */
function fromNative(err) {
  const code = err instanceof Error ? /** @type {{ code?: unknown }} */ (err).code : undefined;
  if (typeof code !== 'string') return err;
  switch (code) {
    case 'MCP_ERROR': {
      // The message of an MCP_ERROR is the JSON-RPC error object.
      let e;
      try {
        e = JSON.parse(err.message);
      } catch {
        return err;
      }
      return new McpError(e.code, e.message, e.data);
    }
    case 'INVALID_SCHEMA':
    case 'DUPLICATE_NAME':
    case 'BAD_URI_TEMPLATE':
    case 'INVALID_DEFINITION':
      return new RegistrationError(err.message, code, err);
    default:
      return err;
  }
}

module.exports = { ErrorCode, ToolError, McpError, RegistrationError, fromNative };
