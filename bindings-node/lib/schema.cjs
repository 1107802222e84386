'use strict';
/**
 * Tool schemas: plain JSON Schema objects pass through verbatim (the core
 * compiles them, 2020-12); zod v4 schemas are converted with zod's own
 * `toJSONSchema` and kept so that arguments the core already validated are
 * also parsed by zod (defaults, transforms, refinements). A *plain* zod shape
 * (primitive fields, see `resolveToolInput`) is written here, as zod writes it,
 * once per distinct shape, and not kept. zod 3 schemas (3.25+, what servers
 * written for the TS SDK 1.x may use) are converted as the SDK 1.x converts them
 * (`zod-to-json-schema`, draft-07) and kept the same way.
 */
const { RegistrationError } = require('./errors.cjs');
const { tryRequirePeer } = require('./peers.cjs');

let zodModule; // loaded lazily from the user's project: zod is an optional peer dependency (peers.cjs)
let zod4Module;
let zod3Module;
let zodToJsonSchemaModule;

function tryRequire(id) {
  try {
    return require(id);
  } catch {
    return null;
  }
}

/** The project's `zod` (3 or 4), or null. */
function loadZod() {
  if (zodModule === undefined) zodModule = tryRequirePeer('zod');
  return zodModule;
}

/** zod 4's API: the project's `zod` when it is zod 4, else `zod/v4` (zod 3.25+ ships it), or null. */
function loadZod4() {
  if (zod4Module === undefined) {
    const z = loadZod();
    zod4Module = z && typeof z.toJSONSchema === 'function' ? z : tryRequirePeer('zod/v4');
  }
  return zod4Module;
}

/** zod 3's API: `zod/v3` (zod 3.25+ and zod 4 ship it), else the project's `zod` when it is zod 3, or null. */
function loadZod3() {
  if (zod3Module === undefined) {
    const z = loadZod();
    zod3Module = tryRequirePeer('zod/v3') ?? (z && typeof z.toJSONSchema !== 'function' && typeof z.object === 'function' ? z : null);
  }
  return zod3Module;
}

/** A zod v4 schema (classic or mini): it carries `_zod`. */
function isZodSchema(v) {
  return v !== null && typeof v === 'object' && typeof v._zod === 'object' && v._zod !== null;
}

/** A zod 3 schema: a `_def` with zod 3's `typeName`, and no `_zod`. */
function isZod3Schema(v) {
  return v !== null && typeof v === 'object' && !isZodSchema(v) && typeof v._def === 'object' && v._def !== null
    && typeof v._def.typeName === 'string' && typeof v.safeParse === 'function';
}

/** A zod schema of either major version. */
function isAnyZodSchema(v) {
  return isZodSchema(v) || isZod3Schema(v);
}

/** A zod v4 "raw shape" `{ a: z.number(), b: z.string() }` as the TS SDK v1 accepts. */
function isZodRawShape(v) {
  return zodShapeVersion(v) === 4;
}

/**
 * Which zod a raw shape's fields are: 4, 3, 'mixed' (the SDK refuses that too), or null when `v`
 * is no raw shape (not a plain object, a schema itself, empty, or a field that is no zod schema).
 */
function zodShapeVersion(v) {
  if (v === null || typeof v !== 'object' || Array.isArray(v) || isAnyZodSchema(v)) return null;
  let v4 = 0;
  let v3 = 0;
  for (const k in v) {
    if (!Object.hasOwn(v, k)) continue;
    if (isZodSchema(v[k])) v4++;
    else if (isZod3Schema(v[k])) v3++;
    else return null;
  }
  if (v4 && v3) return 'mixed';
  return v4 ? 4 : v3 ? 3 : null;
}

/** `z.object(shape)` in the shape's own zod major version. */
function zodObject(shape, what) {
  const version = zodShapeVersion(shape);
  if (version === 'mixed') throw new RegistrationError(`${what}: the shape mixes zod 3 and zod 4 schemas`, 'INVALID_SCHEMA');
  const z = version === 3 ? loadZod3() : loadZod4();
  if (!z) throw new RegistrationError(`${what} is a zod ${version} shape but zod ${version} could not be loaded (npm install zod)`, 'INVALID_SCHEMA');
  return z.object(shape);
}

function toJsonSchema(zodSchema, io, what, target = 'draft-2020-12') {
  if (isZod3Schema(zodSchema)) return zod3ToJsonSchema(zodSchema, io, what);
  const z = loadZod4();
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
 * A zod 3 schema as the TS SDK 1.x lists it: `zod-to-json-schema` (a dependency of oxmcp, loaded
 * by the first zod 3 schema), draft-07, strict unions, the input or output side of pipes.
 */
function zod3ToJsonSchema(schema, io, what) {
  if (zodToJsonSchemaModule === undefined) zodToJsonSchemaModule = tryRequire('zod-to-json-schema');
  const convert = zodToJsonSchemaModule?.zodToJsonSchema;
  if (typeof convert !== 'function') {
    throw new RegistrationError(`${what} is a zod 3 schema; converting it needs zod-to-json-schema (npm install zod-to-json-schema)`, 'INVALID_SCHEMA');
  }
  try {
    return convert(schema, { strictUnions: true, pipeStrategy: io });
  } catch (e) {
    throw new RegistrationError(`${what}: zod-to-json-schema could not convert the schema: ${e.message}`, 'INVALID_SCHEMA', e);
  }
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
  if (zodShapeVersion(schema) !== null) schema = zodObject(schema, what);
  if (isAnyZodSchema(schema)) return { json: toJsonSchema(schema, io, what, target), zod: schema };
  if (typeof schema === 'object' && !Array.isArray(schema)) return { json: schema, zod: undefined };
  if (typeof schema === 'boolean') return { json: schema, zod: undefined };
  throw new RegistrationError(`${what} must be a JSON Schema object or a zod schema`, 'INVALID_SCHEMA');
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
  isZodSchema, isZod3Schema, isAnyZodSchema, isZodRawShape, zodShapeVersion, zodObject, resolveSchema, resolveToolInput,
  plainArgs, EMPTY_INPUT_SCHEMA, invalidArguments, loadZod, loadZod4,
};
