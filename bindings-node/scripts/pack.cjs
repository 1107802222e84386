#!/usr/bin/env node
'use strict';
// Stages and packs the npm packages, as napi-rs projects publish them:
//   node bindings-node/scripts/pack.cjs root [--out dist]
//       the root `oxmcp` package: the JS layer, the CLI and the typings, no binary, no build
//       script, and optionalDependencies on every @oxmcp/<platform> package at this version
//   node bindings-node/scripts/pack.cjs platform KEY FILE.node [--out dist]
//       @oxmcp/KEY (lib/platforms.cjs) with FILE.node as oxmcp.KEY.node
// Each stages into OUT/npm/<name>/ and runs `npm pack` there; the tarball lands in OUT and its
// path is printed. scripts/release-local.sh and .github/workflows/release.yml both call this.
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { PLATFORMS, SCOPE } = require('../lib/platforms.cjs');

const root = path.resolve(__dirname, '..', '..');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));

function die(msg) {
  console.error(`pack: error: ${msg}`);
  process.exit(1);
}

const argv = process.argv.slice(2);
let out = path.join(root, 'dist');
const i = argv.indexOf('--out');
if (i !== -1) {
  out = path.resolve(argv[i + 1]);
  argv.splice(i, 2);
}

function npmPack(dir) {
  const r = spawnSync('npm', ['pack', '--json', '--pack-destination', out], { cwd: dir, encoding: 'utf8', shell: process.platform === 'win32' });
  if (r.status !== 0) die(`npm pack in ${dir} failed:\n${r.stderr}`);
  const [info] = JSON.parse(r.stdout);
  console.log(path.join(out, info.filename));
}

function stage(name) {
  const dir = path.join(out, 'npm', name.replace('/', '__'));
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

/** The package.json "files" globs (`dir/`, `dir/*.ext`) resolved against the checkout. */
function listFiles(globs) {
  const files = [];
  for (const g of globs) {
    if (g.endsWith('/')) {
      const walk = (d) => {
        for (const e of fs.readdirSync(path.join(root, d), { withFileTypes: true })) {
          const rel = path.join(d, e.name);
          if (e.isDirectory()) walk(rel);
          else files.push(rel);
        }
      };
      if (fs.existsSync(path.join(root, g))) walk(g.slice(0, -1));
    } else if (g.includes('*')) {
      const dir = path.dirname(g);
      const re = new RegExp(`^${path.basename(g).replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`);
      for (const f of fs.readdirSync(path.join(root, dir))) if (re.test(f)) files.push(path.join(dir, f));
    } else if (fs.existsSync(path.join(root, g))) {
      files.push(g);
    }
  }
  return files;
}

const common = { version: pkg.version, license: pkg.license, repository: pkg.repository, engines: pkg.engines };

if (argv[0] === 'root') {
  const dir = stage(pkg.name);
  // No binary and no build script: the platform package brings the binary.
  const files = listFiles(pkg.files).filter((f) => !f.endsWith('.node') && !f.startsWith(path.join('bindings-node', 'scripts')));
  for (const f of files) {
    fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    fs.copyFileSync(path.join(root, f), path.join(dir, f));
  }
  for (const f of ['README.md', 'LICENSE-MIT', 'LICENSE-APACHE']) if (fs.existsSync(path.join(root, f))) fs.copyFileSync(path.join(root, f), path.join(dir, f));
  const published = { ...pkg };
  delete published.devDependencies;
  delete published.scripts;
  published.files = [...pkg.files.filter((f) => !f.endsWith('.node') && !f.startsWith('bindings-node/scripts')), 'LICENSE-MIT', 'LICENSE-APACHE'];
  published.optionalDependencies = Object.fromEntries(Object.keys(PLATFORMS).map((k) => [`${SCOPE}/${k}`, pkg.version]));
  fs.writeFileSync(path.join(dir, 'package.json'), `${JSON.stringify(published, null, 2)}\n`);
  npmPack(dir);
} else if (argv[0] === 'platform') {
  const [, key, nodeFile] = argv;
  const p = PLATFORMS[key];
  if (!p) die(`unknown platform ${key}; known: ${Object.keys(PLATFORMS).join(', ')}`);
  if (!nodeFile || !fs.existsSync(nodeFile)) die(`no such .node file: ${nodeFile}`);
  const name = `${SCOPE}/${key}`;
  const dir = stage(name);
  const binary = `oxmcp.${key}.node`;
  fs.copyFileSync(nodeFile, path.join(dir, binary));
  for (const f of ['LICENSE-MIT', 'LICENSE-APACHE']) fs.copyFileSync(path.join(root, f), path.join(dir, f));
  const manifest = {
    name,
    ...common,
    description: `The oxmcp native module for ${key} (installed by the oxmcp package)`,
    os: [p.os],
    cpu: [p.cpu],
    ...(p.libc && { libc: [p.libc] }),
    main: binary,
    files: [binary, 'LICENSE-MIT', 'LICENSE-APACHE'],
  };
  fs.writeFileSync(path.join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  fs.writeFileSync(path.join(dir, 'README.md'), `# ${name}\n\nThe prebuilt native module of [oxmcp](https://www.npmjs.com/package/oxmcp) for \`${key}\` (Rust target \`${p.rust}\`). Install \`oxmcp\`, not this package.\n`);
  npmPack(dir);
} else {
  die('usage: pack.cjs root | platform KEY FILE.node  [--out DIR]');
}
