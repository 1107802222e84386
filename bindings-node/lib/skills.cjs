'use strict';
/**
 * The Skills extension (`io.modelcontextprotocol/skills`) for Node: conversions only. Every rule
 * (names, paths, limits, frontmatter, the loader's refusal of symlinks and special files) is the
 * core's; a broken skill throws a `RegistrationError` (`INVALID_DEFINITION`) naming the file and
 * the rule.
 */
const { loadNative } = require('./native.cjs');
const { fromNative } = require('./errors.cjs');

const SKILLS_EXTENSION_ID = 'io.modelcontextprotocol/skills';

/** `{ 'SKILL.md': text, 'ref/a.md': bytes }` -> the native file list. */
function fileList(files) {
  if (files === null || typeof files !== 'object') throw new TypeError('skill files must be an object of path -> string | Uint8Array');
  return Object.entries(files).map(([path, content]) => {
    if (typeof content === 'string') return { path, bytes: Buffer.from(content, 'utf8') };
    if (content instanceof Uint8Array) return { path, bytes: Buffer.from(content.buffer, content.byteOffset, content.byteLength) };
    throw new TypeError(`skill file ${JSON.stringify(path)} must be a string or a Uint8Array`);
  });
}

function native(fn) {
  try {
    return fn(loadNative());
  } catch (e) {
    throw fromNative(e);
  }
}

/** Every skill below the directory `root` (the core's loader). */
function loadDir(root, prefix) {
  return native((n) => n.skillsLoadDir(String(root), prefix));
}

/** One skill from its own directory (the core's loader), served at `path` (default: its name). */
function loadOne(dir, path) {
  return native((n) => n.skillLoadOne(String(dir), path));
}

/** Every skill in a tree of files (relative path -> content). */
function fromTree(files, prefix) {
  return native((n) => n.skillsFromTree(fileList(files), prefix));
}

/** One skill from its own files, served at `path`. */
function skillOf(path, files) {
  return native((n) => n.skillOf(String(path), fileList(files)));
}

/** The entry `skills/list` carries for a native skill. */
function entryOf(skill) {
  return JSON.parse(skill.entryJson);
}

/** What a dynamic skill's read callback returned, as `resources/read` contents. */
function toContents(uri, value, mimeType) {
  const mt = mimeType === undefined ? {} : { mimeType };
  if (typeof value === 'string') return { contents: [{ uri, ...mt, text: value }] };
  if (value instanceof Uint8Array) return { contents: [{ uri, ...mt, blob: Buffer.from(value).toString('base64') }] };
  if (value && typeof value === 'object' && 'text' in value) return { contents: [{ uri, mimeType: value.mimeType ?? mimeType, text: value.text }] };
  if (value && typeof value === 'object' && 'bytes' in value) {
    return { contents: [{ uri, mimeType: value.mimeType ?? mimeType, blob: Buffer.from(value.bytes).toString('base64') }] };
  }
  return value;
}

module.exports = { SKILLS_EXTENSION_ID, fileList, loadDir, loadOne, fromTree, skillOf, entryOf, toContents };
