#!/usr/bin/env node
'use strict';
// Builds the native module (bindings-node/oxmcp.node) with @napi-rs/cli. Run by the root
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

const root = path.resolve(__dirname, '..', '..');
// The typings of the CommonJS and ESM entries, from the one source (even without a native build).
require('./gen-dts.cjs').generate();
if (process.env.OXMCP_SKIP_NATIVE_BUILD === '1') {
  console.error('oxmcp: OXMCP_SKIP_NATIVE_BUILD=1, not building the native module');
  process.exit(0);
}
const cli = path.join(root, 'node_modules', '@napi-rs', 'cli', 'dist', 'cli.js');
if (!fs.existsSync(cli)) {
  console.error('oxmcp: @napi-rs/cli is not installed (a devDependency); run `npm install` in the checkout');
  process.exit(1);
}
const defaultProfile = process.env.CI && process.env.CI !== 'false' ? 'debug' : 'release';
const release = (process.env.OXMCP_NATIVE_PROFILE || defaultProfile) !== 'debug';
const args = [
  cli, 'build',
  '--manifest-path', path.join('bindings-node', 'Cargo.toml'),
  '--package-json-path', 'package.json',
  '--output-dir', 'bindings-node',
  '--no-js',
  '--dts', 'native.d.ts',
];
if (release) args.push('--release');
console.error(`oxmcp: building the native module (${release ? 'release' : 'debug'}) …`);
const r = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
if (r.status !== 0) {
  console.error(`oxmcp: native build failed (exit ${r.status ?? r.signal}); it needs a Rust toolchain (cargo) on PATH`);
  process.exit(r.status ?? 1);
}
