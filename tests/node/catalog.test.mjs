// Catalog digests from Node over real HTTP: the shared fixture gives the digests Rust and Python
// give (tests/config/catalog-digests.json), a client holding the catalog digest gets the short
// unchanged answer, and `catalogSigningKey` signs it. The rules are the core's
// (core/tests/security/catalog.rs, docs/CATALOG.md).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Server } from 'oxmcp';
import { ROOT, post } from './helpers.mjs';

const CONFIG = path.join(ROOT, 'tests', 'config');
const FIXTURE = JSON.parse(fs.readFileSync(path.join(CONFIG, 'catalog-fixture.json'), 'utf8'));
const EXPECTED = JSON.parse(fs.readFileSync(path.join(CONFIG, 'catalog-digests.json'), 'utf8'));

test('the fixture digests, the unchanged answer and the signature', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'oxmcp-catalog-'));
  const keyFile = path.join(dir, 'catalog.pem');
  const { privateKey } = crypto.generateKeyPairSync('ed25519');
  fs.writeFileSync(keyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }));
  const s = new Server({ name: 'fixture', version: '1.0.0', handleSignals: false, catalogSigningKey: keyFile });
  s.addTools(FIXTURE.tools.map((t) => ({ ...t, handler: async () => ({ content: [{ type: 'text', text: 'ok' }] }) })));
  for (const r of FIXTURE.resources) {
    const meta = {};
    for (const k of ['title', 'description', 'mimeType']) if (r[k] !== undefined) meta[k] = r[k];
    s.registerResource(r.name, r.uri, meta, async () => 'x');
  }
  const { url } = await s.listen({ host: '127.0.0.1', port: 0 });
  try {
    const got = {};
    for (const [method, key, id] of [['tools/list', 'tools', 'name'], ['resources/list', 'resources', 'uri']]) {
      const { result } = (await post(url, method, {})).response;
      got[key] = { catalogDigest: result._meta['io.oxmcp/catalogDigest'], items: Object.fromEntries(result[key].map((d) => [d[id], d._meta['io.oxmcp/digest']])) };
    }
    assert.deepEqual(got, EXPECTED);

    const full = await post(url, 'tools/list', {});
    const digest = full.response.result._meta['io.oxmcp/catalogDigest'];
    assert.equal(full.headers.get('etag'), `"${digest}"`);
    for (const opts of [{ metaExtra: { 'io.oxmcp/ifNoneMatch': digest } }, { headers: { 'if-none-match': `"${digest}"` } }]) {
      const short = await post(url, 'tools/list', {}, opts);
      assert.equal(short.status, 200);
      assert.deepEqual(short.response.result.tools, []);
      assert.equal(short.response.result._meta['io.oxmcp/unchanged'], true);
      assert.equal(short.response.result._meta['io.oxmcp/catalogDigest'], digest);
    }

    // The signature verifies with the key's public half, and not over another digest.
    const meta = full.response.result._meta;
    const raw = (s) => Buffer.from(s.replace(/^ed25519:/, ''), 'base64url');
    const publicKey = crypto.createPublicKey(privateKey);
    const spki = publicKey.export({ type: 'spki', format: 'der' });
    assert.deepEqual(raw(meta['io.oxmcp/catalogKey']), spki.subarray(spki.length - 32));
    assert.ok(crypto.verify(null, Buffer.from(digest), publicKey, raw(meta['io.oxmcp/catalogSignature'])));
    assert.ok(!crypto.verify(null, Buffer.from('sha256:00'), publicKey, raw(meta['io.oxmcp/catalogSignature'])));
  } finally {
    await s.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
