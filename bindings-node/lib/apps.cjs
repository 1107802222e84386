'use strict';
/**
 * MCP Apps (`io.modelcontextprotocol/ui`), shaped like `@modelcontextprotocol/ext-apps/server`:
 * `registerAppTool(server, name, config, handler)` links a tool to a `ui://` resource through
 * `_meta.ui.resourceUri`; `registerAppResource(server, name, uri, config, read)` serves the HTML
 * with MIME type `RESOURCE_MIME_TYPE`. The core checks the spec's MUSTs (the `ui://` scheme,
 * the MIME type, `visibility`) at registration and advertises the extension.
 */

const RESOURCE_MIME_TYPE = 'text/html;profile=mcp-app';
const RESOURCE_URI_META_KEY = 'ui/resourceUri';

/**
 * @param {import('./server.cjs').Server} server
 * @param {string} name
 * @param {{ _meta: { ui: { resourceUri: string, visibility?: ('model'|'app')[] } } } & Record<string, unknown>} config
 * @param {Function} handler
 */
function registerAppTool(server, name, config, handler) {
  const ui = config?._meta?.ui;
  if (!ui || typeof ui.resourceUri !== 'string') {
    throw new TypeError(`registerAppTool(${name}): config._meta.ui.resourceUri (a ui:// URI) is required`);
  }
  // The legacy flat key some hosts still read, next to the nested one.
  const _meta = { ...config._meta, [RESOURCE_URI_META_KEY]: ui.resourceUri };
  return server.registerTool(name, { ...config, _meta }, handler);
}

/**
 * @param {import('./server.cjs').Server} server
 * @param {string} name
 * @param {string} uri a `ui://` URI
 * @param {{ mimeType?: string, description?: string, _meta?: { ui?: object } } & Record<string, unknown>} config
 * @param {Function} read returns `{ contents: [{ uri, mimeType, text }] }` (or the HTML string)
 */
function registerAppResource(server, name, uri, config, read) {
  const meta = { ...(config ?? {}), mimeType: config?.mimeType ?? RESOURCE_MIME_TYPE };
  const ui = meta._meta?.ui;
  const withUi = async (...args) => {
    let r = await read(...args);
    if (typeof r === 'string') r = { contents: [{ uri, mimeType: meta.mimeType, text: r }] };
    // Hosts read the CSP from the contents item: copy the listing's `_meta.ui` there.
    if (ui && r && Array.isArray(r.contents)) {
      r = { ...r, contents: r.contents.map((c) => ({ ...c, _meta: { ui, ...(c._meta ?? {}) } })) };
    }
    return r;
  };
  return server.registerResource(name, uri, meta, withUi);
}

module.exports = { registerAppTool, registerAppResource, RESOURCE_MIME_TYPE, RESOURCE_URI_META_KEY };
