'use strict';
/**
 * Tool schemas: plain JSON Schema objects pass through verbatim (the core
 * compiles them, 2020-12); zod v4 schemas are converted with zod's own
 * `toJSONSchema` and kept so that arguments the core already validated are
 * also parsed by zod (defaults, transforms, refinements).
 */
const { RegistrationError } = require('./errors.cjs');

let zodModule; // loaded lazily from the user's project: zod is an optional peer dependency

function loadZod() {
  if (zodModule === undefined) {
    try {
      zodModule = require('zod');
    } catch (e) {
      zodModule = null;
    }
  }
  return zodModule;
}

/** A zod v4 schema (classic or mini): it carries `_zod`. */
function isZodSchema(v) {
  return v !== null && typeof v === 'object' && typeof v._zod === 'object' && v._zod !== null;
}

/** A zod "raw shape" `{ a: z.number(), b: z.string() }` as the TS SDK v1 accepts. */
function isZodRawShape(v) {
  if (v === null || typeof v !== 'object' || Array.isArray(v) || isZodSchema(v)) return false;
  const values = Object.values(v);
  return values.length > 0 && values.every(isZodSchema);
}

function toJsonSchema(zodSchema, io, what, target = 'draft-2020-12') {
  const z = loadZod();
  if (!z || typeof z.toJSONSchema !== 'function') {
    throw new RegistrationError(`${what} is a zod schema but zod v4 could not be loaded (npm install zod@4)`, 'INVALID_SCHEMA');
  }
  let js;
  try {
    js = z.toJSONSchema(zodSchema, { target, io, unrepresentable: 'any' });
  } catch (e) {
    throw new RegistrationError(`${what}: zod could not convert the schema to JSON Schema: ${e.message}`, 'INVALID_SCHEMA', e);
  }
  return js;
}

/**
 * Resolve a schema option. Returns `{ json, zod }` where `json` is what the
 * core registers and `zod` (maybe undefined) parses validated values.
 * @param {unknown} schema JSON Schema object, zod schema or zod raw shape
 * @param {'input'|'output'} io
 * @param {'draft-2020-12'|'draft-7'} [target] what zod emits (the TS SDK v1 emits draft-07)
 */
function resolveSchema(schema, io, what, target) {
  if (schema === undefined || schema === null) return { json: undefined, zod: undefined };
  if (isZodRawShape(schema)) {
    const z = loadZod();
    if (!z) throw new RegistrationError(`${what} is a zod shape but zod v4 could not be loaded`, 'INVALID_SCHEMA');
    schema = z.object(schema);
  }
  if (isZodSchema(schema)) return { json: toJsonSchema(schema, io, what, target), zod: schema };
  if (typeof schema === 'object' && !Array.isArray(schema)) return { json: schema, zod: undefined };
  if (typeof schema === 'boolean') return { json: schema, zod: undefined };
  throw new RegistrationError(`${what} must be a JSON Schema object or a zod v4 schema`, 'INVALID_SCHEMA');
}

/**
 * A tool's input schema. Like `resolveSchema`, and for a *plain* zod object — fields that are
 * `z.number()` / `z.int()` / `z.number().int()` / `z.string()` / `z.boolean()`, bare, `.optional()`
 * or `.default(primitive)`, with at most a description — also `plain`: `[name, i]` per field (`i`:
 * the field's index in `defaults`, -1 without a default; shared by the tools of that shape) and
 * `defaults`: the tool's own default getters. Parsing such a shape after the core has validated the arguments against its JSON Schema
 * only drops unknown keys and fills defaults, which `plainArgs` does without zod; so the zod
 * object is not kept (a zod schema is several KB of objects per tool: most of what a server with
 * thousands of generated tools held) and equal shapes share one JSON Schema, converted by zod once.
 * @returns {{ json: unknown, text?: string, zod: unknown, plain: Array<[string, number]>|undefined, defaults: Array<function>|undefined }}
 */
