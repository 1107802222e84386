'use strict';
/**
 * Tool schemas: plain JSON Schema objects pass through verbatim (the core
 * compiles them, 2020-12); zod v4 schemas are converted with zod's own
 * `toJSONSchema` and kept so that arguments the core already validated are
 * also parsed by zod (defaults, transforms, refinements). A *plain* zod shape
 * (primitive fields, see `resolveToolInput`) is written here, as zod writes it,
 * once per distinct shape, and not kept.
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
 * A tool's input schema: `resolveSchema`'s `{ json, zod }`, and for a *plain* zod shape also
 * `text`, `plain` and `defaults` (lib/plain-shape.cjs, loaded by the first zod schema: a server of
 * JSON Schema tools never builds it).
 * @returns {{ json: unknown, text?: string, zod: unknown, plain: Array<[string, number]>|undefined, defaults: ReadonlyArray<function>|undefined }}
 */
function resolveToolInput(schema, what, target) {
  if (isZodSchema(schema) || isZodRawShape(schema)) return require('./plain-shape.cjs').resolveToolInput(schema, what, target);
  return { ...resolveSchema(schema, 'input', what, target), plain: undefined, defaults: undefined };
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
