// A legacy client's answer reaches a JS handler as the client wrote it: the keys of an
// elicitation/create form's content and of a sampling/createMessage result keep the client's order
// (a JS object's), over stdio and over Streamable HTTP with a session, where the core's parsed JSON
// has them sorted. The Python twin is tests/python/test_answer_order.py.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { StdioPeer, startHttp, ROOT, withTimeout } from './helpers.mjs';

const FIXTURE = path.join(ROOT, 'tests', 'node', 'fixtures', 'answer-order.mjs');
const LEGACY = '2025-11-25';
const INIT = { protocolVersion: LEGACY, capabilities: { elicitation: {}, sampling: {} }, clientInfo: { name: 'order-test', version: '1' } };
// Written by hand so the order is the client's: neither alphabetical nor the schema's.
const ANSWERS = {
  'elicitation/create': '{"action":"accept","content":{"mid":"m","zeta":"z","alpha":"a"}}',
  'sampling/createMessage': '{"role":"assistant","model":"m","content":{"type":"text","text":"hi"}}',
};
const SHOWN = {
  ask: '{"mid":"m","zeta":"z","alpha":"a"}',
  draw: '{"role":"assistant","model":"m","content":{"type":"text","text":"hi"}}',
};
const answer = (req) => `{"jsonrpc":"2.0","id":${JSON.stringify(req.id)},"result":${ANSWERS[req.method]}}`;

for (const tool of ['ask', 'draw']) {
  test(`stdio: the answer to ${tool}'s request keeps the client's key order`, async (t) => {
    const peer = new StdioPeer(FIXTURE);
    t.after(() => peer.kill());
    await peer.request('initialize', INIT, { modern: false });
    peer.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    peer.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: tool, arguments: {} } });
    const req = await peer.waitFor((m) => m.method in ANSWERS, 10_000, 'the server request');
    peer.child.stdin.write(`${answer(req)}\n`);
    const resp = await peer.waitFor((m) => m.id === 2 && m.result !== undefined, 10_000, 'the call result');
    assert.equal(resp.result.content[0].text, SHOWN[tool]);
  });

  test(`HTTP session: the answer to ${tool}'s request keeps the client's key order`, async (t) => {
    const srv = await startHttp(FIXTURE);
    t.after(() => srv.kill());
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const init = await fetch(srv.url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: INIT }) });
    await init.text();
    const session = { ...headers, 'mcp-session-id': init.headers.get('mcp-session-id'), 'mcp-protocol-version': LEGACY };
    assert.ok(session['mcp-session-id']);
    await (await fetch(srv.url, { method: 'POST', headers: session, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) })).text();
    const call = await fetch(srv.url, { method: 'POST', headers: session, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: tool, arguments: {} } }) });
    const messages = sseMessages(call.body);
    const req = (await withTimeout(messages.next(), 10_000, 'the server request')).value;
    assert.ok(req.method in ANSWERS, JSON.stringify(req));
    const posted = await fetch(srv.url, { method: 'POST', headers: session, body: answer(req) });
    assert.equal(posted.status, 202);
    let resp;
    for await (const m of messages) if (m.id === 2) { resp = m; break; }
    assert.equal(resp.result.content[0].text, SHOWN[tool]);
  });
}

/** The JSON messages of an SSE body, as they arrive. */
async function* sseMessages(body) {
  const decoder = new TextDecoder();
  let buf = '';
  for await (const chunk of body) {
    buf += decoder.decode(chunk, { stream: true });
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, i).trimEnd();
      buf = buf.slice(i + 1);
      if (line.startsWith('data:')) yield JSON.parse(line.slice(5));
    }
  }
}
