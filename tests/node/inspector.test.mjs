// The MCP Inspector's CLI as a client of the Node everything server: it lists the tools and calls
// one over the 2024-11-05 HTTP+SSE transport (`--transport sse`), Streamable HTTP and stdio. One
// HTTP server serves both HTTP transports; the Inspector starts the stdio one itself.
// (tests/python/test_inspector.py does the same against the Rust and Python servers.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROOT, startHttp } from './helpers.mjs';

const INSPECTOR = path.join(ROOT, '.cache', 'tools', 'inspector', 'node_modules', '.bin', 'mcp-inspector');
const EVERYTHING = path.join(ROOT, 'examples', 'node', 'everything.mjs');
const run = promisify(execFile);

/** One Inspector CLI run; its JSON result. Its catalog and client config stay in a temp dir. */
async function inspector(args) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'oxmcp-inspector-'));
  try {
    const env = { ...process.env, MCP_CATALOG_PATH: path.join(tmp, 'catalog.json'), MCP_CLIENT_CONFIG_PATH: path.join(tmp, 'client.json') };
    const { stdout } = await run(INSPECTOR, ['--cli', ...args, '--format', 'json', '-q'], { env, cwd: tmp, timeout: 60_000 });
    return JSON.parse(stdout).result; // `--format json` prints {"result": ...}
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

test('the Inspector lists and calls over sse, Streamable HTTP and stdio', async () => {
  assert.ok(fs.existsSync(INSPECTOR), `${INSPECTOR} missing: run scripts/setup.sh`);
  process.env.OXMCP_SSE = '1'; // this file's server serves HTTP+SSE beside Streamable HTTP
  const srv = await startHttp(EVERYTHING);
  try {
    const base = new URL(srv.url).origin;
    const targets = {
      sse: [`${base}/sse`, '--transport', 'sse'],
      http: [`${base}/mcp`, '--transport', 'http'],
      stdio: [process.execPath, EVERYTHING, '--transport', 'stdio'],
    };
    // Node's start-up is most of each run's time: all transports at once.
    await Promise.all(Object.entries(targets).map(async ([t, target]) => {
      const [list, call] = await Promise.all([
        inspector([...target, '--method', 'tools/list']),
        inspector([...target, '--method', 'tools/call', '--tool-name', 'test_simple_text']),
      ]);
      const names = new Set(list.tools.map((x) => x.name));
      for (const n of ['test_simple_text', 'test_sampling', 'test_tool_with_progress']) assert.ok(names.has(n), `${t}: ${n}`);
      assert.deepEqual(call.content, [{ type: 'text', text: 'This is a simple text response for testing.' }], t);
    }));
  } finally {
    srv.kill();
  }
});
