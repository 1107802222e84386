// `oxmcp dev app.mjs`: serve (HTTP unless told otherwise) and restart when a watched file changes.
// Polling, as the Python CLI does: no dependency, the same on every platform.
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { WATCHED_SUFFIXES } from './common.mjs';

const SKIP = new Set(['.git', '.venv', 'venv', 'node_modules', '__pycache__', 'target', '.cache']);

export function snapshot(root) {
  const out = new Map();
  const walk = (dir) => {
    let entries;
    try { entries = fs.readdirSync(dir, { withFileTypes: true }); } catch { return; }
    for (const e of entries) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (!SKIP.has(e.name) && !e.name.startsWith('.')) walk(p);
      } else if (WATCHED_SUFFIXES.some((s) => e.name.endsWith(s))) {
        try { out.set(p, fs.statSync(p, { bigint: true }).mtimeNs); } catch { /* gone */ }
      }
    }
  };
  walk(root);
  return out;
}

function stop(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve(undefined);
    const t = setTimeout(() => child.kill('SIGKILL'), 5000);
    child.once('exit', () => { clearTimeout(t); resolve(undefined); });
    child.kill('SIGTERM');
  });
}

/** Serve with the host's own `oxmcp run` (the plan's flags) and restart it on changes. */
export async function dev(plan, run) {
  const file = plan.file;
  const root = path.dirname(file);
  const cmd = [...run, plan.target, ...plan.forward];
  const where = plan.mode === 'stdio' ? 'stdio' : `http://${plan.forward[1]}${plan.path}`;
  process.stderr.write(`oxmcp dev: serving ${path.basename(file)} on ${where}; restarting on changes under ${root}\n`);
  const start = () => spawn(cmd[0], cmd.slice(1), { stdio: 'inherit' });
  let child = start();
  let reported = false;
  let stopping = false;
  const onSignal = () => { stopping = true; };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  let seen = snapshot(root);
  while (!stopping) {
    await new Promise((r) => setTimeout(r, 300));
    const now = snapshot(root);
    const changed = [...new Set([...now.keys(), ...seen.keys()])].filter((p) => now.get(p) !== seen.get(p)).sort();
    seen = now;
    if (changed.length) {
      process.stderr.write(`oxmcp dev: ${path.relative(root, changed[0])} changed, restarting\n`);
      await stop(child);
      child = start();
      reported = false;
    } else if ((child.exitCode !== null || child.signalCode !== null) && !reported) {
      process.stderr.write(`oxmcp dev: the server exited (${child.exitCode ?? child.signalCode}); waiting for a change\n`);
      reported = true;
    }
  }
  await stop(child);
  return 0;
}
