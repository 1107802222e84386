// The built site (.cache/site, from `mkdocs build`, which the docs stage runs first) opens in
// headless Chromium: the home page, a guide and the benchmarks page (its charts) render with their navigation and search box, and a
// screenshot of each is saved in .cache/test-all/site-screenshots/ for a person to look at.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const SITE = path.join(ROOT, '.cache', 'site');
const SHOTS = path.join(ROOT, '.cache', 'test-all', 'site-screenshots');
const CHROMIUM = '/usr/bin/chromium';
const TYPES = { '.html': 'text/html; charset=utf-8', '.css': 'text/css', '.js': 'text/javascript', '.json': 'application/json', '.svg': 'image/svg+xml' };

/** The site's files over HTTP on 127.0.0.1 (a directory serves its index.html). */
function serveSite() {
  const server = http.createServer((req, res) => {
    let file = path.join(SITE, decodeURIComponent(new URL(req.url, 'http://x').pathname));
    if (!file.startsWith(SITE)) return res.writeHead(403).end();
    if (fs.existsSync(file) && fs.statSync(file).isDirectory()) file = path.join(file, 'index.html');
    if (!fs.existsSync(file)) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream' });
    return res.end(fs.readFileSync(file));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

test('the site renders in Chromium: home page, a guide and the benchmark charts, with navigation and search', { timeout: 120_000 }, async () => {
  assert.ok(fs.existsSync(path.join(SITE, 'index.html')), `${SITE} is not built: run bash scripts/docs.sh build`);
  assert.ok(fs.existsSync(CHROMIUM), `${CHROMIUM} is missing: run scripts/setup.sh (apt-get install chromium)`);
  fs.mkdirSync(SHOTS, { recursive: true });
  const server = await serveSite();
  const base = `http://127.0.0.1:${server.address().port}`;
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'oxmcp-chromium-'));
  let ctx;
  try {
    ctx = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
        '--disable-background-networking', '--disable-component-update', '--disable-sync'],
      viewport: { width: 1280, height: 900 },
    });
    const page = ctx.pages()[0] ?? await ctx.newPage();
    const pages = [['/', 'oxmcp', 'home.png'], ['/guides/tools/', 'Tools', 'guide-tools.png'], ['/benchmarks/', 'Benchmarks', 'benchmarks.png']];
    for (const [url, heading, shot] of pages) {
      await page.goto(base + url, { waitUntil: 'load' });
      assert.equal((await page.locator('article h1').first().textContent()).trim().replace(/¶$/, ''), heading);
      assert.ok(await page.locator('nav.md-nav--primary').count() > 0, `${url}: no navigation`);
      assert.ok(await page.locator('input.md-search__input').count() > 0, `${url}: no search box`);
      if (url === '/benchmarks/') {
        assert.equal(await page.locator('article svg[role="img"]').count(), 6, 'two charts per language');
        await page.locator('#charts').scrollIntoViewIfNeeded();
      }
      await page.screenshot({ path: path.join(SHOTS, shot), fullPage: false });
      assert.ok(fs.statSync(path.join(SHOTS, shot)).size > 10_000, `${shot} is (nearly) empty`);
    }
  } finally {
    await ctx?.close();
    server.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
});
