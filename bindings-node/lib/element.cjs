'use strict';
/**
 * Explicit elements: `server.add(definition, handler)`. The pairing is the core's rule
 * (`oxmcp::element::check`, the same texts as Python): the definition's kind (`inputSchema`: a
 * tool, `uriTemplate`: a resource template, `uri`: a resource, otherwise a prompt), that a
 * `define*` definition given as the handler is of that kind, and that a tool's input schema is
 * an object schema. Here only the conversion to `registerTool` & co.
 */
const { loadNative } = require('./native.cjs');
const { fromNative } = require('./errors.cjs');
const { ResourceTemplate } = require('./resource-template.cjs');

function pick(obj, keys) {
  const out = {};
  for (const k of keys) if (obj[k] !== undefined) out[k] = obj[k];
  return out;
}

function addElement(server, definition, handler) {
  const { Definition } = require('./discovery.cjs');
  let handlerKind;
  let fn = handler;
  if (handler instanceof Definition) {
    handlerKind = handler.kind;
    fn = handler.handler;
  }
  if (typeof fn !== 'function') throw new TypeError('add(definition, handler): the handler is a function or a define* definition');
  let kind;
  try {
    kind = loadNative().checkElement(JSON.stringify(definition ?? null), handlerKind);
  } catch (e) {
    throw fromNative(e);
  }
  const d = definition;
  const common = pick(d, ['title', 'description', 'icons', '_meta']);
  if (kind === 'tool') {
    return server.registerTool(d.name, { ...common, ...pick(d, ['annotations', 'outputSchema']), inputSchema: d.inputSchema }, fn);
  }
  if (kind === 'prompt') return server.registerPrompt(d.name, { ...common, ...pick(d, ['arguments']) }, fn);
  const meta = { ...common, ...pick(d, ['mimeType', 'size', 'annotations']) };
  if (kind === 'resource') return server.registerResource(d.name, d.uri, meta, fn);
  return server.registerResource(d.name, new ResourceTemplate(d.uriTemplate), meta, fn);
}

module.exports = { addElement };
