#!/usr/bin/env node
'use strict';
// Builds the native module (bindings-node/oxmcp.node) with cargo, and its typings (native.d.ts)
// with @napi-rs/cli. Run by the root
// package.json's `prepare` script, i.e. by `npm install` in a checkout.
//   OXMCP_NATIVE_PROFILE=debug   faster build, slower server (default: release; debug when CI
//                                is set, since CI runs the tests, not benchmarks, on 2 shared cores)
//   OXMCP_SKIP_NATIVE_BUILD=1    skip (e.g. when a prebuilt oxmcp.node is already in place)
//   OXMCP_HOT_CODE_LD=FILE       link with a hot-code linker script made for this build
//                                (bindings-node/build.rs, scripts/hot-code.py)
// First it writes index.d.cts / index.d.mts from index.d.ts (scripts/gen-dts.cjs).
const { spawnSync } = require('node:child_process');
const path = require('node:path');
const fs = require('node:fs');
const { pathToFileURL } = require('node:url');

const root = path.resolve(__dirname, '..', '..');
// The typings of the CommonJS and ESM entries, from the one source (even without a native build).
require('./gen-dts.cjs').generate();
if (process.env.OXMCP_SKIP_NATIVE_BUILD === '1') {
  console.error('oxmcp: OXMCP_SKIP_NATIVE_BUILD=1, not building the native module');
  process.exit(0);
}
if (!fs.existsSync(path.join(root, 'node_modules', '@napi-rs', 'cli', 'dist', 'index.js'))) {
  console.error('oxmcp: @napi-rs/cli is not installed (a devDependency); run `npm install` in the checkout');
  process.exit(1);
}
const defaultProfile = process.env.CI && process.env.CI !== 'false' ? 'debug' : 'release';
const release = (process.env.OXMCP_NATIVE_PROFILE || defaultProfile) !== 'debug';
console.error(`oxmcp: building the native module (${release ? 'release' : 'debug'}) …`);

// Plain `cargo build` for the host, with napi-derive's type-definition output switched on as
// `napi build` switches it on. `napi build` always passes `--target <host triple>`, which puts
// every dependency in target/<triple>/ apart from target/debug/, so a checkout compiled the whole
// dependency tree once for the Python binding and `cargo test` and a second time for this addon.
const typeDefDir = path.join(process.env.CARGO_TARGET_DIR || path.join(root, 'target'), 'napi-rs', 'oxmcp-node-type-defs');
fs.mkdirSync(typeDefDir, { recursive: true });
/** @type {NodeJS.ProcessEnv} */
const env = { ...process.env, NAPI_TYPE_DEF_TMP_FOLDER: typeDefDir };
// napi-derive writes a crate's definitions only while it compiles the crate: without them, force it.
if (!fs.existsSync(path.join(typeDefDir, 'oxmcp-node'))) env.NAPI_FORCE_BUILD_OXMCP_NODE = String(Date.now());
const cargoArgs = ['build', '--manifest-path', path.join('bindings-node', 'Cargo.toml'), '--lib',
  '--message-format=json-render-diagnostics'];
if (release) cargoArgs.push('--release');
const r = spawnSync('cargo', cargoArgs, { cwd: root, env, stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 256 << 20 });
if (r.status !== 0) {
  console.error(`oxmcp: native build failed (exit ${r.status ?? r.signal}); it needs a Rust toolchain (cargo) on PATH`);
  process.exit(r.status ?? 1);
}
// The cdylib's path, from cargo's own report of what it built.
const built = String(r.stdout).split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l))
  .filter((m) => m.reason === 'compiler-artifact' && m.target.kind.includes('cdylib'))
  .flatMap((m) => m.filenames).find((f) => /\.(so|dylib|dll)$/.test(f));
if (!built) {
  console.error('oxmcp: cargo reported no cdylib for bindings-node');
  process.exit(1);
}
fs.copyFileSync(built, path.join(root, 'bindings-node', 'oxmcp.node'));

// native.d.ts from the definitions napi-derive wrote, rendered by @napi-rs/cli as `napi build --dts` does.
import(pathToFileURL(path.join(root, 'node_modules', '@napi-rs', 'cli', 'dist', 'index.js')).href)
  .then(({ generateTypeDef }) => generateTypeDef({ typeDefDir, cwd: root, declareBindingTarget: false }))
  .then(({ dts }) => fs.writeFileSync(path.join(root, 'bindings-node', 'native.d.ts'), dts))
  .catch((e) => {
    console.error(`oxmcp: writing bindings-node/native.d.ts failed: ${e.stack || e}`);
    process.exit(1);
  });
