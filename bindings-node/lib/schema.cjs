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

function toJsonSchema(zodSchema, io, what) {
  const z = loadZod();
  if (!z || typeof z.toJSONSchema !== 'function') {
    throw new RegistrationError(`${what} is a zod schema but zod v4 could not be loaded (npm install zod@4)`, 'INVALID_SCHEMA');
  }
  let js;
  try {
    js = z.toJSONSchema(zodSchema, { target: 'draft-2020-12', io, unrepresentable: 'any' });
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
 */
function resolveSchema(schema, io, what) {
  if (schema === undefined || schema === null) return { json: undefined, zod: undefined };
  if (isZodRawShape(schema)) {
    const z = loadZod();
    if (!z) throw new RegistrationError(`${what} is a zod shape but zod v4 could not be loaded`, 'INVALID_SCHEMA');
    schema = z.object(schema);
  }
  if (isZodSchema(schema)) return { json: toJsonSchema(schema, io, what), zod: schema };
  if (typeof schema === 'object' && !Array.isArray(schema)) return { json: schema, zod: undefined };
  if (typeof schema === 'boolean') return { json: schema, zod: undefined };
  throw new RegistrationError(`${what} must be a JSON Schema object or a zod v4 schema`, 'INVALID_SCHEMA');
}

/** The input schema used when a tool declares none: an object with no required keys. */
const EMPTY_INPUT_SCHEMA = Object.freeze({ type: 'object', properties: {} });

/**
 * Format zod issues as one safe sentence for the model.
 */
function zodIssues(err) {
  const issues = Array.isArray(err?.issues) ? err.issues : [];
  if (!issues.length) return String(err?.message ?? err);
  return issues
    .slice(0, 10)
    .map((i) => `${(i.path ?? []).join('.') || '(root)'}: ${i.message}`)
    .join('; ');
}

module.exports = { isZodSchema, isZodRawShape, resolveSchema, EMPTY_INPUT_SCHEMA, zodIssues, loadZod };
