// The addon's hot code: on x86_64 Linux (glibc), build-native.cjs links the addon with
// bindings-node/hot-code.ld (bindings-node/build.rs, OXMCP_HOT_CODE=1), which puts the functions
// that start-up and the calls run together in `.text.hot`, so that a server maps few of the
// file's code pages (docs/PERFORMANCE.md, "Hot code together"). Every other test here runs on that
// addon; this one checks the placement itself, and that the script still names today's code.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { ROOT } from './helpers.mjs';

const require = createRequire(import.meta.url);
const { platformKey } = require('../../bindings-node/lib/platforms.cjs');
const ADDON = process.env.OXMCP_NATIVE || path.join(ROOT, 'bindings-node', 'oxmcp.node');
const SCRIPT = path.join(ROOT, 'bindings-node', 'hot-code.ld');
const onTarget = platformKey() === 'linux-x64-gnu';

function run(cmd, args) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 1 << 30 });
  assert.equal(r.status, 0, `${cmd} ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

/** The same hash-free form as hot-code.py's `glob`. */
function glob(symbol) {
  return symbol.replace(/17h[0-9a-f]{16}E/g, '17h*E').replace(/Cs[0-9A-Za-z]+_/g, 'Cs*_').replace(/\.llvm\.\d+$/, '.llvm.*');
}

test('hot code: .text.hot holds the functions hot-code.ld names, and next to none is left outside', {
  skip: !onTarget && 'hot-code.ld is for x86_64-unknown-linux-gnu only',
}, () => {
  const hot = run('readelf', ['-SW', ADDON]).split('\n')
    .map((l) => l.match(/\]\s+\.text\.hot\s+PROGBITS\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)/))
    .find(Boolean);
  assert.ok(hot, `${ADDON} has no .text.hot section: was it built without OXMCP_HOT_CODE=1 (build-native.cjs sets it)?`);
  const lo = parseInt(hot[1], 16);
  const hi = lo + parseInt(hot[2], 16);

  const rules = fs.readFileSync(SCRIPT, 'utf8').split('\n').map((l) => l.match(/^\s+\*\(\.text\*\.(\S+)\)$/)?.[1]).filter(Boolean);
  const globs = new Set(rules.filter((r) => r.includes('*')));
  assert.ok(globs.size > 500, `hot-code.ld has ${globs.size} glob rules`);

  const inside = new Set();
  const outside = [];
  for (const line of run('nm', ['--defined-only', ADDON]).split('\n')) {
    const [addr, kind, name] = line.split(' ');
    if (!name || !'tTwW'.includes(kind)) continue;
    const g = glob(name);
    if (!globs.has(g)) continue;
    const a = parseInt(addr, 16);
    if (a >= lo && a < hi) inside.add(g);
    // A Rust function sits in a section of its own, so the linker placed the ones that matched
    // (a precompiled std object may hold a copy in a shared section: a few, not many).
    else if (/^_(ZN|R)/.test(name)) outside.push(name);
  }
  assert.ok(inside.size > 0 && outside.length < 0.01 * inside.size,
    `${outside.length} functions the script names are outside .text.hot, ${inside.size} in it: ${outside.slice(0, 3).join(', ')}`);
  // Most of the named functions still exist: when the code has moved on, rewrite the script
  // (scripts/hot-code.py says how) rather than lower this.
  assert.ok(inside.size >= 0.8 * globs.size,
    `only ${inside.size} of hot-code.ld's ${globs.size} functions are in ${ADDON}: rerun scripts/hot-code.py`);
});
