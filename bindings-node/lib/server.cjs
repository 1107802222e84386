'use strict';
/**
 * `Server`: the TS-SDK-shaped registration API over `NativeServer`. Policy
 * (schema conversion, argument parsing by zod, result normalisation,
 * user-facing error messages) lives here; the Rust core validates, dispatches
 * and serves every transport.
 */
const { scopesOf } = require('./scopes.cjs');
const { loadNative } = require('./native.cjs');
const { ToolError, RegistrationError, fromNative } = require('./errors.cjs');
const { nativeDef } = require('./defs.cjs');
const {
  resolveSchema, resolveToolInput, plainArgs, EMPTY_INPUT_SCHEMA, invalidArguments, loadZod4,
} = require('./schema.cjs');
const results = require('./results.cjs');
const { Context, Calls } = require('./context.cjs');
const { wire, isThenable, failure, toolFailure, refusalTextOf, refusalAnswer } = require('./envelope.cjs');
const { completable, promptArguments, hasCompleters, splitCompleters, checkCompletionNames } = require('./prompt-args.cjs');
const { RegisteredTool, registered } = require('./registered.cjs');
const { ResourceTemplate } = require('./resource-template.cjs');

/**
 * How the TS SDK generation being emulated lists and answers things (set by McpServer in
 * lib/sdk/): `{ schemaTarget: 'draft-7' | 'draft-2020-12', taskSupport: boolean }`. A symbol, so
 * that it is no public option; with it the template/resource metadata's mimeType is not copied
 * into read results (the SDK returns what the callback returned).
 */
const SDK_SHAPES = Symbol('oxmcp.sdkShapes');
/**
 * Set by the SDK layer (lib/sdk/) on a server that serves without sessions as the SDK sees it (a
 * stateless StreamableHTTPServerTransport, `createMcpHandler`): its handlers get
 * `extra.sessionId` undefined even where the core keeps an internal session for a legacy request.
 */
const SESSIONLESS = Symbol('oxmcp.sessionless');
/** The `authInfo` a v2 factory instance was built for (createMcpHandler's pass-through), shown to its handlers. */
const PASSED_AUTH = Symbol('oxmcp.passedAuthInfo');

/** How many times a server of this process started serving (stdio or its own HTTP listener). */
let servingStarts = 0;
/** `oxmcp run` asks this after importing a script that exports no server: did it serve itself? */
const servingStarted = () => servingStarts;
const markServing = () => { servingStarts += 1; };

/** A plain `{}`: the TS SDK's empty zod raw shape. */
function isEmptyShape(v) {
  if (v === null || typeof v !== 'object' || Array.isArray(v) || Object.getPrototypeOf(v) !== Object.prototype) return false;
  for (const k in v) if (Object.hasOwn(v, k)) return false; // no Object.keys array per tool
  return true;
}

const EMPTY_INPUT_JSON = JSON.stringify(EMPTY_INPUT_SCHEMA);

function pick(obj, keys) {
  const out = {};
  for (const k of keys) if (obj[k] !== undefined) out[k] = obj[k];
  return out;
}

/** The members of a tool's config that its listed definition takes. */
const TOOL_LISTED = Object.freeze(['title', 'description', 'annotations', 'icons', '_meta', 'execution']);
/** No output schema. */
const NO_SCHEMA = Object.freeze({ json: undefined, zod: undefined });

class Server {
  #native;
  #calls;
  #opts;
  #tools = new Map();
  #prompts = new Map();
  #resources = new Map();
  #templates = new Map();
  #running = new Set();
  /**
   * The origin of the registrations made now: undefined (by hand) or `{ module, file, line }`
   * while `discover()` registers what it found (set and reset synchronously around each).
   * @type {{ module: string, file: string, line: number } | undefined}
   */
  #origin = undefined;
  #signalHandler;
  #closing;

