// Whether `completions` is declared (and `completion/complete` answered): the core's option
// `completions`, over real HTTP (the same rule and test in Python,
// tests/python/test_completions_capability.py).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Server } from 'oxmcp';
import { post } from './helpers.mjs';

const REF = { ref: { type: 'ref/prompt', name: 'poem' }, argument: { name: 'theme', value: 'n' } };

for (const [completions, declared] of [[undefined, true], [true, true], [false, false]]) {
  test(`completions: ${completions}`, async () => {
    const s = new Server({ name: 'c', version: '1', handleSignals: false, ...(completions === undefined ? {} : { completions }) });
    s.registerPrompt('poem', { arguments: [{ name: 'theme', required: true }], complete: { theme: ['nature', 'love'] } },
      ({ theme }) => theme);
    const { url } = await s.listen({ host: '127.0.0.1', port: 0 });
    try {
      const caps = (await post(url, 'server/discover')).response.result.capabilities;
      assert.equal('completions' in caps, declared);
      const answer = (await post(url, 'completion/complete', REF)).response;
      if (declared) assert.deepEqual(answer.result.completion.values, ['nature']);
      else assert.equal(answer.error.code, -32601);
    } finally {
      await s.close();
    }
  });
}
