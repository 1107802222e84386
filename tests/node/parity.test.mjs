// The parity corpus (tests/parity/*/server.mjs): each server written for the TypeScript SDK runs
// on the SDK and on oxmcp with only its imports' package names changed; the official v1 and v2
// clients drive both over stdio and HTTP and the normalised results must be equal.
// The SDKs come from .cache/peers-node (scripts/setup.sh installs them).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { corpus, runParity, portImports } from '../parity/node_runner.mjs';

test('the import rewrite changes only the package names', () => {
  assert.equal(portImports(`import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';`), `import { McpServer } from 'oxmcp/server/mcp.js';`);
  assert.equal(portImports(`import { serveStdio } from "@modelcontextprotocol/server/stdio";`), `import { serveStdio } from "oxmcp/stdio";`);
  assert.equal(portImports(`from '@modelcontextprotocol/server'; from '@modelcontextprotocol/node';`), `from 'oxmcp'; from 'oxmcp/node';`);
});

test('the Node corpus has its servers: McpServer ones and the 3 low-level ones, at least 10', () => {
  assert.ok(corpus().length >= 10, `corpus: ${corpus().join(', ')}`);
});

for (const name of corpus()) {
  test(`parity: ${name}`, { timeout: 240_000 }, async () => {
    const rows = await runParity([name]);
    const bad = rows.filter((r) => !r.ok);
    assert.deepEqual(
      bad.map((r) => `${r.transport}/client-${r.client}: ${r.error ?? JSON.stringify(r.difference).slice(0, 800)}`),
      [],
    );
  });
}
