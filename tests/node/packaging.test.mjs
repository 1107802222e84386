// The npm layout: the platform table the loader and the pack script share, and the packages
// bindings-node/scripts/pack.cjs writes (scripts/release-local.sh installs and runs them).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { ROOT } from './helpers.mjs';

const require = createRequire(import.meta.url);
const { PLATFORMS, platformKey } = require('../../bindings-node/lib/platforms.cjs');
const PACK = path.join(ROOT, 'bindings-node', 'scripts', 'pack.cjs');
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));

test('platform keys: one per prebuilt package, and the key for each process', () => {
  assert.deepEqual(Object.keys(PLATFORMS).sort(), ['darwin-arm64', 'darwin-x64', 'linux-arm64-gnu', 'linux-arm64-musl', 'linux-x64-gnu', 'linux-x64-musl', 'win32-x64-msvc']);
  assert.equal(platformKey({ platform: 'linux', arch: 'x64', libc: 'glibc' }), 'linux-x64-gnu');
  assert.equal(platformKey({ platform: 'linux', arch: 'arm64', libc: 'musl' }), 'linux-arm64-musl');
  assert.equal(platformKey({ platform: 'darwin', arch: 'arm64' }), 'darwin-arm64');
  assert.equal(platformKey({ platform: 'win32', arch: 'x64' }), 'win32-x64-msvc');
  assert.equal(platformKey({ platform: 'freebsd', arch: 'x64' }), 'freebsd-x64');
  for (const [key, p] of Object.entries(PLATFORMS)) assert.equal(platformKey({ platform: p.os, arch: p.cpu, libc: p.libc }), key);
});

function tarJson(tgz) {
  const r = spawnSync('tar', ['-xzOf', tgz, 'package/package.json'], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

test('pack.cjs: a root package with no binary, optionalDependencies on every platform; a platform package', () => {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'oxmcp-pack-'));
  try {
    let r = spawnSync(process.execPath, [PACK, 'root', '--out', out], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    const rootTgz = r.stdout.trim();
    const list = spawnSync('tar', ['-tzf', rootTgz], { encoding: 'utf8' }).stdout.split('\n');
    assert.equal(list.filter((f) => f.endsWith('.node')).length, 0, list.join('\n'));
    for (const f of ['package/bindings-node/index.cjs', 'package/bindings-node/lib/native.cjs', 'package/bindings-node/cli/main.mjs', 'package/LICENSE-MIT']) assert.ok(list.includes(f), f);
    const root = tarJson(rootTgz);
    assert.equal(root.version, pkg.version);
    assert.deepEqual(root.optionalDependencies, Object.fromEntries(Object.keys(PLATFORMS).map((k) => [`@oxmcp/${k}`, pkg.version])));
    assert.equal(root.scripts, undefined); // no `prepare`: nothing builds on install
    assert.equal(root.devDependencies, undefined);
    assert.deepEqual(root.bin, { oxmcp: 'bindings-node/cli/main.mjs' });

    const fake = path.join(out, 'fake.node');
    fs.writeFileSync(fake, 'not really a binary');
    r = spawnSync(process.execPath, [PACK, 'platform', 'linux-arm64-musl', fake, '--out', out], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    const plat = tarJson(r.stdout.trim());
    assert.equal(plat.name, '@oxmcp/linux-arm64-musl');
    assert.equal(plat.version, pkg.version);
    assert.deepEqual([plat.os, plat.cpu, plat.libc, plat.main], [['linux'], ['arm64'], ['musl'], 'oxmcp.linux-arm64-musl.node']);
    r = spawnSync(process.execPath, [PACK, 'platform', 'plan9-x64', fake, '--out', out], { encoding: 'utf8' });
    assert.equal(r.status, 1);
    assert.match(r.stderr, /unknown platform plan9-x64/);
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
});

// zod is an optional peer, with the TS SDK 1.x's range: a project on zod 3 (3.25+) or zod 4 installs
// the packed tarballs as they are (npm refuses a peer range that excludes the project's zod with
// ERESOLVE) and loads oxmcp with its own zod. The platform package holds a stand-in binary: the
// JS layer loads the native module on first use, not on require.
test('the packed root installs into projects on zod 3 and on zod 4', { timeout: 180_000 }, () => {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'oxmcp-peer-'));
  const npm = (cwd, ...args) => {
    const r = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', ...args], { cwd, encoding: 'utf8', shell: process.platform === 'win32' });
    assert.equal(r.status, 0, `npm install ${args.join(' ')} in ${cwd}:\n${r.stderr}`);
  };
  try {
    let r = spawnSync(process.execPath, [PACK, 'root', '--out', out], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    const rootTgz = r.stdout.trim();
    const fake = path.join(out, 'fake.node');
    fs.writeFileSync(fake, 'not really a binary');
    r = spawnSync(process.execPath, [PACK, 'platform', platformKey(), fake, '--out', out], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    const platformTgz = r.stdout.trim();
    for (const [major, range] of [[3, '~3.25.0'], [4, '^4.0.0']]) {
      const home = path.join(out, `zod${major}`);
      fs.mkdirSync(home);
      fs.writeFileSync(path.join(home, 'package.json'), JSON.stringify({ name: `zod${major}-project`, version: '0.0.0', private: true, dependencies: { zod: range } }));
      npm(home);
      npm(home, rootTgz, platformTgz);
      r = spawnSync(process.execPath, ['-e', "const o = require('oxmcp'); require('oxmcp/server/mcp.js'); console.log(typeof o.McpServer, require('zod/package.json').version)"], { cwd: home, encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
      assert.match(r.stdout, new RegExp(`^function ${major}\\.`));
    }
    // The TS SDK 1.x's range, optional (a server of JSON Schema tools needs no zod).
    assert.equal(tarJson(rootTgz).peerDependencies.zod, '^3.25 || ^4.0');
    assert.deepEqual(tarJson(rootTgz).peerDependenciesMeta.zod, { optional: true });
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
});
