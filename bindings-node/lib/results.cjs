'use strict';
/**
 * Result normalisation: what a JS handler returns -> a spec-shaped result the
 * core can parse (`ToolResult::from_value` and friends). Policy lives here, in
 * the host-language layer; the core only sees spec shapes.
 */
const { ToolError, McpError } = require('./errors.cjs');

const CONTENT_TYPES = new Set(['text', 'image', 'audio', 'resource', 'resource_link']);

function toBase64(data) {
  if (typeof data === 'string') return data;
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString('base64');
  if (ArrayBuffer.isView(data)) return Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('base64');
  throw new TypeError('binary data must be a base64 string, a Buffer, a TypedArray or an ArrayBuffer');
}

/** A text content block. */
function text(value, extra) {
  return { type: 'text', text: String(value), ...extra };
}
/** An image content block; `data` is base64 or bytes. */
function image(data, mimeType, extra) {
  return { type: 'image', data: toBase64(data), mimeType, ...extra };
}
/** An audio content block; `data` is base64 or bytes. */
function audio(data, mimeType, extra) {
  return { type: 'audio', data: toBase64(data), mimeType, ...extra };
}
/**
 * An embedded resource block. Pass `text` for text contents, or `blob`
 * (base64 or bytes) for binary contents.
 */
function resource({ uri, mimeType, text: t, blob, _meta }, extra) {
  const r = { uri };
  if (mimeType !== undefined) r.mimeType = mimeType;
  if (t !== undefined) r.text = String(t);
  else if (blob !== undefined) r.blob = toBase64(blob);
  else throw new TypeError('resource() needs text or blob');
  if (_meta !== undefined) r._meta = _meta;
  return { type: 'resource', resource: r, ...extra };
}
/** A resource link block (`{uri, name, ...}`). */
function resourceLink(link) {
  if (!link || typeof link.uri !== 'string' || typeof link.name !== 'string') {
    throw new TypeError('resourceLink() needs uri and name');
  }
  return { type: 'resource_link', ...link };
}

function isContentBlock(v) {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && CONTENT_TYPES.has(v.type);
}

function toBlock(item) {
  if (typeof item === 'string') return text(item);
  if (isContentBlock(item)) return item;
  throw new TypeError(`a content array item must be a string or a content block, got ${describe(item)}`);
}

function describe(v) {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'object' ? `an object with keys [${Object.keys(v).slice(0, 5).join(', ')}]` : typeof v;
}

function jsonText(value) {
  return JSON.stringify(value) ?? "null";
}

/** A full CallToolResult was returned: it has `content` (array) or is an explicit error/structured result. */
function isFullToolResult(v) {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && !isContentBlock(v) &&
    (Array.isArray(v.content) || (Object.prototype.hasOwnProperty.call(v, 'structuredContent') && !('type' in v)));
}

/**
 * Normalise a tool handler's return value into a CallToolResult.
 *   undefined/null       -> no content
 *   string               -> one text block
 *   content block        -> that block
 *   array                -> content blocks when every item is a string or a block; any other
 *                          array (numbers, objects, empty): its JSON as one text block - the
 *                          same rule as the Python binding (tests/node/tools.test.mjs, test_results.py)
 *   { content: [...] }   -> a full result, passed through
 *   other value          -> with an outputSchema: structuredContent plus its JSON as text;
 *                          without: its JSON as text
 */
function normalizeToolResult(value, { hasOutputSchema = false } = {}) {
  if (value === undefined || value === null) {
    return hasOutputSchema && value === null ? structured(null) : { content: [] };
  }
  if (typeof value === 'string') return { content: [text(value)] };
  if (isContentBlock(value)) return { content: [value] };
  if (Array.isArray(value) && !hasOutputSchema) {
    // Which lists become content blocks is the core's rule (ToolResult::from_list): hand it the JSON.
    return new CoreList(JSON.parse(jsonText(value)));
  }
  if (isFullToolResult(value)) {
    const out = { ...value };
    out.content = Array.isArray(value.content) ? value.content.map(toBlock) : [];
    if (hasOutputSchema && out.structuredContent !== undefined && out.content.length === 0) {
      out.content = [text(jsonText(out.structuredContent))];
    }
    return out;
  }
  if (typeof value === 'bigint') return { content: [text(value.toString())] };
  if (hasOutputSchema) return structured(value);
  return { content: [text(typeof value === 'object' ? jsonText(value) : String(value))] };
}

