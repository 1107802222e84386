'use strict';
/**
 * Loads the native module, first found wins:
 *   1. `OXMCP_NATIVE` (a path to a `.node` file);
 *   2. `bindings-node/oxmcp.node`, built in a checkout by `npm install` (@napi-rs/cli);
 *   3. the prebuilt `@oxmcp/<platform>` package (lib/platforms.cjs) that npm installed from the
 *      published package's optionalDependencies.
 * When none is there the error names the platform and what to do.
 */
const path = require('node:path');
const fs = require('node:fs');

let cached;

/**
 * Where to look, in order. A generator: the platform table and key (libc detection reads the
 * process report, ~6 ms of CPU at start) are loaded and worked out only when no module was found
 * before them.
 */
function* candidates() {
  if (process.env.OXMCP_NATIVE) yield { file: process.env.OXMCP_NATIVE };
  yield { file: path.join(__dirname, '..', 'oxmcp.node') };
  const { PLATFORMS, SCOPE, platformKey } = require('./platforms.cjs');
  const key = platformKey();
  yield { file: path.join(__dirname, '..', `oxmcp.${key}.node`) };
  if (PLATFORMS[key]) yield { pkg: `${SCOPE}/${key}` };
}

function resolvePackage(pkg) {
  try {
    return require.resolve(pkg);
  } catch {
    return null;
  }
}

function loadNative() {
  if (cached) return cached;
  const errors = [];
  const looked = [];
  for (const c of candidates()) {
    const file = c.pkg ? resolvePackage(c.pkg) : c.file;
    looked.push(c.pkg ?? c.file);
    if (!file || !fs.existsSync(file)) continue;
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
      throw Object.assign(e, { code: 'NATIVE_OUTDATED' });
    }
    // OXMCP_LOG / OXMCP_LOG_FORMAT and the OTEL_* variables (see docs/SECURITY.md); spans still
    // queued for export are sent before the process exits.
    native.initTelemetry();
    process.once('exit', () => native.flushTelemetry());
    cached = native;
    return cached;
  }
  throw notFound(looked, errors);
}

function notFound(looked, errors) {
  const { PLATFORMS, SCOPE, platformKey, detectLibc } = require('./platforms.cjs');
  const key = platformKey();
  const libc = detectLibc();
  const where = `${process.platform}/${process.arch}${libc ? `/${libc}` : ''}`;
  const supported = Object.keys(PLATFORMS).join(', ');
  const message = PLATFORMS[key]
    ? `oxmcp: no native module for this platform (${key}, ${where}): the prebuilt package ${SCOPE}/${key} ` +
      'is not installed. npm installs it with oxmcp unless optional dependencies were omitted ' +
      `(--omit=optional); run \`npm install ${SCOPE}/${key}\`, or in an oxmcp checkout \`npm install\` ` +
      '(builds it; needs a Rust toolchain).'
    : `oxmcp: no prebuilt native module for this platform (${key}, ${where}); prebuilt: ${supported}. ` +
      'Build it from an oxmcp checkout with `npm install` (needs a Rust toolchain).';
  const e = new Error(`${message}\nlooked for: ${looked.join(', ')}${errors.length ? `\n${errors.join('\n')}` : ''}`);
  return Object.assign(e, { code: 'NATIVE_NOT_BUILT', platform: key });
}

module.exports = { loadNative };
