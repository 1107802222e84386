// `oxmcp inspect` and `oxmcp call`: the official TypeScript client against a file, a URL or a command.
import net from 'node:net';
import { CliError, dumpsCompact, dumpsPretty, launchCommand } from './common.mjs';

export function resolveTarget(spec, command) {
  if (command) return { command, label: command.join(' ') };
  if (/^https?:\/\//.test(spec)) return { url: spec, label: spec };
  return { command: launchCommand(spec), label: spec };
}

async function sdk() {
  try {
    const client = await import('@modelcontextprotocol/client');
    const stdio = await import('@modelcontextprotocol/client/stdio');
    return { ...client, ...stdio };
  } catch {
    throw new CliError('this command needs the official MCP client: npm install @modelcontextprotocol/client');
  }
}

/** A refused connection is a one-line error, not fetch's nested cause. */
function checkReachable(url) {
  const u = new URL(url);
  const port = Number(u.port) || (u.protocol === 'https:' ? 443 : 80);
  const host = u.hostname.replace(/^\[|\]$/g, '');
  return new Promise((resolve, reject) => {
    const s = net.connect({ host, port });
    s.setTimeout(5000, () => { s.destroy(); reject(new CliError(`cannot connect to ${url}: timed out`)); });
    s.once('connect', () => { s.destroy(); resolve(undefined); });
    s.once('error', (/** @type {NodeJS.ErrnoException} */ e) => reject(new CliError(`cannot connect to ${url}: ${e.code === 'ECONNREFUSED' ? 'connection refused' : e.message}`)));
  });
}

function withTimeout(p, secs, onTimeout) {
  let t;
  return Promise.race([p, new Promise((_, rej) => { t = setTimeout(() => rej(onTimeout()), secs * 1000); })]).finally(() => clearTimeout(t));
}

const tail = (text) => text.split(/\r?\n/).filter((l) => l.trim()).slice(-30).join('\n');

/** Runs `body(client, init)` against a connected client, then closes it. */
export async function withClient(target, timeout, body) {
  const { Client, StreamableHTTPClientTransport, StdioClientTransport } = await sdk();
  const client = new Client({ name: 'oxmcp-cli', version: '0' });
  let stderr = '';
  let transport;
  if (target.url) {
    await checkReachable(target.url);
    transport = new StreamableHTTPClientTransport(new URL(target.url));
  } else {
    transport = new StdioClientTransport({ command: target.command[0], args: target.command.slice(1), stderr: 'pipe' });
    transport.stderr?.on('data', (d) => { stderr += d; });
  }
  let exited = false;
  const closed = new Promise((_, rej) => { client.onclose = () => { exited = true; rej(new Error('closed')); }; });
  closed.catch(() => {});
  try {
    await withTimeout(Promise.race([client.connect(transport), closed]), timeout, () => new Error('timeout'));
  } catch (e) {
    await client.close().catch(() => {});
    if (target.url) throw new CliError(`${target.url}: ${e.message === 'timeout' ? `did not answer initialize within ${timeout}s` : e.message}`);
    if (e.code === 'ENOENT') throw new CliError(`cannot start ${target.command[0]}: command not found`);
    if (e.message === 'timeout' && !exited) throw new CliError(`the server did not answer initialize within ${timeout}s`, tail(stderr));
    const t = tail(stderr);
    throw new CliError(`the server exited at start${t ? '; its stderr:' : ` (${e.message})`}`, t);
  }
  const init = {
    serverInfo: client.getServerVersion() ?? {},
    capabilities: client.getServerCapabilities() ?? {},
    protocolVersion: client.getNegotiatedProtocolVersion?.(),
  };
  try {
    return await body(client, init);
  } finally {
    await client.close().catch(() => {});
  }
}

async function all(fetch, key) {
  const out = [];
  let cursor;
  do {
    const page = await fetch(cursor ? { cursor } : undefined);
    out.push(...page[key]);
    cursor = page.nextCursor;
  } while (cursor);
  return out;
}

export async function listing(client, init) {
  const caps = init.capabilities;
  const tools = caps.tools ? await all((p) => client.listTools(p), 'tools') : [];
  const resources = caps.resources ? await all((p) => client.listResources(p), 'resources') : [];
  const templates = caps.resources ? await all((p) => client.listResourceTemplates(p), 'resourceTemplates') : [];
  const prompts = caps.prompts ? await all((p) => client.listPrompts(p), 'prompts') : [];
  return { server: init.serverInfo, protocolVersion: init.protocolVersion, tools, resources, resourceTemplates: templates, prompts };
}

const firstLine = (t) => (t || '').trim().split(/\r?\n/)[0]?.trim() ?? '';
const withDesc = (head, item) => (firstLine(item.description) ? `  ${head}: ${firstLine(item.description)}` : `  ${head}`);

export function renderText(info) {
  const srv = info.server;
  const lines = [`${`${srv.name ?? '?'} ${srv.version ?? ''}`.trimEnd()} (protocol ${info.protocolVersion})`];
  lines.push(`tools (${info.tools.length})`);
  for (const t of info.tools) {
    lines.push(withDesc(t.name, t));
    lines.push(`    input: ${dumpsCompact(t.inputSchema ?? {})}`);
    if (t.outputSchema !== undefined) lines.push(`    output: ${dumpsCompact(t.outputSchema)}`);
  }
  lines.push(`resources (${info.resources.length})`);
  for (const r of info.resources) lines.push(withDesc(`${r.uri} (${r.name ?? ''})${r.mimeType ? ` [${r.mimeType}]` : ''}`, r));
  lines.push(`resource templates (${info.resourceTemplates.length})`);
  for (const r of info.resourceTemplates) lines.push(withDesc(`${r.uriTemplate} (${r.name ?? ''})${r.mimeType ? ` [${r.mimeType}]` : ''}`, r));
  lines.push(`prompts (${info.prompts.length})`);
  for (const p of info.prompts) {
    const args = (p.arguments ?? []).map((a) => a.name + (a.required ? '' : '?')).join(', ');
    lines.push(withDesc(`${p.name}(${args})`, p));
  }
  return lines.join('\n');
}

export async function inspectCmd(target, asJson, timeout) {
  const info = await withClient(target, timeout, (c, init) => withTimeout(listing(c, init), timeout, () => new CliError(`${target.label}: timed out after ${timeout}s`)));
  process.stdout.write(`${asJson ? dumpsPretty(info) : renderText(info)}\n`);
}

/** `--args JSON`, then `key=value` pairs; a value is JSON unless the schema says the key is a string. */
export function parseArguments(pairs, argsJson, schema) {
  const out = {};
  if (argsJson !== undefined) {
    let parsed;
    try { parsed = JSON.parse(argsJson); } catch (e) { throw new CliError(`--args is not valid JSON: ${e.message}`); }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new CliError('--args must be a JSON object');
    Object.assign(out, parsed);
  }
  const props = (schema && schema.properties) || {};
  for (const pair of pairs) {
    const i = pair.indexOf('=');
    if (i <= 0) throw new CliError(`arguments are key=value, got '${pair}'`);
    const key = pair.slice(0, i);
    const raw = pair.slice(i + 1);
    if (props[key] && props[key].type === 'string') { out[key] = raw; continue; }
    try { out[key] = JSON.parse(raw); } catch { out[key] = raw; }
  }
  return out;
}

// The Python CLI draws the same line with tqdm.
class Bar {
  constructor(label) { this.label = label; this.bar = null; this.enabled = Boolean(process.stderr.isTTY); }

  async update({ progress, total, message }) {
    if (!this.enabled) return;
    if (!this.bar) {
      const { default: cliProgress } = await import('cli-progress');
      this.bar = new cliProgress.SingleBar({
        format: `${this.label}: {percentage}%|{bar}| {value}/{total}`,
        stream: process.stderr, hideCursor: false, clearOnComplete: false, noTTYOutput: false, fps: 1000,
      }, cliProgress.Presets.legacy);
      this.bar.start(total ?? 0, 0);
    }
    if (total !== undefined) this.bar.setTotal(total);
    this.bar.update(progress, message ? { message } : undefined);
  }

  close() { if (this.bar) this.bar.stop(); }
}

export async function callCmd(target, tool, pairs, argsJson, asJson, timeout) {
  const bar = new Bar(tool);
  const result = await withClient(target, timeout, async (client) => {
    const tools = await all((p) => client.listTools(p), 'tools');
    const found = tools.find((t) => t.name === tool);
    if (!found) throw new CliError(`no tool named '${tool}' (tools: ${tools.map((t) => t.name).join(', ') || 'none'})`);
    const args = parseArguments(pairs, argsJson, found.inputSchema ?? {});
    let pending = Promise.resolve();
    try {
      const r = await client.callTool({ name: tool, arguments: args }, {
        onprogress: (p) => { pending = pending.then(() => bar.update(p)); },
        // --timeout bounds the start and the listing, as in the Python CLI; the call itself may run long.
        timeout: 2 ** 31 - 1,
      });
      await pending;
      return r;
    } catch (e) {
      if (e instanceof CliError) throw e;
      throw new CliError(`tools/call ${tool} failed: ${e.message}`);
    } finally {
      bar.close();
    }
  });
  printResult(tool, result, asJson);
}

export function printResult(tool, result, asJson) {
  const out = [];
  if (asJson) out.push(dumpsPretty(result));
  else {
    const blocks = result.content ?? [];
    for (const b of blocks) {
      if (b.type === 'text' && !result.isError) out.push(b.text);
      else if (b.type !== 'text') out.push(dumpsCompact(b));
    }
    if (!blocks.length && result.structuredContent !== undefined) out.push(dumpsPretty(result.structuredContent));
  }
  if (out.length) process.stdout.write(`${out.join('\n')}\n`);
  if (result.isError) {
    const text = (result.content ?? []).filter((b) => b.type === 'text').map((b) => b.text).join(' ');
    throw new CliError(`tool ${tool} returned an error: ${text || 'no message'}`);
  }
}
