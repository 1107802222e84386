// Compiled with `tsc --noEmit` by typings.test.mjs: the public typings must accept TS-SDK-style code.
import { Server, McpServer, ToolError, McpError, ErrorCode, ResourceTemplate, completable, text, image, resource, type Context, type CallToolResult, type RegisteredItem } from 'oxmcp';
import { z } from 'zod';
import { z as z3 } from 'zod/v3';

const server = new Server({ name: 'typed', version: '1.0.0', instructions: 'hi', validation: 'toolError', cacheTtlMs: 1000, toolTimeoutMs: 5000 });

server.registerTool('add', {
  description: 'add',
  inputSchema: z.object({ a: z.number(), b: z.number() }),
  outputSchema: z.object({ sum: z.number() }),
  annotations: { readOnlyHint: true },
}, async ({ a, b }, ctx: Context) => {
  const sum: number = a + b;
  await ctx.progress(1, 1);
  await ctx.log('info', { sum });
  if (ctx.signal.aborted) throw new ToolError('aborted');
  return { sum };
});

server.registerTool('shape', { inputSchema: { name: z.string() } }, ({ name }) => `hi ${name.toUpperCase()}`);
server.registerTool('json', { inputSchema: { type: 'object', properties: { q: { type: 'string' } } } }, (args) => String(args.q));
server.registerTool('noargs', { title: 'No args' }, (ctx) => [text(ctx.era), image(Buffer.from([1]), 'image/png')]);
server.tool('short', 'a shorthand tool', { x: z.number() }, ({ x }) => x * 2);
const batch: RegisteredItem[] = server.addTools([
  { name: 'b1', description: 'one', inputSchema: { type: 'object', properties: { n: { type: 'number' } } }, handler: (args: { n?: number }) => String(args.n) },
  { name: 'b2', timeoutMs: 500, handler: () => 'two' },
]);
batch[0].remove();

server.registerTool('asks', {}, async (ctx) => {
  const r = await ctx.elicit({ message: 'name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } });
  const s = await ctx.sample('k', { messages: [{ role: 'user', content: { type: 'text', text: 'q' } }], maxTokens: 5 });
  const roots = await ctx.roots();
  const full: CallToolResult = { content: [text(`${r.action} ${String(s.role)} ${roots.roots.length}`)], isError: false };
  return full;
});

server.registerTool('fails', {}, () => {
  throw new McpError(ErrorCode.InvalidParams, 'bad', { why: 1 });
});

server.registerResource('r', 'mem://r', { mimeType: 'text/plain' }, (uri: URL) => `read ${uri.href}`);
server.registerResource('t', new ResourceTemplate('mem://items/{id}', { complete: { id: (v) => [v + '1'] } }), {},
  (uri, vars) => ({ uri: uri.href, text: String(vars.id) }));
server.registerPrompt('p', { argsSchema: { topic: completable(z.string(), (v) => [v]) } }, ({ topic }) => `about ${topic}`);
server.registerPrompt('p2', { arguments: [{ name: 'x', required: true }] }, (args) => [{ role: 'user', content: resource({ uri: 'mem://x', text: String(args.x) }) }]);

const removed: boolean = server.removeTool('short');
const alias: typeof Server = McpServer;
void removed; void alias;

const secured = new Server({
  name: 'secured', version: '1', maxInFlight: 256, maxHeaders: 64, maxHeaderBytes: 8192, bodyTimeoutMs: 10_000,
  tokens: { alice: { tokens: ['s3cret'], tools: ['search'], resources: ['file:///docs/*'] }, ci: 'other' },
  rateLimit: { rate: 10, burst: 20, perCaller: { ci: 100 } },
});
secured.registerTool('search', { requiredScopes: ['files:read'], maxConcurrency: 4 }, (ctx) => {
  const who: string | undefined = ctx.caller?.name;
  const scopes: string[] = ctx.caller?.scopes ?? [];
  return `${who} ${scopes.length}`;
});
void secured.listen({ port: 0, tokens: 'alice=s3cret', rateLimit: 5,
  oauth: { resource: 'https://mcp.example.com/mcp', authorizationServers: ['https://auth.example.com'], scopes: ['mcp:tools'], issuer: 'https://auth.example.com', jwksUrl: 'http://idp:8080/jwks.json' } });
secured.configureHttp({ tokens: { bob: { tokens: ['t'], scopes: ['files'] } } });
void secured.client({ token: 's3cret' });
// @ts-expect-error rateLimit objects need a rate
secured.configureHttp({ rateLimit: { burst: 2 } });

async function main(): Promise<void> {
  const { url, port } = await server.listen({ host: '127.0.0.1', port: 0, path: '/mcp', allowedHosts: ['localhost:1'] });
  const res: Response = await server.fetch(new Request(url));
  const c = server.client({ capabilities: { sampling: {} } });
  const r = await c.callTool('add', { a: 1, b: 2 });
  console.error(port, res.status, r.content.length);
  await server.close();
}
void main;

// @ts-expect-error a zod-typed handler cannot treat a number as a string
server.registerTool('wrong', { inputSchema: z.object({ n: z.number() }) }, ({ n }) => n.toUpperCase());
// zod 3 schemas (zod/v3 here: zod 4 ships zod 3's API) are typed the same way.
server.registerTool('z3', { inputSchema: { s: z3.string(), n: z3.number().optional() } }, ({ s, n }) => s.toUpperCase() + (n ?? 0).toFixed(1));
server.registerTool('z3object', { inputSchema: z3.object({ s: z3.string() }) }, ({ s }) => s.toUpperCase());
// @ts-expect-error a zod 3-typed handler cannot treat a number as a string
server.registerTool('z3wrong', { inputSchema: { n: z3.number() } }, ({ n }) => n.toUpperCase());

// Middleware (server.use): the context and next are typed.
server.use(async (ctx, next) => {
  const method: string = ctx.method;
  const session: string | undefined = ctx.sessionId;
  const r = await next({ ...ctx.params });
  return method && session !== '' ? r : undefined;
});
server.use(['tools/call'], async (ctx, next) => { if (ctx.name === 'x') return { content: [] }; await next(); });
server.use({ onCallTool: (ctx, next) => next(), onListTools: async (_ctx, next) => next() });
// @ts-expect-error use() needs a function, hooks or methods + function
server.use(42);
