#!/usr/bin/env node
// The `oxmcp` command for Node (`npx oxmcp`): run, dev, inspect, call, verify, install. The verbs
// are the core's (`oxmcp::cli`, through `cliMain`): it parses the arguments, runs inspect, call,
// verify and install, and prints their output and errors; the Python console script is the same
// shim. What stays here is what only Node can do: `run` imports the user's module and serves its
// server, and `dev` restarts `run` when a file changes; both take the plan the core checked.
import { createRequire } from 'node:module';
import { CliError, MAIN, fail, python } from './common.mjs';

const { loadNative } = createRequire(import.meta.url)('../lib/native.cjs');
// How this host starts a server: its own `oxmcp run`, a Python app, a JavaScript app.
const RUN = [process.execPath, MAIN, 'run'];

const { code, plan } = loadNative().cliMain(process.argv.slice(2), RUN, [python(), '-m', 'oxmcp', 'run'], RUN);
if (!plan) process.exit(code);
try {
  if (plan.verb === 'run') {
    const { run } = await import('./run.mjs');
    await run(plan);
  } else {
    const { dev } = await import('./dev.mjs');
    process.exit(await dev(plan, RUN));
  }
} catch (e) {
  if (e instanceof CliError) fail(e.message, e.detail);
  throw e;
}
