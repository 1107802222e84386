// The core's URI template rules, as the Python binding gives them (tests/python/test_fastmcp_template_rules.py):
// a template's list query variables (`listVariables`) split on their literal commas, each item
// percent-decoded; a hyphenated variable name; a literal a client sends as written or
// percent-encoded (either hex case); a non-App resource's own `_meta.ui`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { post } from './helpers.mjs';

test('list query variables, hyphenated names and encoded literals match in the core', async (t) => {
  const { Server } = await import('oxmcp');
  const s = new Server({ name: 'templates', version: '1', handleSignals: false });
  s.registerResource('search', 'items://{category}{?tags,q}', { listVariables: ['tags'] },
    (uri, vars) => ({ contents: [{ uri: uri.href, text: JSON.stringify(vars) }] }));
  s.registerResource('profile', 'data://{user-id}/profile', {},
    (uri, vars) => ({ contents: [{ uri: uri.href, text: vars['user-id'] }] }));
  s.registerResource('doc', 'file:///docs/café/{name}', {},
    (uri, vars) => ({ contents: [{ uri: uri.href, text: vars.name }] }));
  s.registerResource('note', 'note:my notes/{a}', { _meta: { ui: { csp: 'default-src none' } } },
    (uri, vars) => ({ contents: [{ uri: uri.href, text: vars.a }] }));
  assert.throws(() => s.registerResource('app', 'ui://app/{a}', { mimeType: 'text/html;profile=mcp-app', _meta: { ui: { csp: 'x' } } },
    () => ({ contents: [] })), /_meta.ui.csp must map each directive/);
  const { url } = await s.listen({ host: '127.0.0.1', port: 0 });
  t.after(() => s.close());
  const read = async (uri) => {
    const r = (await post(url, 'resources/read', { uri })).response;
    return r.result ? r.result.contents[0].text : r.error.message;
  };
  assert.deepEqual(JSON.parse(await read('items://books?tags=a,b')), { category: 'books', tags: ['a', 'b'] });
  assert.deepEqual(JSON.parse(await read('items://books?tags=a%2Cb,c')), { category: 'books', tags: ['a,b', 'c'] });
  assert.deepEqual(JSON.parse(await read('items://books?tags=caf%C3%A9,x%20y')), { category: 'books', tags: ['café', 'x y'] });
  assert.deepEqual(JSON.parse(await read('items://books?tags=')), { category: 'books', tags: [] });
  assert.deepEqual(JSON.parse(await read('items://books?q=a,b')), { category: 'books', q: 'a,b' });
  assert.equal(await read('data://42/profile'), '42');
  assert.equal(await read('file:///docs/caf%C3%A9/a.txt'), 'a.txt');
  assert.equal(await read('file:///docs/caf%c3%a9/a.txt'), 'a.txt');
  assert.equal(await read('file:///docs/caf%C3%A8/a.txt'), 'Resource not found');
  assert.equal(await read('note:my notes/one'), 'one');
  assert.equal(await read('note:my%20notes/one'), 'one');
});
