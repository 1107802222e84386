'use strict';
/**
 * Plain zod shapes (lib/schema.cjs loads this module for the first zod schema): a tool whose
 * input is a zod object of primitive fields gets the JSON Schema zod would write, written here
 * once per distinct shape, and no zod object kept per tool; its arguments are then filled by
 * `plainArgs` (lib/schema.cjs) without zod.
 */
const { isZodSchema, resolveSchema } = require('./schema.cjs');

/**
 * A tool's input schema. Like `resolveSchema`, and for a *plain* zod object - fields that are
 * `z.number()` / `z.int()` / `z.number().int()` / `z.string()` / `z.boolean()`, bare, `.optional()`
 * or `.default(primitive)`, with at most a description - also `plain`: `[name, i]` per field (`i`:
 * the field's index in `defaults`, -1 without a default; shared by the tools of that shape) and
 * `defaults`: the tool's own default getters. Parsing such a shape after the core has validated
 * the arguments against its JSON Schema only drops unknown keys and fills defaults, which
 * `plainArgs` does without zod; so the zod object is not kept (a zod schema is several KB of
 * objects per tool: most of what a server with thousands of generated tools held) and equal
 * shapes share one JSON Schema, made once per shape.
 * @returns {{ json: unknown, text?: string, zod: unknown, plain: Array<[string, number]>|undefined, defaults: ReadonlyArray<function>|undefined }}
 */
function resolveToolInput(schema, what, target) {
  const shape = isZodSchema(schema) ? (plainObject(schema) ? schema._zod.def.shape : undefined) : schema;
  const seen = shape !== null && typeof shape === 'object' && !Array.isArray(shape) ? plainShape(shape) : null;
  if (!seen) return { ...resolveSchema(schema, 'input', what, target), plain: undefined, defaults: undefined };
  const key = `${target ?? ''}\n${seen.key}`;
  let hit = PLAIN_JSON.get(key);
  if (hit === undefined) {
    const fields = [];
    plainShape(shape, fields);
    // Written here as zod writes it (no zod needed: a server whose oxmcp resolves a zod of its
    // own would load a second one for this, ~100 ms at start); zod itself for other targets.
    const json = plainJsonSchema(fields, target) ?? resolveSchema(schema, 'input', what, target).json;
    let d = 0;
    const plain = Object.freeze(fields.map((f) => Object.freeze([f[0], f[3] === 'default' ? d++ : -1])));
    hit = { json, text: JSON.stringify(json), plain };
    if (PLAIN_JSON.size < 4096) PLAIN_JSON.set(key, hit);
  }
  return { json: hit.json, text: hit.text, zod: undefined, plain: hit.plain, defaults: seen.defaults };
}

const DIALECTS = { 'draft-2020-12': 'https://json-schema.org/draft/2020-12/schema', 'draft-7': 'http://json-schema.org/draft-07/schema#' };

/**
 * The JSON Schema zod's `toJSONSchema(z.object(shape), { io: 'input', target })` gives for a
 * plain shape (zod 4.x, its member order included: tests/node/registry_scale.test.mjs compares
 * the text with zod's), or undefined for a target other than draft 2020-12 and draft 7.
 */
function plainJsonSchema(fields, target = 'draft-2020-12') {
  const dialect = DIALECTS[target];
  if (dialect === undefined) return undefined;
  const properties = {};
  const required = [];
  for (const [name, type, int, wrapper, dflt, description] of fields) {
    const base = int ? { type: 'integer', minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER } : { type };
    /** @type {Record<string, unknown>} */
    let p;
    if (wrapper === '') {
      p = description === undefined ? base : { ...base, description };
      required.push(name);
    } else {
      p = wrapper === 'default' ? { default: dflt } : {};
      if (description !== undefined) p.description = description;
      Object.assign(p, base);
    }
    properties[name] = p;
  }
  const out = { $schema: dialect, type: 'object', properties };
  if (required.length) out.required = required;
  return out;
}

/** @type {ReadonlyArray<Function>} */
const NO_DEFAULTS = Object.freeze([]);

