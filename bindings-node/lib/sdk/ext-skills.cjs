'use strict';
/**
 * `oxmcp/ext/skills`: the TS SDK's `@modelcontextprotocol/server/ext/skills` exports over oxmcp's
 * core. `SkillsExtension.load(files)` builds a catalog through a `SkillFiles` adapter
 * (`memorySkillFiles`, `nodeSkillFiles`, or your own); `catalog.attach(mcp)` serves it: every file
 * a `skill://` resource, `skills/list`, `skills/get` and `resources/directory/read`, the capability
 * declared. The core checks every skill when the catalog is built and serves the bytes it hashed.
 *
 * What differs from the SDK, on purpose (docs/SKILLS.md): a broken skill always throws (the SDK's
 * `strict: true`), since the core never serves a skill a host would reject; a catalog is read once
 * (`reload()` rejects: restart to serve changed files); and `new SkillsExtension({ source })` - a
 * per-request `SkillSource` - is refused, as the core answers the skills methods itself.
 */
const skills = require('../skills.cjs');
const { RegistrationError } = require('../errors.cjs');

const SKILLS_EXTENSION_ID = skills.SKILLS_EXTENSION_ID;
const SKILLS_LIST_METHOD = 'skills/list';
const SKILLS_GET_METHOD = 'skills/get';
const RESOURCES_DIRECTORY_READ_METHOD = 'resources/directory/read';
const DIRECTORY_MIME_TYPE = 'inode/directory';
const SKILL_LIMITS = Object.freeze({ files: 512, bytes: 16 * 1024 * 1024 });

/** Thrown when a catalog cannot be built: `problems` name the file (`path`) and the rule. */
class SkillCatalogError extends Error {
  constructor(problems) {
    const lines = problems.map((p) => `  ${p.path}: ${p.message}`).join('\n');
    super(`${problems.length} skill problem${problems.length === 1 ? '' : 's'}:\n${lines}`);
    this.name = 'SkillCatalogError';
    this.problems = problems;
  }
  static isInstance(value) {
    return value instanceof SkillCatalogError;
  }
}

/** The core's error for a broken skill, as the SDK reports it. */
function catalogError(e) {
  const m = /invalid skill file '([^']*)': (.*)$/s.exec(String(e && e.message));
  return new SkillCatalogError([{ path: m ? m[1] : '.', message: m ? m[2] : String(e && e.message) }]);
}

const NODE_ROOT = Symbol('oxmcp.nodeSkillFilesRoot');

/** An in-memory `SkillFiles` adapter over `{ path: string | Uint8Array }`. */
function memorySkillFiles(files) {
  const index = () => {
    const dirs = new Map([['', new Map()]]);
    for (const key of Object.keys(files)) {
      const parts = key.split('/').filter((s) => s !== '' && s !== '.');
      let dir = '';
      parts.forEach((name, i) => {
        let children = dirs.get(dir);
        if (children === undefined) {
          children = new Map();
          dirs.set(dir, children);
        }
        children.set(name, { name, kind: i < parts.length - 1 ? 'directory' : 'file' });
        dir = dir === '' ? name : `${dir}/${name}`;
      });
    }
    return dirs;
  };
  return {
    async list(dir) {
      const children = index().get(dir);
      if (children === undefined) {
        if (dir === '') return [];
        throw new Error(`no such directory: ${dir}`);
      }
      return [...children.values()].map((e) => ({ ...e }));
    },
    async read(path) {
      const content = files[path];
      if (content === undefined) throw new Error(`no such file: ${path}`);
      return typeof content === 'string' ? new TextEncoder().encode(content) : content;
    },
  };
}

/** Read every file an adapter holds (hidden entries skipped, as the SDK does). */
async function walk(files) {
  const out = {};
  const visit = async (dir, depth) => {
    if (depth > 32) throw new SkillCatalogError([{ path: dir, message: 'directories nest deeper than 32 levels' }]);
    let entries;
    try {
      entries = await files.list(dir);
    } catch (e) {
      throw new SkillCatalogError([{ path: dir === '' ? '.' : dir, message: `cannot be listed: ${e && e.message}` }]);
    }
    for (const entry of entries) {
      if (entry.name.startsWith('.')) continue;
      const path = dir === '' ? entry.name : `${dir}/${entry.name}`;
      if (entry.kind === 'directory') await visit(path, depth + 1);
      else if (entry.kind === 'file') {
        try {
          out[path] = await files.read(path);
        } catch (e) {
          throw new SkillCatalogError([{ path, message: `cannot be read: ${e && e.message}` }]);
        }
      } else throw new SkillCatalogError([{ path, message: 'is a symlink or a special file; skills do not follow them (copy the file instead)' }]);
    }
  };
  await visit('', 0);
  return out;
}

