#!/usr/bin/env node
'use strict';
// Writes bindings-node/index.d.cts and index.d.mts (the typings of the CommonJS and ESM entries)
// from bindings-node/index.d.ts, the one hand-written source. Run by build-native.cjs, i.e. by
// `npm install` in a checkout (the root package.json's `prepare`), and so before `npm pack`.
// The two outputs are not in git.
const fs = require('node:fs');
const path = require('node:path');

const dir = path.resolve(__dirname, '..');
const HEADER = '// Generated from index.d.ts by bindings-node/scripts/gen-dts.cjs: edit index.d.ts.\n';

function generate() {
  const source = fs.readFileSync(path.join(dir, 'index.d.ts'), 'utf8');
  for (const name of ['index.d.cts', 'index.d.mts']) {
    const file = path.join(dir, name);
    const text = HEADER + source;
    if (!fs.existsSync(file) || fs.readFileSync(file, 'utf8') !== text) fs.writeFileSync(file, text);
  }
}

module.exports = { generate, HEADER };
if (require.main === module) generate();
