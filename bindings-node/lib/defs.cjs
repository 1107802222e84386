'use strict';
/**
 * The native layer's definition structs (`NativeToolDef`, `NativeResourceDef`,
 * `NativeResourceTemplateDef`, `NativePromptDef` in bindings-node/src/defs.rs) from spec-shaped
 * objects. A tool's schemas cross as JSON text: one napi string instead of napi walking the
 * object key by key. A member the struct types as a string (or a number) but given as
 * something else, and a member the struct does not name, go in `extraJson`, verbatim, so what a
 * definition lists is what it was given.
 */
const { RegistrationError } = require('./errors.cjs');

/** Members the structs type as a string or a number; the other named ones are any JSON. */
const TYPED = {
  tool: { title: 'string', description: 'string' },
  resource: { title: 'string', description: 'string', mimeType: 'string', size: 'number' },
  template: { title: 'string', description: 'string', mimeType: 'string' },
  prompt: { title: 'string', description: 'string' },
};
const JSONISH = {
  tool: ['annotations', 'icons', '_meta', 'execution'],
  resource: ['icons', 'annotations', '_meta'],
  template: ['icons', 'annotations', '_meta'],
  prompt: ['arguments', 'icons', '_meta'],
};
const REQUIRED = { tool: ['name'], resource: ['uri', 'name'], template: ['uriTemplate', 'name'], prompt: ['name'] };
const LABEL = { tool: 'tool', resource: 'resource', template: 'resource template', prompt: 'prompt' };
const KNOWN = Object.fromEntries(Object.keys(REQUIRED).map((k) => [
  k, new Set([...REQUIRED[k], ...Object.keys(TYPED[k]), ...JSONISH[k], ...(k === 'tool' ? ['inputSchema', 'outputSchema'] : [])]),
]));

/** JSON text of a schema; a schema JSON cannot hold (a BigInt, a cycle) is an INVALID_SCHEMA error. */
function schemaJson(schema, what) {
  try {
    return JSON.stringify(schema);
  } catch (e) {
    throw new RegistrationError(`${what} cannot be written as JSON: ${e.message}`, 'INVALID_SCHEMA', e);
  }
}

/**
 * The native struct of a spec-shaped definition.
 * @param {'tool'|'resource'|'template'|'prompt'} kind
 * @param {object} def the spec's `Tool` / `Resource` / `ResourceTemplate` / `Prompt` object
 * @param {{ inputSchemaJson?: string, outputSchemaJson?: string }} [texts] a tool's schemas already as JSON text
 */
function nativeDef(kind, def, texts) {
  if (def === null || typeof def !== 'object') throw new RegistrationError(`${LABEL[kind]} definition must be an object`, 'INVALID_DEFINITION');
  const out = {};
  for (const k of REQUIRED[kind]) {
    if (typeof def[k] !== 'string') throw new RegistrationError(`${LABEL[kind]} definition needs a string ${k}`, 'INVALID_DEFINITION');
    out[k] = def[k];
  }
  const typed = TYPED[kind];
  let extra;
  for (const k of Object.keys(def)) {
    const v = def[k];
    if (v === undefined || REQUIRED[kind].includes(k)) continue;
    if (typed[k] !== undefined) {
      if (typeof v === typed[k]) out[k] = v;
      else (extra ??= {})[k] = v;
    } else if (KNOWN[kind].has(k)) {
      if (k === 'inputSchema' || k === 'outputSchema') continue;
      out[k] = v;
    } else {
      (extra ??= {})[k] = v;
    }
  }
  if (kind === 'tool') {
    const what = `tool ${def.name}`;
    const input = texts?.inputSchemaJson ?? (def.inputSchema === undefined ? undefined : schemaJson(def.inputSchema, `${what}: inputSchema`));
    const output = texts?.outputSchemaJson ?? (def.outputSchema === undefined ? undefined : schemaJson(def.outputSchema, `${what}: outputSchema`));
    if (input !== undefined) out.inputSchemaJson = input;
    if (output !== undefined) out.outputSchemaJson = output;
  }
  if (extra) out.extraJson = JSON.stringify(extra);
  return out;
}

module.exports = { nativeDef, schemaJson };
