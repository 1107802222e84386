'use strict';
/**
 * Loads the generated native module (`oxmcp.node`, built by `npm install`
 * through @napi-rs/cli). `OXMCP_NATIVE` overrides the path.
 */
const path = require('node:path');
const fs = require('node:fs');

let cached;

function loadNative() {
  if (cached) return cached;
  const candidates = [
    process.env.OXMCP_NATIVE,
    path.join(__dirname, '..', 'oxmcp.node'),
    path.join(__dirname, '..', `oxmcp.${process.platform}-${process.arch}.node`),
  ].filter(Boolean);
  const errors = [];
  for (const file of candidates) {
    if (!fs.existsSync(file)) continue;
    let native;
    try {
      native = require(file);
    } catch (e) {
      errors.push(`${file}: ${e.message}`);
      continue;
    }
    if (typeof native.initTelemetry !== 'function') {
      // A module built from older sources: say so rather than fall back to another file.
      const e = new Error(`oxmcp: ${file} is older than this JS layer; rebuild it (\`npm run build:native\`)`);
      e.code = 'NATIVE_OUTDATED';
      throw e;
    }
    // OXMCP_LOG / OXMCP_LOG_FORMAT and the OTEL_* variables (see docs/SECURITY.md); spans still
    // queued for export are sent before the process exits.
    native.initTelemetry();
    process.once('exit', () => native.flushTelemetry());
    cached = native;
    return cached;
  }
  const e = new Error(
    `oxmcp: the native module is not built (looked for ${candidates.join(', ')}). ` +
    `Run \`npm install\` (or \`npm run build:native\`) in the oxmcp checkout; it needs a Rust toolchain.` +
    (errors.length ? `\n${errors.join('\n')}` : ''),
  );
  e.code = 'NATIVE_NOT_BUILT';
  throw e;
}

module.exports = { loadNative };
