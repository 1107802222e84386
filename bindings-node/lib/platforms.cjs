'use strict';
/**
 * The prebuilt native packages: one `@oxmcp/<key>` package per platform, each holding
 * `oxmcp.<key>.node`. The published root package lists them all as optionalDependencies (npm
 * installs the one whose os/cpu/libc match); bindings-node/scripts/pack.cjs writes them, and
 * lib/native.cjs loads the one for this process. .github/workflows/release.yml builds the matrix.
 */
const PLATFORMS = {
  'linux-x64-gnu': { os: 'linux', cpu: 'x64', libc: 'glibc', rust: 'x86_64-unknown-linux-gnu' },
  'linux-arm64-gnu': { os: 'linux', cpu: 'arm64', libc: 'glibc', rust: 'aarch64-unknown-linux-gnu' },
  'linux-x64-musl': { os: 'linux', cpu: 'x64', libc: 'musl', rust: 'x86_64-unknown-linux-musl' },
  'linux-arm64-musl': { os: 'linux', cpu: 'arm64', libc: 'musl', rust: 'aarch64-unknown-linux-musl' },
  'darwin-arm64': { os: 'darwin', cpu: 'arm64', rust: 'aarch64-apple-darwin' },
  'darwin-x64': { os: 'darwin', cpu: 'x64', rust: 'x86_64-apple-darwin' },
  'win32-x64-msvc': { os: 'win32', cpu: 'x64', rust: 'x86_64-pc-windows-msvc' },
};

const SCOPE = '@oxmcp';

/** 'glibc' or 'musl' on Linux (from the process report, as napi-rs's loaders do), else undefined. */
function detectLibc() {
  if (process.platform !== 'linux') return undefined;
  try {
    const report = /** @type {{ header: { glibcVersionRuntime?: string } }} */ (process.report.getReport());
    const header = report.header;
    return header.glibcVersionRuntime ? 'glibc' : 'musl';
  } catch {
    return 'glibc';
  }
}

/** The platform key for a process (`linux-x64-gnu`, ...), whether or not a package exists for it. */
function platformKey({ platform = process.platform, arch = process.arch, libc = detectLibc() } = {}) {
  if (platform === 'linux') return `linux-${arch}-${libc === 'musl' ? 'musl' : 'gnu'}`;
  if (platform === 'win32') return `win32-${arch}-msvc`;
  return `${platform}-${arch}`;
}

module.exports = { PLATFORMS, SCOPE, platformKey, detectLibc };