/**
 * JSON Schemas of plain shapes by their structural key, with their JSON text (what crosses to
 * the core): shared by every tool of that shape.
 */
const PLAIN_JSON = new Map();

/** Metadata zod keeps for a schema (description, title, ...), from the schema's own zod. */
function metaOf(s) {
  return typeof s.meta === 'function' ? s.meta() : null; // zod mini has no .meta(): not plain
}

function plainObject(s) {
  const d = s._zod.def;
  return d.type === 'object' && d.catchall === undefined && !(d.checks?.length) && metaOf(s) === undefined;
}

/**
 * Whether a zod raw shape is plain (see `resolveToolInput`): `{ key, defaults }` - a structural
 * key, equal for shapes that give the same JSON Schema, and the default getters in field order -
 * or null. One pass over the fields, a string key and no array per field: this runs for every
 * tool of a server that registers thousands. With `fields`, also pushes each field's
 * `[name, type, int, wrapper, default, description]` (on the first tool of a shape).
 */
function plainShape(shape, fields) {
  let key = '';
  let defaults;
  for (const name in shape) {
    if (!Object.hasOwn(shape, name)) continue;
    const v = shape[name];
    if (!isZodSchema(v) || name === '__proto__') return null;
    const meta = metaOf(v);
    if (meta === null || (meta !== undefined && (Object.keys(meta).join() !== 'description' || typeof meta.description !== 'string'))) return null;
    const description = meta?.description;
    let d = v._zod.def;
    let wrapper = '';
    let dflt;
    if (d.type === 'default' || d.type === 'optional') {
      wrapper = d.type;
      if (!isZodSchema(d.innerType) || metaOf(d.innerType) !== undefined) return null;
      if (d.type === 'default') {
        dflt = d.defaultValue;
        if (!(typeof dflt === 'string' || typeof dflt === 'boolean' || Number.isFinite(dflt))) return null;
        (defaults ??= []).push(defaultGetter(d));
      }
      d = d.innerType._zod.def;
    }
    const type = d.type;
    if (!(type === 'number' || type === 'string' || type === 'boolean') || d.coerce) return null;
    const checks = d.checks;
    let int = false;
    if (type === 'number') {
      if (d.check !== undefined) {
        if (!isSafeint(d) || checks?.length) return null; // z.int(): the schema is its own check
        int = true;
      } else if (checks?.length === 1 && isSafeint(checks[0]._zod?.def)) {
        int = true;
      } else if (checks?.length) {
        return null;
      }
    } else if (d.check !== undefined || checks?.length) {
      return null;
    }
    // Strings length-prefixed, so that no two shapes share a key.
    key += `${name.length}:${name}${type[0]}${int ? 'i' : ''}${wrapper[0] ?? '-'}`;
    if (wrapper === 'default') key += typeof dflt === 'string' ? `s${dflt.length}:${dflt}` : `${(typeof dflt)[0]}${dflt}`;
    key += description === undefined ? ';' : `|${description.length}:${description};`;
    fields?.push([name, type, int, wrapper, dflt, description]);
  }
  if (key === '') return null;
  // An array of its exact length (push reserves room for 16).
  return { key, defaults: defaults === undefined ? NO_DEFAULTS : defaults.slice() };
}

function isSafeint(c) {
  return c !== undefined && c.check === 'number_format' && c.format === 'safeint';
}

/**
 * What gives a `.default(..)` field its value on each call: zod's own `defaultValue` getter, which
 * runs a function default per call. The getter alone, not the def: the def holds the inner zod
 * schema (a ZodString with its bound methods, ~1.5 KB), which is what a plain tool kept alive; the
 * getter's closure holds only the default (zod's `_default(innerType, defaultValue)` makes it).
 */
function defaultGetter(def) {
  const desc = Object.getOwnPropertyDescriptor(def, 'defaultValue');
  if (desc && typeof desc.get === 'function') return desc.get;
  const value = def.defaultValue;
  return () => value; // a def built by hand with a data property: primitives only reach here
}

module.exports = { resolveToolInput };
