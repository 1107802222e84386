'use strict';
/**
 * Discovery: `defineTool` / `defineResource` / `defineResourceTemplate` / `definePrompt` make a
 * definition with no server (the arguments of `registerTool` & co.), exported from a module;
 * `server.discover(dir)` imports the modules of a directory tree in sorted order and registers
 * every definition they export.
 *
 * What is host idiom stays here: importing modules, where a definition is. Which of two
 * registrations of one name wins is the core's rule (`oxmcp::discovery::admit`, applied by the
 * native `add*` calls): one registered by hand wins whatever the order, two discovered are an
 * error naming both places.
 */
const fs = require('node:fs');
const path = require('node:path');
const { pathToFileURL, fileURLToPath } = require('node:url');
const { RegistrationError } = require('./errors.cjs');

const EXTENSIONS = new Set(['.js', '.mjs', '.cjs']);

/** This package's entry files, whose frames are skipped (`index.cjs` forwards `define*` here). */
const OWN = new Set([__filename, path.join(__dirname, '..', 'index.cjs')]);

/** The file and line of the call that made a definition: the first frame outside this package. */
function callSite() {
  const holder = {};
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 6;
  Error.captureStackTrace(holder, callSite);
  Error.stackTraceLimit = limit;
  for (const frame of String(holder.stack).split('\n').slice(1)) {
    const m = /\(?((?:file:\/\/)?[^()\s]+):(\d+):\d+\)?\s*$/.exec(frame);
    if (!m) continue;
    const file = m[1].startsWith('file://') ? fileURLToPath(m[1]) : m[1];
    if (!OWN.has(file)) return { file, line: Number(m[2]) };
  }
  return { file: undefined, line: 0 };
}

/** A tool, resource, template or prompt defined for `server.discover()`. */
class Definition {
  #args;

  constructor(kind, name, args, site) {
    /** 'tool' | 'resource' | 'resource template' | 'prompt' */
    this.kind = kind;
    /** The name a list shows it by: a tool's or prompt's name, a resource's URI, a template. */
    this.name = name;
    this.#args = args;
    this.site = site;
  }

  /** The function that serves it (the handler or read callback: the last argument). */
  get handler() {
    return this.#args[this.#args.length - 1];
  }

