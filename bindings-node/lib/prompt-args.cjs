'use strict';
/**
 * A prompt's arguments as the core lists them, from `argsSchema` (a zod raw shape or object, or
 * a JSON Schema object) or the spec's `arguments` array, and the completers marked on its zod
 * fields with `completable()`.
 */
const { RegistrationError, fromNative } = require('./errors.cjs');
const { loadNative } = require('./native.cjs');
const { resolveSchema, isAnyZodSchema, zodShapeVersion, zodObject } = require('./schema.cjs');

/** @type {WeakMap<object, Function>} */
const COMPLETERS = new WeakMap();

/**
 * Mark a zod schema (a prompt argument or template variable) as completable,
 * as the TS SDK's `completable()` does.
 * @template {object} S
 * @param {S} schema
 * @param {(value: string, context: { arguments: Record<string, string> }) => string[] | Promise<string[]>} complete
 * @returns {S}
 */
function completable(schema, complete) {
  if (typeof complete !== 'function') throw new TypeError('completable(schema, fn): fn must be a function');
  COMPLETERS.set(schema, complete);
  return schema;
}

/** `{ args, zod, complete }`: the listed arguments, the zod object that parses them, the completers by argument. */
/** The SDK 1.x's reading of a zod field: optional only as `.optional()` (zod 4) / `isOptional()` (zod 3). */
function zodFieldOptional(field) {
  if (field?._zod) return field._zod.def?.type === 'optional';
  if (typeof field?.isOptional === 'function') return field.isOptional();
  return field?._def?.typeName === 'ZodOptional';
}

function promptArguments(name, config, sdk) {
  const complete = { ...(config.complete ?? {}) };
  if (Array.isArray(config.arguments)) return { args: config.arguments.map((a) => ({ ...a })), zod: undefined, complete };
  let schema = config.argsSchema;
  if (schema === undefined || schema === null) return { args: [], zod: undefined, complete };
  let zod;
  let shape;
  if (zodShapeVersion(schema) !== null) {
    shape = schema;
    zod = zodObject(schema, `prompt ${name}: argsSchema`);
  } else if (isAnyZodSchema(schema)) {
    zod = schema;
    shape = schema.shape ?? schema._zod?.def?.shape;
  }
  if (shape) {
    for (const [k, s] of Object.entries(shape)) {
      const c = COMPLETERS.get(s);
      if (c && !complete[k]) complete[k] = c;
    }
  }
  const json = zod ? resolveSchema(zod, 'input', `prompt ${name}: argsSchema`).json : schema;
  if (sdk?.promptArgsFromFields && shape) {
    // The SDK 1.x lists each zod field's own `.description` (which zod 4 loses on a wrapper:
    // `.describe(d).optional()` lists none) and requires every field that is not `.optional()`.
    const args = Object.entries(shape).map(([argName, field]) => {
      const a = { name: argName };
      if (typeof field?.description === 'string') a.description = field.description;
      a.required = !zodFieldOptional(field);
      return a;
    });
    return { args, zod, complete };
  }
  if (!json || typeof json !== 'object' || typeof json.properties !== 'object') {
    throw new RegistrationError(`prompt ${name}: argsSchema must describe an object with properties`, 'INVALID_SCHEMA');
  }
  const required = new Set(Array.isArray(json.required) ? json.required : []);
  const args = Object.entries(json.properties).map(([argName, p]) => {
    const a = { name: argName };
    if (p && typeof p === 'object') {
      if (p.title !== undefined) a.title = p.title;
      if (p.description !== undefined) a.description = p.description;
    }
    a.required = required.has(argName);
    return a;
  });
  return { args, zod, complete };
}

/**
 * A completer given as values, as the list the core matches against the typed text: an array of
 * strings, a zod enum (its `options`) or a TypeScript enum object (each member's value when it is
 * a string, else its name; a numeric enum's reverse entries are skipped). `null` for a function,
 * which answers for itself.
 */
function completionValues(c, what) {
  if (typeof c === 'function') return null;
  if (Array.isArray(c)) return c.map(String);
  if (c && typeof c === 'object') {
    if (Array.isArray(c.options)) return c.options.map(String);
    return Object.entries(c).filter(([k]) => !/^\d+$/.test(k)).map(([k, v]) => (typeof v === 'string' ? v : k));
  }
  throw new TypeError(`${what}: a completer is an array of values, an enum or a function`);
}

/**
 * The completers by argument split by who answers: `values` (the lists the core matches) and
 * `fns` (the functions JS calls).
 */
function splitCompleters(complete, what) {
  const values = {};
  const fns = {};
  for (const [arg, c] of Object.entries(complete ?? {})) {
    const list = completionValues(c, `${what}: complete.${arg}`);
    if (list === null) fns[arg] = c;
    else values[arg] = list;
  }
  return { values, fns };
}

/** Whether a prompt's config has an argument with a completion callback (`completable`, `complete`). */
function hasCompleters(name, config) {
  return Object.keys(promptArguments(name, config ?? {}).complete).length > 0;
}

/** The core's rule for completers named by argument (a prompt's `args`, or a template's
 * variables when `args` is absent), before anything is registered. */
function checkCompletionNames(name, completed, args) {
  if (!completed.length) return;
  try {
    loadNative().checkCompletionNames(name, completed, args);
  } catch (e) {
    throw fromNative(e);
  }
}

module.exports = { completable, promptArguments, hasCompleters, splitCompleters, checkCompletionNames };
