// A message POSTed to the HTTP+SSE transport over the body limit is refused with 413 before the stream
// its session_id names is looked up, as the SDKs' body-limit middleware refuses it before their
// transport runs (as tests/python/test_sse_body_limit.py): real HTTP on 127.0.0.1, the body sent in
// chunks (no Content-Length to refuse it by), so the core reads it before it answers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { Server } from 'oxmcp';

const UNKNOWN = '12345678123456781234567812345678';

function postChunked(port, body) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: `/messages?session_id=${UNKNOWN}`, method: 'POST',
      headers: { 'content-type': 'application/json' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    });
    req.on('error', reject);
    req.write(body.slice(0, 4));
    req.end(body.slice(4));
  });
}

test('a message over the limit is refused before the session lookup', { timeout: 30_000 }, async () => {
  const s = new Server({ name: 'limits', version: '1.0.0', handleSignals: false });
  const { url } = await s.listen({ host: '127.0.0.1', port: 0, sse: true, maxBodyBytes: 8 });
  const port = Number(new URL(url).port);
  try {
    assert.equal(await postChunked(port, '123456789'), 413); // over the limit: no session is looked up
    assert.equal(await postChunked(port, '{}'), 404); // within it: the unknown session
  } finally {
    await s.close();
  }
});