/**
 * The Skills extension for one catalog. Build it with `SkillsExtension.load(files, options)`, then
 * `attach(mcp)` on every server that should serve it (before connecting).
 */
class SkillsExtension {
  id = SKILLS_EXTENSION_ID;
  /** @type {Array<{ path: string, files: unknown[], entryJson: string }>} */
  #native;

  constructor(options) {
    if (options && options.source !== undefined) {
      throw new RegistrationError('new SkillsExtension({ source }) is not supported by oxmcp: the core answers skills/list and '
        + 'skills/get itself; build the catalog with SkillsExtension.load(files) or loadSkills(root) (docs/SKILLS.md)', 'INVALID_DEFINITION');
    }
    if (!options || !Array.isArray(options[NATIVE])) throw new TypeError('use SkillsExtension.load(files, options) to build a catalog');
    this.#native = options[NATIVE];
  }

  static load(files, options) {
    return SkillCatalog.load(files, options);
  }

  /** Serve the catalog on `mcp` (an oxmcp `McpServer` or `Server`); again for the same server does nothing. */
  attach(mcp) {
    if (!mcp || typeof mcp.addNativeSkills !== 'function') throw new TypeError('attach(mcp): mcp must be an oxmcp McpServer or Server');
    if (ATTACHED.has(mcp)) {
      if (ATTACHED.get(mcp) === this) return;
      throw new Error('another skills extension is already attached to this server; attach one per server');
    }
    if (this.#native.length > 0) mcp.addNativeSkills(this.#native);
    ATTACHED.set(mcp, this);
  }
}

const NATIVE = Symbol('oxmcp.nativeSkills');
const ATTACHED = new WeakMap();

/** A catalog built from storage: metadata checked and hashed by the core, served as read. */
class SkillCatalog extends SkillsExtension {
  #entries;

  constructor(list) {
    super({ [NATIVE]: list });
    this.#entries = Object.freeze(list.map((s) => deepFreeze(skills.entryOf(s))).sort((a, b) => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0)));
  }

  static async load(files, options = {}) {
    const limits = options.limits ?? {};
    if ((limits.files !== undefined && limits.files !== SKILL_LIMITS.files) || (limits.bytes !== undefined && limits.bytes !== SKILL_LIMITS.bytes)) {
      throw new RangeError(`limits: oxmcp serves skills within the extension's limits (${SKILL_LIMITS.files} files, ${SKILL_LIMITS.bytes} bytes)`);
    }
    let list;
    try {
      list = files && files[NODE_ROOT] !== undefined
        ? skills.loadDir(files[NODE_ROOT], options.prefix)
        : skills.fromTree(await walk(files), options.prefix);
    } catch (e) {
      if (e instanceof SkillCatalogError) throw e;
      throw catalogError(e);
    }
    return new SkillCatalog(list);
  }

  /** The skills this catalog serves, sorted by URI: exactly what clients receive. */
  get entries() {
    return this.#entries;
  }

  /** Not supported: a catalog is read once, so its digests always match what is served. */
  async reload() {
    throw new Error('SkillCatalog.reload() is not supported by oxmcp: skills are read once; restart the server to serve changed files');
  }
}

function deepFreeze(v) {
  if (v && typeof v === 'object' && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const x of Object.values(v)) deepFreeze(x);
  }
  return v;
}

/** One skill's entry (digests, sizes, frontmatter, rule checks) from its files, as the SDK's `skillEntry`. */
async function skillEntry(skillPath, files, options = {}) {
  if (options.baseUri !== undefined && options.baseUri !== 'skill://') {
    throw new RangeError('skillEntry: oxmcp serves skills under skill:// only');
  }
  try {
    return skills.entryOf(skills.skillOf(skillPath, files));
  } catch (e) {
    throw catalogError(e);
  }
}

module.exports = {
  DIRECTORY_MIME_TYPE, RESOURCES_DIRECTORY_READ_METHOD, SKILLS_EXTENSION_ID, SKILLS_GET_METHOD, SKILLS_LIST_METHOD,
  SKILL_LIMITS, SkillCatalog, SkillCatalogError, SkillsExtension, memorySkillFiles, skillEntry, NODE_ROOT,
};