/** A tool's list (no outputSchema), as JSON, for the core to turn into content. */
class CoreList {
  constructor(items) { this.items = items; }
}

function structured(value) {
  // The serialized JSON also goes into a text block for clients that ignore structuredContent (spec SHOULD).
  return { content: [text(jsonText(value))], structuredContent: value };
}

/** ToolError -> isError result. */
function toolErrorResult(err) {
  const content = Array.isArray(err.content) && err.content.length ? err.content.map(toBlock) : [text(err.message)];
  const out = { content, isError: true };
  if (err.structuredContent !== undefined) out.structuredContent = err.structuredContent;
  return out;
}

/** Normalise a prompt handler's return into a GetPromptResult. */
function normalizePromptResult(value) {
  if (typeof value === 'string') return { messages: [{ role: 'user', content: text(value) }] };
  if (Array.isArray(value)) return { messages: value.map(toMessage) };
  if (value && typeof value === 'object' && Array.isArray(value.messages)) {
    return { ...value, messages: value.messages.map(toMessage) };
  }
  throw new TypeError(`a prompt handler must return a string, an array of messages or { messages }, got ${describe(value)}`);
}

function toMessage(m) {
  if (typeof m === 'string') return { role: 'user', content: text(m) };
  if (m && typeof m === 'object' && (m.role === 'user' || m.role === 'assistant')) {
    return { ...m, content: typeof m.content === 'string' ? text(m.content) : m.content };
  }
  throw new TypeError(`a prompt message must be a string or { role: "user"|"assistant", content }, got ${describe(m)}`);
}

/**
 * Normalise a resource read into a ReadResourceResult's `contents` array.
 * Accepts: string (text of the requested uri), Buffer/Uint8Array (blob),
 * one contents object, an array of them, or `{ contents: [...] }`.
 */
function normalizeResourceContents(value, uri, mimeType) {
  const one = (c) => {
    if (typeof c === 'string') return withMime({ uri, text: c }, mimeType);
    if (c instanceof ArrayBuffer || ArrayBuffer.isView(c)) return withMime({ uri, blob: toBase64(c) }, mimeType);
    if (c && typeof c === 'object' && ('text' in c || 'blob' in c)) {
      const out = { uri: c.uri ?? uri, ...c };
      if (out.blob !== undefined) out.blob = toBase64(out.blob);
      return withMime(out, mimeType);
    }
    throw new TypeError(`a resource read must return text, bytes or { uri, text | blob }, got ${describe(c)}`);
  };
  if (value && typeof value === 'object' && Array.isArray(value.contents)) return value.contents.map(one);
  if (Array.isArray(value)) return value.map(one);
  return [one(value)];
}

function withMime(c, mimeType) {
  if (c.mimeType === undefined && mimeType !== undefined) c.mimeType = mimeType;
  return c;
}

/**
 * Normalise a completion handler's return into `{ values, total?, hasMore? }`: host conversion
 * only. The cap on values sent (100, with `total` and `hasMore`) is the core's rule.
 */
function normalizeCompletion(value) {
  let out;
  if (Array.isArray(value)) out = { values: value.map(String) };
  else if (value && typeof value === 'object' && Array.isArray(value.values)) out = { ...value, values: value.values.map(String) };
  else if (value === undefined || value === null) out = { values: [] };
  else throw new TypeError(`a completion handler must return an array of strings or { values }, got ${describe(value)}`);
  return out;
}

module.exports = {
  text, image, audio, resource, resourceLink, toBase64,
  normalizeToolResult, CoreList, toolErrorResult, normalizePromptResult, normalizeResourceContents, normalizeCompletion,
  ToolError, McpError,
};
