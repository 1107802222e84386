#!/usr/bin/env node
// The `oxmcp` command for Node (`npx oxmcp`): run, dev, inspect, call, install. The same verbs,
// flags, output and error lines as the Python console script (bindings-python/python/oxmcp/_cli/);
// errors are one line on stderr, `oxmcp: error: ...`, and a non-zero exit.
import { parseArgs } from 'node:util';
import { CliError } from './common.mjs';

const USAGE = `usage: oxmcp [-h] COMMAND ...

Run, inspect, call and install MCP servers built with oxmcp.

commands:
  run TARGET [--http HOST:PORT] [--transport stdio|http|streamable-http] [--path /mcp]
          [--discover DIR ...] [--exclude NAME ...]
      serve app.mjs[:export] (or app.py) over stdio or Streamable HTTP; --discover registers
      the definitions (defineTool & co.) the modules below DIR export
  dev TARGET [--http HOST:PORT] [--transport ...] [--path /mcp]
      serve over HTTP and restart when a file under the app's folder changes
  inspect (TARGET | URL | -- CMD ARGS...) [--json] [--timeout SECS]
      list a server's tools, resources, templates and prompts
  call (TARGET | URL) TOOL [KEY=VALUE ...] [--args JSON] [--json] [--timeout SECS]
  call [--args JSON] [--json] -- CMD ARGS... TOOL [KEY=VALUE ...]
      call a tool and print its result
  install (claude-code|claude-desktop|cursor|vscode) TARGET [--name N] [--env K=V ...] [--print]
      add the server to an MCP client's configuration`;

const SERVE = { http: { type: 'string' }, transport: { type: 'string' }, path: { type: 'string', default: '/mcp' } };
const FLAGS = {
  run: { ...SERVE, discover: { type: 'string', multiple: true, default: [] }, exclude: { type: 'string', multiple: true, default: [] } },
  inspect: { json: { type: 'boolean', default: false }, timeout: { type: 'string', default: '30' } },
  call: { json: { type: 'boolean', default: false }, timeout: { type: 'string', default: '30' }, args: { type: 'string' } },
  install: { name: { type: 'string' }, env: { type: 'string', multiple: true, default: [] }, print: { type: 'boolean', default: false } },
};
FLAGS.dev = SERVE;
const CLIENTS = ['claude-code', 'claude-desktop', 'cursor', 'vscode'];
const TRANSPORTS = ['stdio', 'http', 'streamable-http'];

/** @returns {never} */
function usageError(message) {
  process.stderr.write(`${USAGE.split('\n')[0]}\noxmcp: error: ${message}\n`);
  process.exit(2);
}

/** @returns {never} */
function fail(message, detail) {
  process.stderr.write(`oxmcp: error: ${message}\n`);
  if (detail) process.stderr.write(`${detail.replace(/\n+$/, '')}\n`);
  process.exit(1);
}

/** `CMD ARGS... TOOL k=v ...` after `--`: the tool is the word before the first k=v (or the last word). */
function splitCommand(command) {
  let first = command.findIndex((a) => /^[A-Za-z_][A-Za-z0-9_.-]*=/.test(a));
  if (first === -1) first = command.length;
  if (first < 2) throw new CliError('call -- CMD ARGS... TOOL [key=value ...]: give the server command, then the tool');
  return [command.slice(0, first - 1), command.slice(first - 1)];
}

async function main(argv) {
  if (!argv.length || argv[0] === '-h' || argv[0] === '--help') {
    process.stdout.write(`${USAGE}\n`);
    if (!argv.length) process.exit(2);
    return;
  }
  const verb = argv[0];
  if (!FLAGS[verb]) usageError(`argument COMMAND: invalid choice: '${verb}' (choose from 'run', 'dev', 'inspect', 'call', 'install')`);
  let rest = argv.slice(1);
  let command = null;
  const dd = rest.indexOf('--');
  if (dd !== -1) {
    command = rest.slice(dd + 1);
    rest = rest.slice(0, dd);
    if (!command.length) fail('nothing after --: give the server command, e.g. -- python server.py');
    if (verb !== 'inspect' && verb !== 'call') fail(`${verb} takes no -- CMD; only inspect and call do`);
  }
  let parsed;
  try {
    parsed = parseArgs({ args: rest, options: FLAGS[verb], allowPositionals: true, strict: true });
  } catch (e) {
    usageError(e.message);
  }
  // The flags differ per command (FLAGS[verb]): their values are read by name.
  /** @type {Record<string, any>} */
  const o = parsed.values;
  const pos = parsed.positionals;
  const timeout = o.timeout !== undefined ? Number(o.timeout) : 30;
  if (!(timeout > 0)) usageError(`argument --timeout: invalid float value: '${o.timeout}'`);
  if (o.transport !== undefined && !TRANSPORTS.includes(o.transport)) {
    usageError(`argument --transport: invalid choice: '${o.transport}' (choose from 'stdio', 'http', 'streamable-http')`);
  }
  try {
    if (verb === 'run') {
      if (pos.length !== 1) usageError('run wants one TARGET');
      const { run } = await import('./run.mjs');
      await run(pos[0], o.transport, o.http, o.path, o.discover, o.exclude);
    } else if (verb === 'dev') {
      if (pos.length !== 1) usageError('dev wants one TARGET');
      const { dev } = await import('./dev.mjs');
      process.exit(await dev(pos[0], o.transport, o.http, o.path));
    } else if (verb === 'inspect') {
      const { inspectCmd, resolveTarget } = await import('./client.mjs');
      if ((pos.length === 0) === (command === null) || pos.length > 1) {
        throw new CliError('inspect wants one of: app.py, app.mjs, a URL, or -- CMD ARGS...');
      }
      await inspectCmd(resolveTarget(pos[0], command), o.json, timeout);
    } else if (verb === 'call') {
      const { callCmd, resolveTarget } = await import('./client.mjs');
      let spec = null;
      let tail;
      if (command) {
        if (pos.length) throw new CliError('with --, put the tool after the server command: oxmcp call -- CMD ARGS... TOOL key=value ...');
        [command, tail] = splitCommand(command);
      } else {
        if (!pos.length) throw new CliError('call wants a target and a tool: oxmcp call app.py TOOL key=value ...');
        [spec, ...tail] = pos;
      }
      if (!tail.length) throw new CliError('call wants a tool name after the target');
      await callCmd(resolveTarget(spec, command), tail[0], tail.slice(1), o.args, o.json, timeout);
    } else if (verb === 'install') {
      if (pos.length !== 2) usageError('install wants CLIENT and TARGET');
      if (!CLIENTS.includes(pos[0])) usageError(`argument client: invalid choice: '${pos[0]}' (choose from ${CLIENTS.map((c) => `'${c}'`).join(', ')})`);
      const { install } = await import('./install.mjs');
      install(pos[0], pos[1], o.name, o.env, o.print);
    }
  } catch (e) {
    if (e instanceof CliError) fail(e.message, e.detail);
    throw e;
  }
}

await main(process.argv.slice(2));
