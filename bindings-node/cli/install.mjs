// `oxmcp install CLIENT app.mjs`: add a stdio entry to an MCP client's configuration file.
// The files and shapes are each client's documented ones; the Python CLI
// (bindings-python/python/oxmcp/_cli/install.py) lists them and writes the same.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CliError, MAIN, appFile, isJs, python, splitSpec } from './common.mjs';

function appData() {
  const home = os.homedir();
  if (process.platform === 'darwin') return path.join(home, 'Library', 'Application Support');
  if (process.platform === 'win32') return process.env.APPDATA || path.join(home, 'AppData', 'Roaming');
  return process.env.XDG_CONFIG_HOME || path.join(home, '.config');
}

/**
 * [file, the key holding the servers, whether entries carry "type": "stdio"].
 * @returns {[string, string, boolean]}
 */
export function configLocation(client) {
  const home = os.homedir();
  switch (client) {
    case 'claude-code': return [path.join(home, '.claude.json'), 'mcpServers', true];
    case 'claude-desktop': return [path.join(appData(), 'Claude', 'claude_desktop_config.json'), 'mcpServers', false];
    case 'cursor': return [path.join(home, '.cursor', 'mcp.json'), 'mcpServers', false];
    case 'vscode': return [path.join(appData(), 'Code', 'User', 'mcp.json'), 'servers', true];
    default: throw new CliError(`unknown client '${client}': claude-code, claude-desktop, cursor or vscode`);
  }
}

export function entryFor(target, env, typed) {
  const file = appFile(target);
  if (!file) throw new CliError('install wants a file (app.py or app.mjs)');
  const [, attr] = splitSpec(target);
  const resolved = attr ? `${file}:${attr}` : file;
  const [command, args] = isJs(file) ? [process.execPath, [MAIN, 'run', resolved]] : [python(), ['-m', 'oxmcp', 'run', resolved]];
  const entry = typed ? { type: 'stdio' } : {};
  Object.assign(entry, { command, args });
  if (Object.keys(env).length) entry.env = env;
  return entry;
}

export function parseEnv(pairs) {
  const env = {};
  for (const pair of pairs) {
    const i = pair.indexOf('=');
    if (i <= 0) throw new CliError(`--env wants KEY=VALUE, got '${pair}'`);
    env[pair.slice(0, i)] = pair.slice(i + 1);
  }
  return env;
}

// What the kernel allows (ELOOP): a longer chain is a loop, refused rather than followed forever.
const MAX_LINKS = 40;

/** The file a symlinked config points at, even when that file does not exist yet: the write goes
 * there, so a config kept in a dotfiles repository stays a link. */
export function resolveLink(file) {
  for (let i = 0; i < MAX_LINKS; i++) {
    let link;
    try { link = fs.readlinkSync(file); } catch (e) {
      if (e.code === 'EINVAL' || e.code === 'ENOENT') return file;
      throw e;
    }
    file = path.resolve(path.dirname(file), link);
  }
  throw new CliError(`${file}: too many levels of symbolic links`);
}

/** Replace `file` atomically. Client configs hold secrets in "env", so a new file is 0600 and an
 * existing one keeps its mode. The temp file is created O_EXCL with a random name beside the
 * target (same filesystem, so the rename is atomic; no predictable path another user could
 * plant), and removed if anything fails before the rename. */
export function writeConfig(file, text) {
  file = resolveLink(file);
  const dir = path.dirname(file);
  fs.mkdirSync(dir, { recursive: true });
  let mode = null;
  try { mode = fs.statSync(file).mode & 0o7777; } catch (e) { if (e.code !== 'ENOENT') throw e; }
  const tmp = path.join(dir, `.${path.basename(file)}.${crypto.randomBytes(8).toString('hex')}.oxmcp-tmp`);
  const fd = fs.openSync(tmp, 'wx', 0o600);
  try {
    try {
      if (mode !== null) fs.fchmodSync(fd, mode);
      fs.writeFileSync(fd, text);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, file);
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    throw e;
  }
}

export function install(client, target, name, envPairs, printOnly) {
  const [file, key, typed] = configLocation(client);
  const entry = entryFor(target, parseEnv(envPairs), typed);
  name = name || path.parse(splitSpec(target)[0]).name;
  if (printOnly) {
    process.stdout.write(`${JSON.stringify({ [key]: { [name]: entry } }, null, 2)}\n`);
    return;
  }
  let data = {};
  if (fs.existsSync(file)) {
    const text = fs.readFileSync(file, 'utf8');
    if (text.trim()) {
      try { data = JSON.parse(text); } catch { throw new CliError(`${file} is not valid JSON; not touching it`); }
    }
    if (!data || typeof data !== 'object' || Array.isArray(data)) throw new CliError(`${file} does not hold a JSON object; not touching it`);
  }
  data[key] ??= {};
  const servers = data[key];
  if (!servers || typeof servers !== 'object' || Array.isArray(servers)) throw new CliError(`${file}: '${key}' is not an object; not touching it`);
  const verb = Object.hasOwn(servers, name) ? 'updated' : 'added';
  servers[name] = entry;
  writeConfig(file, `${JSON.stringify(data, null, 2)}\n`);
  process.stdout.write(`${verb} '${name}' in ${client} config: ${file}\n`);
}
