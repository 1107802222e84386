// MCP Apps in a real browser: headless Debian Chromium (driven by playwright-core) loads a small
// host page (tests/node/apps/host.html). The page reads the SQLite explorer's ui:// resource over
// MCP, renders it in a sandboxed iframe with the CSP the resource declares, answers ui/initialize
// and proxies the app's tools/call to the server; the app's table must show the query's rows.
// A screenshot goes to .cache/apps-browser.png. Chromium comes from scripts/setup.sh (apt).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { ROOT, startHttp, withTimeout } from './helpers.mjs';

const CHROMIUM = '/usr/bin/chromium';
const HOST_PAGE = fs.readFileSync(path.join(ROOT, 'tests', 'node', 'apps', 'host.html'), 'utf8');

/** The host page, and /mcp forwarded to the MCP server (so the page speaks MCP same-origin). */
function hostServer(mcpUrl) {
  const server = http.createServer(async (req, res) => {
    if (req.method === 'GET' && req.url === '/') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      return res.end(HOST_PAGE);
    }
    if (req.method === 'POST' && req.url === '/mcp') {
      const chunks = [];
      for await (const c of req) chunks.push(c);
      const headers = {};
      for (const k of ['content-type', 'accept', 'mcp-protocol-version', 'mcp-method', 'mcp-name']) {
        if (req.headers[k]) headers[k] = req.headers[k];
      }
      const r = await fetch(mcpUrl, { method: 'POST', headers, body: Buffer.concat(chunks) });
      res.writeHead(r.status, { 'content-type': r.headers.get('content-type') ?? 'application/json' });
      return res.end(Buffer.from(await r.arrayBuffer()));
    }
    res.writeHead(404).end();
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

test('the SQLite explorer app renders a query result in a sandboxed iframe', { timeout: 120_000 }, async () => {
  assert.ok(fs.existsSync(CHROMIUM), `${CHROMIUM} is missing: run scripts/setup.sh (apt-get install chromium)`);
  const srv = await startHttp(path.join(ROOT, 'examples', 'node', 'sqlite-explorer.mjs'));
  const host = await hostServer(srv.url);
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'oxmcp-chromium-'));
  let ctx;
  try {
    ctx = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
        '--disable-background-networking', '--disable-component-update', '--disable-sync'],
      viewport: { width: 700, height: 600 },
    });
    const page = ctx.pages()[0] ?? await ctx.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(`http://127.0.0.1:${host.address().port}/`);
    await page.evaluate(() => window.startHost('query', 'SELECT title, year FROM albums ORDER BY title'));
    const app = page.frameLocator('#app');
    const rows = app.locator('#grid tbody tr');
    await withTimeout(rows.nth(4).waitFor(), 30_000, 'the app to show 5 rows');
    assert.equal(await rows.count(), 5);
    assert.deepEqual(await app.locator('#grid thead th').allTextContents(), ['title', 'year']);
    const titles = await app.locator('#grid tbody tr td:first-child').allTextContents();
    assert.deepEqual(titles, ['Homogenic', 'Pastel Blues', 'Vespertine', 'Wild Is the Wind', 'Zombie']);
    // Sortable: a click on "year" sorts by it, a second click reverses.
    await app.locator('#grid thead th', { hasText: 'year' }).click();
    assert.deepEqual(await app.locator('#grid tbody tr td:nth-child(2)').allTextContents(), ['1965', '1966', '1976', '1997', '2001']);
    await app.locator('#grid thead th', { hasText: 'year' }).click();
    assert.equal(await app.locator('#grid tbody tr td:nth-child(2)').first().textContent(), '2001');
    // The chart: one bar a row.
    assert.equal(await app.locator('#chart rect').count(), 5);
    const log = await page.evaluate(() => window.hostLog);
    assert.ok(log.includes('ui/initialize from sqlite-explorer-app'), JSON.stringify(log));
    assert.ok(log.includes('proxying tools/call query'), JSON.stringify(log));
    assert.match(await page.evaluate(() => window.appCsp), /^default-src 'none'/);
    fs.mkdirSync(path.join(ROOT, '.cache'), { recursive: true });
    await page.screenshot({ path: path.join(ROOT, '.cache', 'apps-browser.png') });
    assert.deepEqual(errors, []);
  } finally {
    await ctx?.close().catch(() => {});
    host.close();
    srv.kill();
    fs.rmSync(profile, { recursive: true, force: true });
  }
});
