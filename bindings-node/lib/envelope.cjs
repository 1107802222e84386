'use strict';
/**
 * What a JS handler's value or throw becomes for the core: the envelope (`{ result }`,
 * `{ error }`, `{ control }`) and the text that crosses napi. One rule for tools, resources,
 * prompts, completions and middleware.
 */
const { ToolError, McpError } = require('./errors.cjs');
const results = require('./results.cjs');

/**
 * What crosses napi for an envelope: a `{result}`'s result as JSON text (one string, parsed once
 * in Rust, instead of an object read property by property across napi), any other
 * envelope as it is. A result `JSON.stringify` refuses (a BigInt, a cycle) stays an object, and
 * the native side reports why.
 */
function wire(envelope) {
  if (envelope && envelope.result !== undefined && envelope.control === undefined) {
    try {
      const json = JSON.stringify(envelope.result);
      if (typeof json === 'string') return json;
    } catch {}
  }
  return envelope;
}

function isThenable(v) {
  return v !== null && (typeof v === 'object' || typeof v === 'function') && typeof v.then === 'function';
}

const INPUT_REQUIRED = 'INPUT_REQUIRED';
const URL_ELICITATION_REQUIRED = -32042;

/** The control codes a handler throws to end a call without an answer (MRTR, cancellation). */
function controlOf(err) {
  if (err && (err.code === INPUT_REQUIRED || err.code === CANCELLED)) return err.code;
  if (err && err.name === 'AbortError') return CANCELLED;
  return undefined;
}
const CANCELLED = 'CANCELLED';
/** An unexpected throw: the core picks the text (see `open_envelope` in js_handler.rs). */
const INTERNAL = 'INTERNAL';

/** What a throw says to the client under `errorMessages: 'message'`. */
function messageOf(err) {
  return err instanceof Error ? err.message : String(err);
}

/** A tool's throw: a `ToolError` is an isError result; the rest as `failure` maps them (or, under `errorMessages: 'message'`, as the TS SDK does). */
function toolFailure(opts, entry, err) {
  if (err instanceof ToolError) return { result: results.toolErrorResult(err) };
  if (opts.errorMessages === 'message') {
    // The TS SDK's rule: every throw is an isError result with its message (a McpError too),
    // except the URL-elicitation error, which stays a JSON-RPC error.
    const control = controlOf(err);
    if (control) return { control };
    if (!(err instanceof McpError && err.code === URL_ELICITATION_REQUIRED)) {
      return { result: { content: [results.text(messageOf(err))], isError: true } };
    }
  }
  return failure(opts, `tool ${JSON.stringify(entry.name)}`, err);
}

/** Map a throw that is not a ToolError: McpError -> JSON-RPC error; else the core's internal-error text, stack to the log. */
function failure(opts, what, err) {
  if (err instanceof McpError) return { error: { code: err.code, message: err.message, data: err.data } };
  if (err && (err.code === INPUT_REQUIRED || err.code === CANCELLED)) return { control: err.code };
  if (err && err.name === 'AbortError') return { control: CANCELLED };
  // The TS SDK's rule for resources and prompts: a JSON-RPC error with the Error's message.
  if (opts.errorMessages === 'message') return { error: { code: -32603, message: messageOf(err) } };
  try {
    opts.logErrors(`oxmcp: ${what} failed`, err);
  } catch {}
  // The core answers with its one internal-error text; the detail only with exposeErrors.
  const detail = opts.exposeErrors && err && err.message ? String(err.message) : null;
  return { control: INTERNAL, error: detail === null ? undefined : { code: -32603, message: detail } };
}

/**
 * A tool's `refusalText(args, violations)`: the words of a refusal of its arguments, which the core
 * decides (`registerTool` only: `addTools` tools share the dispatcher, so there it is refused).
 */
function refusalTextOf(what, name, config) {
  const fn = config.refusalText;
  if (fn === undefined) return undefined;
  if (what !== 'registerTool') throw new TypeError(`${what}(${name}): refusalText is for registerTool only`);
  if (typeof fn !== 'function') throw new TypeError(`${what}(${name}): refusalText must be a function (args, violations) => string | undefined`);
  return fn;
}

/**
 * The envelope of `words(args, violations)` for the core: the text, or null to keep the core's.
 * A throw or a value that is no string is an error, and the core keeps its text.
 */
function refusalAnswer(words, payload) {
  const ok = (text) => (text == null ? { result: null }
    : typeof text === 'string' ? { result: text } : fail(new TypeError('refusalText must return a string or undefined')));
  const fail = (e) => ({ error: { code: -32603, message: String(e?.message ?? e) } });
  let out;
  try {
    out = words(payload.arguments, payload.violations);
  } catch (e) {
    return fail(e);
  }
  return isThenable(out) ? Promise.resolve(out).then(ok, fail) : ok(out);
}

module.exports = { wire, isThenable, failure, toolFailure, refusalTextOf, refusalAnswer };
