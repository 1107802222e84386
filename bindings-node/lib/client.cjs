'use strict';
/**
 * An in-memory MCP client for tests: modern (2026-07-28) requests with the
 * required `_meta` and mirrored headers, sent through `server.fetch`, i.e.
 * the same core HTTP handler and dispatcher as a real connection.
 */
const { McpError } = require('./errors.cjs');

const MODERN = '2026-07-28';

function headerSafe(v) {
  return /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(v) ? v : `=?base64?${Buffer.from(v, 'utf8').toString('base64')}?=`;
}

/** Parse an SSE body into its `data:` payloads (JSON). */
function parseSse(text) {
  const out = [];
  for (const event of text.split(/\r?\n\r?\n/)) {
    const data = event.split(/\r?\n/).filter((l) => l.startsWith('data:')).map((l) => l.slice(5).replace(/^ /, '')).join('\n');
    if (data) out.push(JSON.parse(data));
  }
  return out;
}

class InMemoryClient {
  #server;
  #nextId = 1;
  #base;

  /**
   * @param {{ fetch(r: Request): Promise<Response> }} server
   * @param {{ clientInfo?: object, capabilities?: object, url?: string, protocolVersion?: string, token?: string }} [options]
   */
  constructor(server, options = {}) {
    this.#server = server;
    this.clientInfo = options.clientInfo ?? { name: 'oxmcp-inmemory-client', version: '0.1.0' };
    this.capabilities = options.capabilities ?? {};
    this.protocolVersion = options.protocolVersion ?? MODERN;
    this.#base = options.url ?? 'http://127.0.0.1/mcp';
    this.token = options.token;
  }

  /**
   * Send one request. Resolves to `{ result, notifications, status }`; a
   * JSON-RPC error rejects with an McpError (`err.code`, `err.data`, `err.status`).
   */
  async send(method, params = {}, options = {}) {
    const meta = {
      'io.modelcontextprotocol/protocolVersion': this.protocolVersion,
      'io.modelcontextprotocol/clientInfo': this.clientInfo,
      'io.modelcontextprotocol/clientCapabilities': options.capabilities ?? this.capabilities,
      ...(options.logLevel ? { 'io.modelcontextprotocol/logLevel': options.logLevel } : {}),
      ...(options.progressToken !== undefined ? { progressToken: options.progressToken } : {}),
      ...(options.meta ?? {}),
    };
    const id = this.#nextId++;
    const body = { jsonrpc: '2.0', id, method, params: { ...params, _meta: { ...(params._meta ?? {}), ...meta } } };
    const headers = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': this.protocolVersion,
      'mcp-method': method,
      host: new URL(this.#base).host,
    };
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    const name = params.name ?? params.uri;
    if (typeof name === 'string' && ['tools/call', 'prompts/get', 'resources/read'].includes(method)) headers['mcp-name'] = headerSafe(name);
    const res = await this.#server.fetch(new Request(this.#base, {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
      signal: options.signal,
    }));
    const ctype = res.headers.get('content-type') ?? '';
    const text = await res.text();
    let messages;
    if (ctype.startsWith('text/event-stream')) messages = parseSse(text);
    else messages = text ? [JSON.parse(text)] : [];
    const notifications = messages.filter((m) => m.id === undefined && m.method);
    const reply = messages.find((m) => m.id === id);
    for (const n of notifications) options.onNotification?.(n);
    if (!reply) throw new Error(`no response to ${method} (HTTP ${res.status}): ${text.slice(0, 200)}`);
    if (reply.error) {
      throw Object.assign(new McpError(reply.error.code, reply.error.message, reply.error.data), {
        status: res.status,
        notifications,
      });
    }
    return { result: reply.result, notifications, status: res.status };
  }

  async request(method, params, options) {
    return (await this.send(method, params, options)).result;
  }

  discover(options) { return this.request('server/discover', {}, options); }
  listTools(params = {}, options) { return this.request('tools/list', params, options); }
  /** `callTool(name, args)`; pass `{ inputResponses, requestState }` in options to answer MRTR rounds. */
  callTool(name, args, options = {}) {
    const params = { name };
    if (args !== undefined) params.arguments = args;
    if (options.inputResponses !== undefined) params.inputResponses = options.inputResponses;
    if (options.requestState !== undefined) params.requestState = options.requestState;
    return this.request('tools/call', params, options);
  }
  listResources(params = {}, options) { return this.request('resources/list', params, options); }
  listResourceTemplates(params = {}, options) { return this.request('resources/templates/list', params, options); }
  readResource(uri, options) { return this.request('resources/read', { uri }, options); }
  listPrompts(params = {}, options) { return this.request('prompts/list', params, options); }
  getPrompt(name, args, options) { return this.request('prompts/get', args === undefined ? { name } : { name, arguments: args }, options); }
  complete(ref, argument, context, options) {
    return this.request('completion/complete', context ? { ref, argument, context } : { ref, argument }, options);
  }
}

module.exports = { InMemoryClient, parseSse };