  /**
   * @param {object} info `{ name, version, title?, instructions?, ...options }`
   * @param {object} [options] TS-SDK style second argument (`{ instructions, capabilities }`), merged in
   */
  constructor(info, options = {}) {
    if (!info || typeof info.name !== 'string' || typeof info.version !== 'string') {
      throw new TypeError('new Server({ name, version, ... }) needs string name and version');
    }
    const merged = { ...info, ...options };
    // Capabilities are derived from what is registered, but extensions a server declares (an auth
    // extension its authorization server supports) are the core's `extensions` option.
    const declared = merged.capabilities?.extensions;
    delete merged.capabilities;
    if (declared !== undefined && merged.extensions === undefined) merged.extensions = declared;
    this.#opts = {
      exposeErrors: Boolean(merged.exposeErrors),
      logErrors: merged.logErrors ?? ((msg, err) => process.stderr.write(`${msg}\n${err && err.stack ? err.stack : String(err)}\n`)),
      handleSignals: merged.handleSignals ?? true,
      // 'generic' (default): a throw is "Internal error in ...", the stack goes to the log.
      // 'message': the Error's message is the text the client sees, as the TS SDK's McpServer does.
      errorMessages: merged.errorMessages ?? 'generic',
      sdk: merged[SDK_SHAPES],
    };
    if (this.#opts.errorMessages !== 'generic' && this.#opts.errorMessages !== 'message') {
      throw new TypeError(`errorMessages must be 'generic' or 'message', got ${JSON.stringify(merged.errorMessages)}`);
    }
    // No default bound on a call (none in the core, FastMCP or the TS SDK): `toolTimeoutMs` or a
    // registration's `timeoutMs` sets one. Everything else is the core's schema (the server's
    // options and the defaults of every listener and mount), checked there: an unknown key is an
    // INVALID_OPTION error.
    const nativeOptions = { ...merged };
    for (const k of ['exposeErrors', 'logErrors', 'handleSignals', 'http', 'errorMessages', SDK_SHAPES]) delete nativeOptions[k];
    if (nativeOptions.toolTimeoutMs === undefined) delete nativeOptions.toolTimeoutMs;
    const { NativeServer } = loadNative();
    try {
      this.#native = new NativeServer(nativeOptions);
    } catch (e) {
      throw fromNative(e);
    }
    this.#calls = new Calls(this.#native);
    // One native threadsafe function serves every tool (by name), not one per tool, and hands
    // over the calls waiting as a batch (src/batch.rs); the arguments come as JSON text (cheaper
    // across napi than an object). One answer per call, in order.
    this.#native.setToolDispatcher((argsJsons, ids, names) => {
      const n = ids.length;
      const out = new Array(n);
      for (let i = 0; i < n; i++) {
        try {
          out[i] = this.#dispatchTool(names[i], JSON.parse(argsJsons[i]), ids[i]);
        } catch (e) {
          out[i] = failure(this.#opts, `tool ${JSON.stringify(names[i])}`, e);
        }
      }
      return out;
    });
    if (merged.http) this.configureHttp(merged.http);
  }

  /**
   * Options of the handler behind `fetch()` / `nodeHandler()` / `client()`:
   * `{ allowedHosts, allowedOrigins, maxBodyBytes, path, ... }`.
   */
  configureHttp(options) {
    try {
      this.#native.configureMount(options ?? {});
    } catch (e) {
      throw fromNative(e);
    }
    this.#mountOptions = { ...(options ?? {}) };
  }

  /** The options of the last configureHttp(), which nodeHandler(options) adds to. */
  #mountOptions = {};

  /** The generated native server (for advanced use and tests). */
  get native() { return this.#native; }

  // ---------------------------------------------------------------- tools

  /**
   * Register a tool. `inputSchema`/`outputSchema`: JSON Schema objects, zod v4
   * schemas or zod raw shapes. The handler gets `(args, ctx)` (or `(ctx)` when
   * the tool declares no inputSchema, as in the TS SDK).
   */
  registerTool(name, config, handler) {
    config = config ?? {};
    const { entry, def, timeoutMs, words } = this.#prepareTool('registerTool', name, config, handler);
    // No handler of its own: the dispatcher finds `entry` by name (a closure here keeps `words` only, never `config`).
    const refusal = words && ((payload, id) => this.#run(id, () => refusalAnswer(words, payload)));
    let done;
    try {
      done = this.#native.addTool(def, null, timeoutMs, scopesOf(`registerTool(${name})`, config), config.maxConcurrency, config.taskAfterMs, this.#origin, refusal);
    } catch (e) {
      throw fromNative(e);
    }
    // 'skip': a discovered tool beside one registered by hand (the core's rule); the manual one stays.
    if (done !== 'skip') this.#tools.set(name, entry);
    return new RegisteredTool(this, entry.name, config, handler);
  }

  /**
   * Register many tools as one change: each item is `{ name, handler, ...config }`
   * with `registerTool`'s config keys. All or none: a bad definition, a name already registered
   * or a name twice in the batch throws an error naming the tool, and none of the batch is
   * registered. One registry change: clients get at most one `notifications/tools/list_changed`.
   * Returns the RegisteredItems in order.
   */
  addTools(tools) {
    if (!Array.isArray(tools)) throw new TypeError('addTools: expected an array of { name, handler, ...config }');
    const prepared = [];
    const seen = new Set();
    tools.forEach((item, i) => {
      if (item === null || typeof item !== 'object') throw new TypeError(`addTools: item ${i} must be an object { name, handler, ...config }`);
      const { name, handler, ...config } = item;
      const p = this.#prepareTool('addTools', name, config, handler);
      if (seen.has(name)) throw new TypeError(`addTools: tool '${name}' is twice in the batch`);
      seen.add(name);
      prepared.push({ ...p, config, handler });
    });
    try {
      this.#native.addTools(prepared.map(({ def, timeoutMs, config }) => ({
        def,
        timeoutMs,
        requiredScopes: scopesOf('addTools', config),
        maxConcurrency: config.maxConcurrency,
        taskAfterMs: config.taskAfterMs,
      })));
    } catch (e) {
      throw fromNative(e);
    }
    return prepared.map(({ entry, config, handler }) => {
      this.#tools.set(entry.name, entry);
      return new RegisteredTool(this, entry.name, config, handler);
    });
  }

  /** The listed definition and the dispatcher's entry of one tool (nothing registered yet). */
  #prepareTool(what, name, config, handler) {
    if (typeof name !== 'string' || !name) throw new TypeError(`${what}: name must be a non-empty string`);
    if (typeof handler !== 'function') throw new TypeError(`${what}(${name}): handler must be a function`);
    // `inputSchema: {}` is the TS SDK's empty zod shape: a tool that takes no arguments.
    const emptyShape = isEmptyShape(config.inputSchema);
    const target = this.#opts.sdk?.schemaTarget;
    const z = emptyShape && this.#opts.sdk ? loadZod4() : undefined;
    const input = emptyShape
      ? { json: z ? resolveSchema(z.object({}), 'input', `tool ${name}: inputSchema`, target).json : EMPTY_INPUT_SCHEMA, text: undefined, zod: undefined, plain: undefined, defaults: undefined }
      : resolveToolInput(config.inputSchema, `tool ${name}: inputSchema`, target);
    const output = config.outputSchema == null ? NO_SCHEMA : resolveSchema(config.outputSchema, 'output', `tool ${name}: outputSchema`, target);
    /** @type {Record<string, any>} */
    const spec = {
      name,
      ...pick(config, TOOL_LISTED),
      inputSchema: input.json ?? EMPTY_INPUT_SCHEMA,
    };
    // The TS SDK v1 lists every tool with `execution.taskSupport` ('forbidden' unless it is a task tool).
    if (this.#opts.sdk?.taskSupport && spec.execution?.taskSupport === undefined) {
      spec.execution = { ...(spec.execution ?? {}), taskSupport: 'forbidden' };
    }
    if (output.json !== undefined) spec.outputSchema = output.json;
    // The native struct (schemas as JSON text; a plain shape's text is made once per shape).
    const def = nativeDef('tool', spec, { inputSchemaJson: input.json === undefined ? EMPTY_INPUT_JSON : input.text });
    // The entry keeps no definition: the core lists the tool, the dispatcher needs only this.
    const entry = {
      name,
      handler,
      zod: input.zod,
      plain: input.plain,
      defaults: input.defaults,
      hasInputSchema: input.json !== undefined,
      hasOutputSchema: output.json !== undefined,
      enabled: true,
    };
    const timeoutMs = config.timeoutMs; // unset: the core applies the server's toolTimeoutMs
    return { entry, def, timeoutMs, words: refusalTextOf(what, name, config) };
  }

  /**
   * Shorthand: `tool(name, handler)`, `tool(name, description, handler)`,
   * `tool(name, inputSchema, handler)`, `tool(name, description, inputSchema, handler)`,
   * `tool(name, description, inputSchema, annotations, handler)`.
   */
  tool(name, ...rest) {
    const handler = rest.pop();
    const config = {};
    if (typeof rest[0] === 'string') config.description = rest.shift();
    if (rest.length) config.inputSchema = rest.shift();
    if (rest.length) config.annotations = rest.shift();
    return this.registerTool(name, config, handler);
  }

  /** An explicit element: `definition` with its `handler`, the pairing checked by the core (lib/element.cjs). */
  add(definition, handler) {
    return require('./element.cjs').addElement(this, definition, handler);
  }

  /** Remove a tool at runtime (publishes tools/list_changed). Returns whether it existed. */
  removeTool(name) {
    this.#tools.delete(name);
    return this.#native.removeTool(name);
  }

  /** Names of the registered tools, in registration order. */
  listTools() { return [...this.#tools.keys()]; }

  // ---------------------------------------------------------------- discovery

  /**
   * Import every module (.js, .mjs, .cjs) below `dir`, in sorted order, and register every
   * definition it exports (`defineTool`, `defineResource`, `defineResourceTemplate`,
   * `definePrompt`). `exclude`: directory names skipped (`node_modules` always is). A name
   * registered by hand wins over a discovered one, before or after; two discovered with one name
   * are an error naming both places, and so is a module that fails to import (naming its file).
   * Resolves to what this call found: `[{ kind, name, module, file, line }]`.
   * @param {string} dir
   * @param {{ exclude?: string[] }} [options]
   */
  async discover(dir, options = {}) {
    const { find } = require('./discovery.cjs');
    const found = await find(dir, options);
    for (const f of found) {
      this.#origin = { module: f.module, file: f.file, line: f.line };
      try {
        f.definition.register(this);
      } finally {
        this.#origin = undefined;
      }
    }
    return found.map(({ kind, name, module, file, line }) => ({ kind, name, module, file, line }));
  }

  /** What is registered from discovery (a name registered by hand is not), with its place. */
  discovered() {
    return this.#native.discovered();
  }

  #dispatchTool(name, args, id) {
    const entry = this.#tools.get(name);
    if (!entry) return { error: { code: -32603, message: `tool ${name} is not registered` } };
    return this.#answer(id, this.#runTool(entry, args, id));
  }

  #runTool(entry, args, id) {
    const ctx = new Context(this.#calls, id);
    let out;
    try {
      if (entry.plain) {
        args = plainArgs(entry.plain, entry.defaults, args);
      } else if (entry.zod) {
        let parsed;
        try {
          parsed = entry.zod.safeParse(args);
        } catch (e) {
          // async refinements/transforms: parse asynchronously
          return entry.zod.safeParseAsync(args).then((p) => {
            if (!p.success) return invalidArguments(p.error);
            return this.#callTool(entry, p.data, ctx);
          }, (err) => toolFailure(this.#opts, entry, err));
        }
        if (!parsed.success) return invalidArguments(parsed.error);
        args = parsed.data;
      }
      return this.#callTool(entry, args, ctx);
    } catch (e) {
      return toolFailure(this.#opts, entry, e);
    }
  }

  #callTool(entry, args, ctx) {
    let out;
    try {
      out = entry.hasInputSchema || entry.handler.length >= 2 ? entry.handler(args ?? {}, ctx) : entry.handler(ctx);
    } catch (e) {
      return toolFailure(this.#opts, entry, e);
    }
    if (isThenable(out)) {
      return Promise.resolve(out).then((v) => this.#toolOk(entry, v), (e) => toolFailure(this.#opts, entry, e));
    }
    return this.#toolOk(entry, out);
  }

  #toolOk(entry, value) {
    try {
      const r = results.normalizeToolResult(value, { hasOutputSchema: entry.hasOutputSchema });
      return r instanceof results.CoreList ? { control: 'LIST', result: r.items } : { result: r };
    } catch (e) {
      return toolFailure(this.#opts, entry, e);
    }
  }

  // ---------------------------------------------------------------- middleware

  /**
   * Add a middleware to the core's chain (the first added sees a request first):
   * `use(async (ctx, next) => ...)` sees every request; `use(method | methods, fn)` and
   * `use({ onCallTool, onListTools, ... })` only theirs, so other requests never call into JS.
   * `ctx` is the call's context plus `method` and `params`; `await next()` (or `next(params)`)
   * runs the rest of the chain and resolves to its result (rejects with its `McpError`); the
   * middleware's return value is the answer (`ctx.result`, what `next` gave, when it returns
   * nothing). A throw: `McpError` -> that JSON-RPC error, `ToolError` on tools/call -> an isError
   * result, anything else -> the server's rule for unexpected errors.
   * @returns {this}
   */
  use(methodsOrFn, fn) {
    const middleware = require('./middleware.cjs');
    const mw = middleware.parseUse(methodsOrFn, fn);
    try {
      middleware.install(this.#native, this.#calls, mw, (err, method) => this.#middlewareFailure(err, method));
    } catch (e) {
      throw fromNative(e);
    }
    return this;
  }

  #middlewareFailure(err, method) {
    if (err instanceof ToolError) {
      return method === 'tools/call' ? { result: results.toolErrorResult(err) } : { error: { code: -32603, message: err.message } };
    }
    return failure(this.#opts, `middleware for ${method}`, err);
  }

  // ---------------------------------------------------------------- resources

  /**
   * `registerResource(name, uri | ResourceTemplate, metadata, read)`.
   * Static read: `(uri: URL, ctx)`; template read: `(uri: URL, variables, ctx)`.
   */
  registerResource(name, uriOrTemplate, metadata, read) {
    if (typeof metadata === 'function' && read === undefined) [metadata, read] = [{}, metadata];
    if (typeof read !== 'function') throw new TypeError(`registerResource(${name}): read callback must be a function`);
    metadata = metadata ?? {};
    const meta = pick(metadata, ['title', 'description', 'mimeType', 'size', 'icons', 'annotations', '_meta']);
    // Unset: the core applies the server's toolTimeoutMs (to the read and its completions).
    const timeoutMs = metadata.timeoutMs;
    const scopes = scopesOf(`registerResource(${name})`, metadata);
    if (uriOrTemplate instanceof ResourceTemplate || (typeof uriOrTemplate === 'string' && /\{[^}]+\}/.test(uriOrTemplate))) {
      const tpl = uriOrTemplate instanceof ResourceTemplate ? uriOrTemplate : new ResourceTemplate(uriOrTemplate);
      /** @type {Record<string, unknown>} */
      const def = { uriTemplate: tpl.uriTemplate, name, ...meta };
      delete def.size;
      const native = nativeDef('template', def);
      const complete = { ...(metadata.complete ?? {}), ...tpl.complete };
      checkCompletionNames(tpl.uriTemplate, Object.keys(complete));
      const entry = { name, def, read, mimeType: meta.mimeType, template: true, complete };
      const invoke = (uri, vars, id) => this.#run(id, () => this.#runRead(entry, uri, vars, id));
      const { values, fns } = splitCompleters(complete, `registerResource(${name})`);
      const completer = Object.keys(fns).length ? this.#completer(fns) : undefined;
      let done;
      try {
        done = this.#native.addResourceTemplate(native, invoke, completer, timeoutMs, scopes, this.#origin, values, metadata.listVariables);
      } catch (e) {
        throw fromNative(e);
      }
      if (done !== 'skip') this.#templates.set(tpl.uriTemplate, entry);
      return registered(entry, () => this.removeResourceTemplate(tpl.uriTemplate));
    }
    if (typeof uriOrTemplate !== 'string') throw new TypeError(`registerResource(${name}): uri must be a string or a ResourceTemplate`);
    checkCompletionNames(uriOrTemplate, Object.keys(metadata.complete ?? {}));
    const def = { uri: uriOrTemplate, name, ...meta };
    const entry = { name, def, read, mimeType: meta.mimeType, template: false };
    const invoke = (uri, vars, id) => this.#run(id, () => this.#runRead(entry, uri, vars, id));
    const native = nativeDef('resource', def);
    let done;
    try {
      done = this.#native.addResource(native, invoke, timeoutMs, scopes, this.#origin);
    } catch (e) {
      throw fromNative(e);
    }
    if (done !== 'skip') this.#resources.set(uriOrTemplate, entry);
    return registered(entry, () => this.removeResource(uriOrTemplate));
  }

  /** Shorthand: `resource(name, uri, read)` or `resource(name, uri, metadata, read)`. */
  resource(name, uri, ...rest) {
    const read = rest.pop();
    return this.registerResource(name, uri, rest[0] ?? {}, read);
  }

  removeResource(uri) {
    this.#resources.delete(uri);
    return this.#native.removeResource(uri);
  }

  removeResourceTemplate(uriTemplate) {
    this.#templates.delete(uriTemplate);
    return this.#native.removeResourceTemplate(uriTemplate);
  }

  // ---------------------------------------------------------------- skills

  /**
   * Serve every folder below `root` that holds a `SKILL.md`, at its path relative to `root`
   * (`skill://<path>/...`; `options.prefix` puts them below an organisational path). Read once, now:
   * a malformed skill, a symlink or a non-UTF-8 `SKILL.md` throws, naming the file and the rule.
   * `options.listed: false` leaves them out of the listings (below).
   * @returns {string[]} the `SKILL.md` URIs
   */
  addSkillsDir(root, options = {}) {
    const skills = require('./skills.cjs');
    return this.addNativeSkills(skills.loadDir(root, options.prefix), options.listed);
  }

  /**
   * Serve one skill at `skill://<path>/` from its files (`{ 'SKILL.md': '---\nname: ...', ... }`); the
   * last segment of `path` is its name. `options.listed: false` leaves it and its files out of
   * `skills/list` and `resources/list`: a host that holds its URI still gets it with `skills/get`
   * and reads its files.
   * @returns {string} its `SKILL.md` URI
   */
  addSkill(path, files, options = {}) {
    const skills = require('./skills.cjs');
    return this.addNativeSkills([skills.skillOf(path, files)], options.listed)[0];
  }

  /**
   * Serve the one skill in the folder `dir` (it holds the SKILL.md) at `skill://<path>/`
   * (default: the folder's name), under the loader's rules.
   * @returns {string} its `SKILL.md` URI
   */
  addSkillDir(dir, path, options = {}) {
    const skills = require('./skills.cjs');
    return this.addNativeSkills([skills.loadOne(dir, path)], options.listed)[0];
  }

  /** @internal skills the core already checked (`lib/skills.cjs`). */
  addNativeSkills(list, listed) {
    try {
      this.#native.addSkills(list, listed === undefined ? undefined : listed !== false);
    } catch (e) {
      throw fromNative(e);
    }
    return list.map((s) => `skill://${s.path}/SKILL.md`);
  }

  /**
   * A skill whose files are generated per read (its entry says `"resources": "dynamic"`):
   * `read(file, ctx)` gets the path under the skill's folder (`SKILL.md` first) and returns its
   * text, bytes, or `{ text | bytes, mimeType }`.
   * @param {string} path
   * @param {{ description?: string, frontmatter?: Record<string, unknown>, mimeType?: string, listed?: boolean }} options
   * @param {(file: string, ctx: unknown) => unknown} read
   */
  dynamicSkill(path, { description, frontmatter = {}, mimeType, listed } = {}, read) {
    if (typeof read !== 'function') throw new TypeError('dynamicSkill(path, options, read): read must be a function');
    const { toContents } = require('./skills.cjs');
    const name = String(path).replace(/^\/+|\/+$/g, '').split('/').pop();
    const fm = { name, description, ...frontmatter };
    const def = { uriTemplate: `skill://${path}/{+file}`, name: String(path) };
    const entry = {
      name: String(path), def, mimeType, template: true, complete: {},
      read: async (uri, vars, ctx) => toContents(uri.href, await read(vars.file, ctx), mimeType),
    };
    const invoke = (uri, vars, id) => this.#run(id, () => this.#runRead(entry, uri, vars, id));
    try {
      this.#native.addDynamicSkill(String(path), JSON.stringify(fm), invoke,
        listed === undefined ? undefined : listed !== false);
    } catch (e) {
      throw fromNative(e);
    }
    return `skill://${path}/SKILL.md`;
  }

  /** Tell subscribers that a resource changed (`notifications/resources/updated`). */
  notifyResourceUpdated(uri) {
    this.#native.notifyResourceUpdated(uri);
  }

  #runRead(entry, uri, vars, id) {
    const ctx = new Context(this.#calls, id);
    let url = uri;
    try {
      url = new URL(uri);
    } catch {}
    const ok = (v) => {
      try {
        return { result: results.normalizeResourceContents(v, uri, this.#opts.sdk ? undefined : entry.mimeType) };
      } catch (e) {
        return fail(e);
      }
    };
    const fail = (e) => failure(this.#opts, `resource ${JSON.stringify(uri)}`, e);
    let out;
    try {
      out = entry.template ? entry.read(url, vars ?? {}, ctx) : entry.read(url, ctx);
    } catch (e) {
      return fail(e);
    }
    return isThenable(out) ? Promise.resolve(out).then(ok, fail) : ok(out);
  }

  // ---------------------------------------------------------------- prompts

  /**
   * `registerPrompt(name, { title, description, argsSchema | arguments, complete }, handler)`.
   * `argsSchema`: a zod raw shape / zod object (string arguments) or a JSON
   * Schema object; `arguments`: the spec's `[{ name, description, required }]`.
   */
  registerPrompt(name, config, handler) {
    if (typeof config === 'function' && handler === undefined) [config, handler] = [{}, config];
    if (typeof handler !== 'function') throw new TypeError(`registerPrompt(${name}): handler must be a function`);
    config = config ?? {};
    const { args, zod, complete } = promptArguments(name, config, this.#opts.sdk);
    /** @type {Record<string, unknown>} */
    const def = { name, ...pick(config, ['title', 'description', 'icons', '_meta']) };
    if (args.length) def.arguments = args;
    const entry = { name, def, handler, zod, hasArgs: args.length > 0 };
    const timeoutMs = config.timeoutMs; // unset: the core applies the server's toolTimeoutMs
    const invoke = (a, id) => this.#run(id, () => this.#runPrompt(entry, a, id));
    checkCompletionNames(name, Object.keys(complete ?? {}), args.map((a) => a.name));
    const { values, fns } = splitCompleters(complete, `registerPrompt(${name})`);
    const completer = Object.keys(fns).length ? this.#completer(fns) : undefined;
    const native = nativeDef('prompt', def);
    let done;
    try {
      done = this.#native.addPrompt(native, invoke, completer, timeoutMs, scopesOf(`registerPrompt(${name})`, config), this.#origin, values);
    } catch (e) {
      throw fromNative(e);
    }
    if (done !== 'skip') this.#prompts.set(name, entry);
    return registered(entry, () => this.removePrompt(name));
  }

  /** Shorthand: `prompt(name, handler)`, `prompt(name, description, handler)`, `prompt(name, description, argsSchema, handler)`. */
  prompt(name, ...rest) {
    const handler = rest.pop();
    const config = {};
    if (typeof rest[0] === 'string') config.description = rest.shift();
    if (rest.length) config.argsSchema = rest.shift();
    return this.registerPrompt(name, config, handler);
  }

  removePrompt(name) {
    this.#prompts.delete(name);
    return this.#native.removePrompt(name);
  }

  #runPrompt(entry, args, id) {
    const ctx = new Context(this.#calls, id);
    const fail = (e) => failure(this.#opts, `prompt ${JSON.stringify(entry.name)}`, e);
    const ok = (v) => {
      try {
        return { result: results.normalizePromptResult(v) };
      } catch (e) {
        return fail(e);
      }
    };
    let out;
    try {
      args = args ?? {};
      if (entry.zod) {
        const parsed = entry.zod.safeParse(args);
        if (!parsed.success) return invalidArguments(parsed.error);
        args = parsed.data;
      }
      out = entry.hasArgs || entry.handler.length >= 2 ? entry.handler(args, ctx) : entry.handler(ctx);
    } catch (e) {
      return fail(e);
    }
    return isThenable(out) ? Promise.resolve(out).then(ok, fail) : ok(out);
  }

  /** One native completion callback dispatching on the argument name. */
  #completer(byArgument) {
    return (argument, value, contextArgs, id) => {
      if (!this.#calls.native.claim(id)) return undefined;
      const fn = byArgument[argument];
      if (!fn) return { result: { values: [] } };
      const ctx = new Context(this.#calls, id);
      const fail = (e) => failure(this.#opts, `completion for ${JSON.stringify(argument)}`, e);
      const ok = (v) => {
        try {
          const out = results.normalizeCompletion(v);
        // The TS SDK (v1 and v2) always gives total and hasMore; the core caps the values at 100.
        if (this.#opts.sdk) {
          out.total = out.total ?? out.values.length;
          out.hasMore = out.hasMore ?? out.values.length > 100;
        }
        return { result: out };
        } catch (e) {
          return fail(e);
        }
      };
      let out;
      try {
        out = fn(value, { arguments: contextArgs ?? {}, ctx });
      } catch (e) {
        return fail(e);
      }
      return this.#answer(id, isThenable(out) ? Promise.resolve(out).then(ok, fail) : ok(out));
    };
  }

  /**
   * Run a call's handler unless the call ended while it waited for the JS thread (its client
   * cancelled or went away, or it timed out): nothing waits for that answer. (Tool calls are
   * checked natively, where the dispatcher takes its batch.)
   */
  #run(id, run) {
    return this.#calls.native.claim(id) ? this.#answer(id, run()) : undefined;
  }

  /**
   * Hand call `id`'s envelope to the core (`wire`): returned when the handler answered
   * synchronously; else `undefined` now and `settle(id, ...)` when it settles.
   */
  #answer(id, out) {
    if (!isThenable(out)) return wire(out);
    const calls = this.#calls;
    out.then((envelope) => calls.settle(id, wire(envelope)), () => calls.settle(id, null));
    return undefined;
  }

  // ---------------------------------------------------------------- running

  /**
   * Serve Streamable HTTP. Resolves once bound, with `{ host, port, url }` (on a Unix socket also
   * `uds`, its path, and `url` is what to request over it). The process stays alive until `close()`.
   * @param {{ host?: string, port?: number, path?: string, [k: string]: unknown }} [options]
   */
  async listen(options = {}) {
    // Defaults (127.0.0.1:8000, /mcp) and the constructor's options are applied natively.
    const cfg = options;
    let running;
    try {
      running = await this.#native.listenHttp(cfg);
    } catch (e) {
      throw fromNative(e);
    }
    this.#track('http', running.wait());
    if (running.uds != null) return { host: 'localhost', port: 0, url: `http://localhost${running.path}`, uds: running.uds };
    const host = running.host.includes(':') ? `[${running.host}]` : running.host;
    return { host: running.host, port: running.port, url: `http://${host}:${running.port}${running.path}` };
  }

  /**
   * Serve on stdin/stdout (newline-delimited JSON-RPC). Resolves when stdin
   * reaches EOF or `close()` is called. Write your own diagnostics to stderr.
   */
  async serveStdio() {
    let done;
    try {
      done = this.#native.serveStdio();
    } catch (e) {
      throw fromNative(e);
    }
    await this.#track('stdio', done);
  }

  #track(kind, done) {
    markServing();
    const p = Promise.resolve(done).catch((e) => { throw fromNative(e); }).finally(() => {
      this.#running.delete(p);
      if (this.#running.size === 0) this.#uninstallSignals();
    });
    this.#running.add(p);
    this.#installSignals();
    return p;
  }

  #installSignals() {
    if (!this.#opts.handleSignals || this.#signalHandler) return;
    this.#signalHandler = (sig) => {
      this.close().catch((e) => process.stderr.write(`oxmcp: close on ${sig} failed: ${e}\n`));
    };
    process.on('SIGINT', this.#signalHandler);
    process.on('SIGTERM', this.#signalHandler);
  }

  #uninstallSignals() {
    if (!this.#signalHandler) return;
    process.off('SIGINT', this.#signalHandler);
    process.off('SIGTERM', this.#signalHandler);
    this.#signalHandler = undefined;
  }

  /** Stop every transport this server runs; in-flight requests are cancelled after a grace period. */
  async close() {
    if (!this.#closing) {
      this.#closing = (async () => {
        try {
          await this.#native.close();
        } catch (e) {
          throw fromNative(e);
        }
        await Promise.allSettled([...this.#running]);
        this.#uninstallSignals();
      })().finally(() => { this.#closing = undefined; });
    }
    return this.#closing;
  }

  /**
   * WHATWG fetch handler: mount in Hono, Workers-style hosts, or anything that speaks Request/Response.
   * `options.peer`: the client's address, when the host knows it (Deno's `info.remoteAddr.hostname`,
   * Bun's `server.requestIP(req).address`); it keys the failed-authentication limit.
   * @param {Request} request
   * @param {{ peer?: string }} [options]
   */
  fetch(request, options) {
    return require('./http.cjs').fetchHandler(this.#native, request, { peer: options?.peer });
  }

  /**
   * A Node `http` / Express handler: `http.createServer(server.nodeHandler())`
   * or `app.all('/mcp', server.nodeHandler())`.
   */
  nodeHandler(options) {
    // Listener options configure the mount over configureHttp's, each checked by the core.
    if (options && Object.keys(options).length) this.configureHttp({ ...this.#mountOptions, ...options });
    return require('./http.cjs').nodeHandler(this.#native);
  }

  /** An in-memory client for tests: requests go through the same HTTP handler as `fetch`. */
  client(options) {
    const { InMemoryClient } = require('./client.cjs');
    return new InMemoryClient(this, options);
  }
}

module.exports = { Server, ResourceTemplate, completable, hasCompleters, SDK_SHAPES, SESSIONLESS, PASSED_AUTH, servingStarted, markServing };
