'use strict';
/**
 * The shared example command line: no arguments -> stdio; `--http HOST:PORT`
 * -> Streamable HTTP at /mcp (`--path` changes it).
 */

/** @returns {{ mode: 'stdio' } | { mode: 'http', host: string, port: number, path: string }} */
function parseServeArgs(argv = process.argv.slice(2)) {
  let http;
  let path = '/mcp';
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--http') http = argv[++i];
    else if (a.startsWith('--http=')) http = a.slice(7);
    else if (a === '--path') path = argv[++i];
    else if (a.startsWith('--path=')) path = a.slice(7);
    else if (a === '--stdio') http = undefined;
    else throw new Error(`unknown argument ${a}; usage: [--http HOST:PORT] [--path /mcp]`);
  }
  if (http === undefined) return { mode: 'stdio' };
  const m = /^(?:\[([^\]]+)\]|([^:]+)):(\d+)$/.exec(http);
  if (!m) throw new Error(`--http wants HOST:PORT, got ${JSON.stringify(http)}`);
  return { mode: 'http', host: m[1] ?? m[2], port: Number(m[3]), path };
}

/**
 * Serve `server` as the command line says; resolves when it stops. Under `oxmcp run app.mjs`
 * (bindings-node/cli/run.mjs) the server is handed to the CLI instead, which serves it with
 * the CLI's own flags.
 */
async function runFromArgs(server, argv) {
  const capture = globalThis[Symbol.for('oxmcp.cli.capture')];
  if (Array.isArray(capture)) {
    capture.push(server);
    return;
  }
  const cfg = parseServeArgs(argv);
  if (cfg.mode === 'stdio') {
    await server.serveStdio();
    return;
  }
  const { url } = await server.listen({ host: cfg.host, port: cfg.port, path: cfg.path });
  process.stderr.write(`listening on ${url}\n`);
}

module.exports = { parseServeArgs, runFromArgs };
