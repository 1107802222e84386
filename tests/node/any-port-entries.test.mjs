// The listener's Host/Origin guard reads `host:*` and `scheme://host:*` allow-list entries as the
// `mcp` SDK's TransportSecuritySettings do: that host on any explicit port (the same test as
// tests/python/test_transport_security.py::test_the_listener_guard_takes_any_port_entries).
import { test } from 'node:test';
import assert from 'node:assert/strict';

test('allowedHosts / allowedOrigins take any-port entries', async () => {
  const { createServer } = await import('./fixtures/server.mjs');
  const s = createServer();
  s.configureHttp({ allowedHosts: ['api.example:*'], allowedOrigins: ['https://ui.example:*'] });
  const status = async (host, origin) => {
    const headers = { host, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    if (origin) headers.origin = origin;
    const res = await s.fetch(new Request('http://127.0.0.1/mcp', {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } }),
    }));
    await res.arrayBuffer();
    return res.status;
  };
  assert.equal(await status('api.example:8443'), 200);
  assert.equal(await status('api.example'), 403);
  assert.equal(await status('api.example:8443', 'https://ui.example:3000'), 200);
  assert.equal(await status('api.example:8443', 'http://ui.example:3000'), 403);
  assert.equal(await status('api.example:8443', 'https://ui.example'), 403);
});