function resolveToolInput(schema, what, target) {
  const shape = isZodRawShape(schema) ? schema : isZodSchema(schema) && plainObject(schema) ? schema._zod.def.shape : undefined;
  const fields = shape && plainFields(shape);
  if (!fields) return { ...resolveSchema(schema, 'input', what, target), plain: undefined, defaults: undefined };
  const key = `${target ?? ''}${JSON.stringify(fields.map((f) => f.key))}`;
  let hit = PLAIN_JSON.get(key);
  if (hit === undefined) {
    const json = resolveSchema(schema, 'input', what, target).json;
    let d = 0;
    const plain = Object.freeze(fields.map((f) => Object.freeze([f.name, f.getDefault ? d++ : -1])));
    hit = { json, text: JSON.stringify(json), plain };
    if (PLAIN_JSON.size < 4096) PLAIN_JSON.set(key, hit);
  }
  // filter/map: an array of its exact length (push would reserve room for 16).
  const defaults = fields.filter((f) => f.getDefault).map((f) => f.getDefault);
  return { json: hit.json, text: hit.text, zod: undefined, plain: hit.plain, defaults: defaults.length ? defaults : NO_DEFAULTS };
}

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

const PLAIN_BASE = new Set(['number', 'string', 'boolean']);

function plainFields(shape) {
  const out = [];
  for (const [name, v] of Object.entries(shape)) {
    if (!isZodSchema(v)) return null;
    const meta = metaOf(v);
    if (meta === null || (meta !== undefined && (Object.keys(meta).join() !== 'description' || typeof meta.description !== 'string'))) return null;
    let d = v._zod.def;
    let wrapper = '';
    let getDefault = null;
    let dflt;
    if (d.type === 'default' || d.type === 'optional') {
      wrapper = d.type;
      if (!isZodSchema(d.innerType) || metaOf(d.innerType) !== undefined) return null;
      if (d.type === 'default') {
        getDefault = defaultGetter(d);
        dflt = d.defaultValue;
        if (!['string', 'number', 'boolean'].includes(typeof dflt)) return null;
      }
      d = d.innerType._zod.def;
    }
    if (!PLAIN_BASE.has(d.type) || d.coerce) return null;
    const checks = d.checks ?? [];
    let int = false;
    if (d.type === 'number') {
      const fmt = (c) => c.check === 'number_format' && c.format === 'safeint';
      if (d.check !== undefined) {
        if (!fmt(d) || checks.length) return null; // z.int(): the schema is its own check
        int = true;
      } else if (checks.length === 1 && fmt(checks[0]._zod?.def ?? {})) {
        int = true;
      } else if (checks.length) {
        return null;
      }
    } else if (d.check !== undefined || checks.length) {
      return null;
    }
    out.push({ name, getDefault, key: [name, d.type, int, wrapper, dflt ?? null, meta?.description ?? null] });
  }
  return out;
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

/** The arguments zod would give for a plain shape, from arguments the core validated. */
function plainArgs(plain, defaults, args) {
  const out = {};
  for (const [name, i] of plain) {
    const v = args != null && Object.hasOwn(args, name) ? args[name] : undefined;
    if (v !== undefined) out[name] = v;
    else if (i >= 0) out[name] = defaults[i](); // zod's getter: a function default runs per call
  }
  return out;
}

/** The input schema used when a tool declares none: an object with no required keys. */
const EMPTY_INPUT_SCHEMA = Object.freeze({ type: 'object', properties: {} });

/**
 * zod's refusal as the core's structured envelope: `{path, message}` per issue; the core
 * renders the text and picks `isError` or -32602, the same in every language.
 */
function invalidArguments(err) {
  const issues = Array.isArray(err?.issues) ? err.issues : [];
  const violations = issues.length
    ? issues.map((i) => ({ path: (i.path ?? []).map((p) => (typeof p === 'symbol' ? String(p.description) : p)), message: String(i.message) }))
    : [{ path: [], message: String(err?.message ?? err) }];
  return { control: 'INVALID_ARGUMENTS', error: { code: -32602, message: 'Invalid arguments', data: violations } };
}

module.exports = {
  isZodSchema, isZodRawShape, resolveSchema, resolveToolInput, plainArgs, EMPTY_INPUT_SCHEMA, invalidArguments, loadZod,
};
