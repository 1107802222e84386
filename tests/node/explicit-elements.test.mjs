// Explicit elements: `server.add(definition, handler)` pairs a spec-shaped definition with its
// handler. The core checks the pairing (the same cases and texts as
// tests/python/test_explicit_elements.py): a definition of another kind given as the handler, and
// a tool's input schema that is not an object schema, are refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Server, definePrompt, defineResourceTemplate, defineTool } from 'oxmcp';

const PAIR = { type: 'object', properties: { a: { type: 'integer' }, b: { type: 'integer' } }, required: ['a', 'b'] };
const add = ({ a, b }) => String(a + b);
const greet = definePrompt('greet', { arguments: [{ name: 'name' }] }, ({ name }) => `Hello, ${name}`);
const page = defineResourceTemplate('page', 'docs://{section}/page', {}, (uri, { section }) => `page ${section}`);
const markedTool = defineTool('marked_tool', {}, () => 'x');

test('each kind is registered from its definition', async () => {
  const s = new Server({ name: 'explicit', version: '1' });
  s.add({ name: 'add', description: 'Add two integers', inputSchema: PAIR }, add);
  s.add({ name: 'greet', arguments: [{ name: 'name', required: true }] }, greet);
  s.add({ name: 'page', uriTemplate: 'docs://{section}/page' }, page);
  s.add({ name: 'readme', uri: 'docs://readme', mimeType: 'text/markdown' }, () => '# readme');
  const c = s.client();
  const [tool] = (await c.request('tools/list', {})).tools;
  assert.deepEqual(tool.inputSchema, PAIR);
  assert.equal(tool.description, 'Add two integers');
  assert.equal((await c.request('tools/call', { name: 'add', arguments: { a: 2, b: 3 } })).content[0].text, '5');
  const got = await c.request('prompts/get', { name: 'greet', arguments: { name: 'Ada' } });
  assert.equal(got.messages[0].content.text, 'Hello, Ada');
  assert.equal((await c.request('resources/read', { uri: 'docs://intro/page' })).contents[0].text, 'page intro');
  assert.equal((await c.request('resources/read', { uri: 'docs://readme' })).contents[0].text, '# readme');
});

test("a handler of another kind is refused with the core's text", () => {
  const s = new Server({ name: 'explicit', version: '1' });
  assert.throws(() => s.add({ name: 'add', inputSchema: PAIR }, greet), {
    name: 'RegistrationError',
    message: "tool 'add' is given a prompt handler: an element's handler must be of its definition's kind",
  });
  assert.throws(() => s.add({ name: 'hello' }, markedTool), {
    message: "prompt 'hello' is given a tool handler: an element's handler must be of its definition's kind",
  });
  assert.deepEqual(s.listTools(), []);
});

test('a tool needs an object input schema', () => {
  const s = new Server({ name: 'explicit', version: '1' });
  assert.throws(() => s.add({ name: 'listy', inputSchema: { type: 'array' } }, add), {
    code: 'INVALID_SCHEMA',
    message: 'invalid schema for \'listy\': inputSchema must be a JSON Schema object with root type "object"',
  });
  assert.throws(() => s.add({ inputSchema: PAIR }, add), /a string `name`/);
});
