// The server pings the client (`ping` from server to client) through a legacy session's
// back-channel, over real stdio: `ctx.session.ping()` sends it and resolves on the client's answer.
// A modern (2026-07-28) request has no back-channel: `ctx.session` is undefined and no ping is
// sent. tests/python/test_ping_client.py holds the same behaviour for Python.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { ROOT, StdioPeer } from './helpers.mjs';

const FIXTURE = path.join(ROOT, 'tests', 'node', 'fixtures', 'ping-client.mjs');

test('a handler pings the client through its legacy session; a modern request has none', async () => {
  const peer = new StdioPeer(FIXTURE);
  let pings = 0;
  const answerPings = () => {
    for (const m of peer.messages.splice(0)) {
      if (m.method === 'ping' && m.id !== undefined) {
        pings += 1;
        peer.send({ jsonrpc: '2.0', id: m.id, result: {} });
      }
    }
  };
  try {
    const modern = await peer.request('tools/call', { name: 'ping_client', arguments: {} });
    assert.equal(modern.result.content[0].text, 'no back-channel');
    await peer.initialize();
    const id = peer.nextId++;
    peer.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'ping_client', arguments: {} } });
    const ping = await peer.waitFor((m) => m.method === 'ping', 10_000, 'the server\'s ping');
    assert.equal(ping.jsonrpc, '2.0');
    assert.ok(ping.id !== undefined, 'ping is a request');
    answerPings();
    const answer = await peer.waitFor((m) => m.id === id && m.result !== undefined, 10_000, 'the tool\'s answer');
    assert.equal(answer.result.content[0].text, 'pong');
    assert.equal(pings, 1);
  } finally {
    peer.kill();
  }
});