  /** Register on `server` as `registerTool` & co. would. */
  register(server) {
    if (this.kind === 'tool') return server.registerTool(...this.#args);
    if (this.kind === 'prompt') return server.registerPrompt(...this.#args);
    return server.registerResource(...this.#args);
  }
}

function checkName(what, name) {
  if (typeof name !== 'string' || !name) throw new TypeError(`${what}: name must be a non-empty string`);
}

function checkFn(what, name, fn, label) {
  if (typeof fn !== 'function') throw new TypeError(`${what}(${name}): ${label} must be a function`);
}

/** `defineTool(name, config, handler)`: `registerTool`'s arguments, for `server.discover()`. */
function defineTool(name, config, handler) {
  if (typeof config === 'function' && handler === undefined) [config, handler] = [{}, config];
  checkName('defineTool', name);
  checkFn('defineTool', name, handler, 'handler');
  return new Definition('tool', name, [name, config ?? {}, handler], callSite());
}

/** `defineResource(name, uri | ResourceTemplate, metadata, read)`: `registerResource`'s arguments. */
function defineResource(name, uriOrTemplate, metadata, read) {
  if (typeof metadata === 'function' && read === undefined) [metadata, read] = [{}, metadata];
  checkName('defineResource', name);
  checkFn('defineResource', name, read, 'read callback');
  const key = typeof uriOrTemplate === 'string' ? uriOrTemplate : uriOrTemplate?.uriTemplate;
  if (typeof key !== 'string') throw new TypeError(`defineResource(${name}): uri must be a string or a ResourceTemplate`);
  const kind = typeof uriOrTemplate === 'string' && !/\{[^}]+\}/.test(uriOrTemplate) ? 'resource' : 'resource template';
  return new Definition(kind, key, [name, uriOrTemplate, metadata ?? {}, read], callSite());
}

/** `defineResourceTemplate(name, uriTemplate, metadata, read)`: a resource template's definition. */
function defineResourceTemplate(name, uriTemplate, metadata, read) {
  if (typeof metadata === 'function' && read === undefined) [metadata, read] = [{}, metadata];
  checkName('defineResourceTemplate', name);
  checkFn('defineResourceTemplate', name, read, 'read callback');
  const key = typeof uriTemplate === 'string' ? uriTemplate : uriTemplate?.uriTemplate;
  if (typeof key !== 'string' || !/\{[^}]+\}/.test(key)) {
    throw new TypeError(`defineResourceTemplate(${name}): a URI template has a {variable}`);
  }
  return new Definition('resource template', key, [name, uriTemplate, metadata ?? {}, read], callSite());
}

/** `definePrompt(name, config, handler)`: `registerPrompt`'s arguments, for `server.discover()`. */
function definePrompt(name, config, handler) {
  if (typeof config === 'function' && handler === undefined) [config, handler] = [{}, config];
  checkName('definePrompt', name);
  checkFn('definePrompt', name, handler, 'handler');
  return new Definition('prompt', name, [name, config ?? {}, handler], callSite());
}

/** The module files below `root`, by their path below it ('/'-separated), sorted. */
function moduleFiles(root, exclude) {
  const out = [];
  const walk = (dir, rel) => {
    for (const d of fs.readdirSync(dir, { withFileTypes: true })) {
      const relPath = rel ? `${rel}/${d.name}` : d.name;
      if (d.isDirectory()) {
        if (d.name === 'node_modules' || d.name.startsWith('.') || exclude.has(d.name)) continue;
        walk(path.join(dir, d.name), relPath);
      } else if (d.isFile() && EXTENSIONS.has(path.extname(d.name)) && !exclude.has(d.name)) {
        out.push({ module: relPath, file: path.join(dir, d.name) });
      }
    }
  };
  walk(root, '');
  return out.sort((a, b) => (a.module < b.module ? -1 : a.module > b.module ? 1 : 0));
}

async function load(file) {
  try {
    if (file.endsWith('.cjs')) return { default: require(file) };
    return await import(pathToFileURL(file).href);
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    throw new RegistrationError(`discovery: cannot import ${file}: ${why}`, 'IMPORT_FAILED', e);
  }
}

/** The definitions a module exports (its namespace and, for CommonJS, `module.exports`). */
function exported(ns) {
  const out = [];
  const add = (v) => {
    if (v instanceof Definition) out.push(v);
  };
  for (const k of Object.keys(ns)) {
    const v = ns[k];
    add(v);
    if (k === 'default' && v !== null && typeof v === 'object' && !(v instanceof Definition)) {
      for (const kk of Object.keys(v)) add(v[kk]);
    }
  }
  return out;
}

/**
 * Import the modules below `dir` and return the definitions they export, each once, placed in
 * the module whose file made it (else the first that exports it), sorted by module then name.
 * @param {string | URL} dir
 * @param {{ exclude?: string[] }} [options]
 */
async function find(dir, { exclude = [] } = {}) {
  if (typeof dir !== 'string' && !(dir instanceof URL)) throw new TypeError('discover(dir): dir must be a path');
  const root = path.resolve(dir instanceof URL ? fileURLToPath(dir) : dir);
  let stat;
  try {
    stat = fs.statSync(root);
  } catch {
    stat = undefined;
  }
  if (!stat || !stat.isDirectory()) throw new RegistrationError(`discovery: ${root} is not a directory`, 'INVALID_DEFINITION');
  const files = moduleFiles(root, new Set(exclude));
  /** @type {Map<Definition, { module: string, file: string }>} */
  const placed = new Map();
  for (const f of files) {
    const ns = await load(f.file);
    for (const def of new Set(exported(ns))) {
      const seen = placed.get(def);
      if (!seen || def.site.file === f.file) placed.set(def, f);
    }
  }
  const found = [...placed].map(([definition, f]) => ({
    kind: definition.kind,
    name: definition.name,
    module: f.module,
    file: f.file,
    line: definition.site.file === f.file ? definition.site.line : 0,
    definition,
  }));
  found.sort((a, b) => (a.module === b.module
    ? (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)
    : (a.module < b.module ? -1 : 1)));
  return found;
}

module.exports = { Definition, defineTool, defineResource, defineResourceTemplate, definePrompt, find };
