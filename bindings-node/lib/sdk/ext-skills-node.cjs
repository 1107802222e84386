'use strict';
/**
 * `oxmcp/ext/skills/node`: the TS SDK's `@modelcontextprotocol/server/ext/skills/node`. The folder
 * is read by the core's loader, which refuses symlinks, special files, non-UTF-8 names and
 * `SKILL.md` files, and never reads outside `root`.
 */
const path = require('node:path');
const { SkillsExtension, NODE_ROOT } = require('./ext-skills.cjs');

/** A `SkillFiles` adapter over a folder (the catalog reads it with the core's loader). */
function nodeSkillFiles(root) {
  const base = path.resolve(root);
  const fs = require('node:fs/promises');
  const inside = (rel) => {
    if (rel.split(/[\\/]/).includes('..')) throw new TypeError(`path must stay inside the skills folder (got ${JSON.stringify(rel)})`);
    return path.join(base, rel);
  };
  return {
    [NODE_ROOT]: base,
    async list(dir) {
      const entries = await fs.readdir(inside(dir), { withFileTypes: true });
      return entries.map((e) => ({ name: e.name, kind: e.isFile() ? 'file' : e.isDirectory() ? 'directory' : 'unsupported' }));
    },
    async read(rel) {
      const st = await fs.lstat(inside(rel));
      if (!st.isFile()) throw new Error(`${rel} is not a regular file`);
      return new Uint8Array(await fs.readFile(inside(rel)));
    },
  };
}

/** Every skill under `root` as a catalog: `SkillsExtension.load(nodeSkillFiles(root), options)`. */
function loadSkills(root, options) {
  return SkillsExtension.load(nodeSkillFiles(root), options);
}

module.exports = { loadSkills, nodeSkillFiles };
