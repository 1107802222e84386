// The TS SDK client (@modelcontextprotocol/client) through the scale-out balancer, driven by
// tests/scaleout/test_*.py:  node tests/scaleout/ts_client.mjs SCENARIO URL [ARGS...]
// Prints one JSON object (the scenario's findings, with `hops`: [mcpMethod, X-Upstream] per HTTP
// answer) as its last stdout line; exits non-zero on failure. Every wait is bounded.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const [scenario, url, ...args] = process.argv.slice(2);
const hops = [];

// A fetch that keeps which replica answered each request (nginx's X-Upstream).
async function recordingFetch(input, init = {}) {
  const res = await fetch(input, init);
  const headers = new Headers(init.headers ?? {});
  let method = headers.get('mcp-method') ?? '';
  if (!method && (init.method ?? 'GET') === 'POST' && typeof init.body === 'string') {
    try { method = JSON.parse(init.body).method ?? '(response)'; } catch { method = '?'; }
  }
  if (!method) method = init.method ?? 'GET';
  hops.push([method, res.headers.get('x-upstream') ?? '', res.status]);
  return res;
}

function withTimeout(p, ms, what) {
  let t;
  return Promise.race([p, new Promise((_, rej) => { t = setTimeout(() => rej(new Error(`${what}: no answer in ${ms} ms`)), ms); })])
    .finally(() => clearTimeout(t));
}

async function waitFor(cond, ms, what) {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const portOf = (upstream) => upstream.split(',').pop().trim().split(':').pop();

async function connect(mode, to = url) {
  const client = new Client({ name: 'scaleout-ts', version: '1.0.0' }, {
    capabilities: { elicitation: { form: {} } },
    versionNegotiation: { mode },
  });
  client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { name: 'Ada' } }));
  const transport = new StreamableHTTPClientTransport(new URL(to), { fetch: recordingFetch });
  await withTimeout(client.connect(transport), 20_000, 'connect');
  return client;
}

const text = (r) => (r.content ?? []).map((c) => c.text ?? '').join(' ');

const scenarios = {
  // Modern MRTR: the client's retries (with requestState) land on other replicas.
  async mrtr() {
    const client = await connect({ pin: '2026-07-28' });
    try {
      const r = await withTimeout(client.callTool({ name: 'test_input_required_result_multi_round', arguments: {} }), 60_000, 'call');
      return { isError: r.isError ?? false, text: text(r) };
    } finally {
      await client.close();
    }
  },

  // Modern listen through the balancer; the triggers go straight to a replica other than the one
  // holding the stream (ARGS: WATCHED_URI DIRECT_URL...).
  async listen() {
    const [watched, ...directs] = args;
    const client = await connect({ pin: '2026-07-28' });
    const updated = [];
    let toolsListChanged = 0;
    client.setNotificationHandler('notifications/resources/updated', (n) => { updated.push(n.params.uri); });
    client.setNotificationHandler('notifications/tools/list_changed', () => { toolsListChanged += 1; });
    try {
      const sub = await withTimeout(client.listen({ toolsListChanged: true, resourceSubscriptions: [watched] }), 20_000, 'listen');
      const holder = portOf(hops.find((h) => h[0] === 'subscriptions/listen')[1]);
      const target = directs.find((u) => new URL(u).port !== holder);
      const trigger = await connect({ pin: '2026-07-28' }, target);
      try {
        await withTimeout(trigger.callTool({ name: 'test_trigger_resource_update', arguments: {} }), 20_000, 'trigger');
        await waitFor(() => updated.length >= 1, 10_000, 'resources/updated');
        await withTimeout(trigger.callTool({ name: 'test_trigger_tool_change', arguments: {} }), 20_000, 'trigger');
        await waitFor(() => toolsListChanged >= 1, 10_000, 'tools/list_changed');
      } finally {
        await trigger.close();
      }
      await sub.close();
      return { updated, toolsListChanged, triggeredOn: `127.0.0.1:${new URL(target).port}` };
    } finally {
      await client.close();
    }
  },
};

try {
  const out = await scenarios[scenario]();
  console.log(JSON.stringify({ ...out, hops }));
  process.exit(0);
} catch (e) {
  console.error(e?.stack ?? String(e));
  console.log(JSON.stringify({ error: String(e?.message ?? e), hops }));
  process.exit(1);
}
