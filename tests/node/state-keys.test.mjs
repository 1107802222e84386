// The MRTR key ring and audience (`stateKeys`, `stateAudience`) over real HTTP: a state sealed
// under an old key still opens after rotation, a state sealed for another audience is refused, and
// a short ring key fails at start-up. The same test is tests/python/test_state_keys.py.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Server } from 'oxmcp';

const OLD = 'o'.repeat(32);
const NEW = Array(40).fill(110); // the bytes of 'n' * 40: the ring takes strings and bytes alike
const MODERN = '2026-07-28';
const REFUSED = { code: -32602, message: 'Invalid or expired requestState' };

async function serve(options) {
  const s = new Server({ name: 'keys', version: '1.0.0', handleSignals: false, ...options });
  s.registerTool('ask', {}, async (ctx) => {
    const answer = await ctx.elicit('who', { message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } });
    return `hello ${answer.content?.name}`;
  });
  const { url } = await s.listen({ host: '127.0.0.1', port: 0 });
  const call = async (state) => {
    const extra = state === undefined ? {} : { requestState: state, inputResponses: { who: { action: 'accept', content: { name: 'Ada' } } } };
    const params = { name: 'ask', arguments: {}, ...extra, _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN,
      'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } } };
    const res = await fetch(url, { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params }),
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': MODERN,
        'mcp-method': 'tools/call', 'mcp-name': 'ask' } });
    const raw = await res.text();
    return JSON.parse(raw.startsWith('event:') || raw.startsWith('data:') ? raw.split('\n').find((l) => l.startsWith('data:')).slice(5) : raw);
  };
  return { call, close: () => s.close() };
}

test('a ring opens old states and binds the audience', async () => {
  let s = await serve({ stateKeys: [OLD] });
  const sealedOld = (await s.call()).result.requestState;
  await s.close();
  s = await serve({ stateKeys: [NEW, OLD] });
  const done = await s.call(sealedOld);
  assert.equal(done.result?.content?.[0]?.text, 'hello Ada', JSON.stringify(done));
  const sealedNew = (await s.call()).result.requestState;
  await s.close();
  s = await serve({ stateKeys: [OLD] });
  assert.deepEqual((await s.call(sealedNew)).error, REFUSED);
  await s.close();
  s = await serve({ stateKeys: [NEW, OLD], stateAudience: 'elsewhere' });
  for (const state of [sealedOld, sealedNew]) assert.deepEqual((await s.call(state)).error, REFUSED);
  await s.close();
});

test('a short ring key fails at start-up', () => {
  assert.throws(() => new Server({ name: 'keys', version: '1', stateKeys: [OLD, 'k'.repeat(31)] }),
    (e) => e.code === 'INVALID_OPTION' && /stateKeys\[1\] must be at least 32 bytes/.test(e.message));
  assert.throws(() => new Server({ name: 'keys', version: '1', stateKeys: [OLD], stateKey: OLD }),
    (e) => e.code === 'INVALID_OPTION' && /stateKeys and stateKey are exclusive/.test(e.message));
});
