// What `run` and `dev` share: the error they raise while loading the user's app, and how this
// host finds its own command and a Python interpreter.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const WATCHED_SUFFIXES = ['.py', '.mjs', '.js', '.cjs', '.mts', '.ts', '.json'];
export const MAIN = path.join(path.dirname(fileURLToPath(import.meta.url)), 'main.mjs');

export class CliError extends Error {
  constructor(message, detail) {
    super(message);
    this.detail = detail;
  }
}

/** @returns {never} */
export function fail(message, detail) {
  process.stderr.write(`oxmcp: error: ${message}\n`);
  if (detail) process.stderr.write(`${detail.replace(/\n+$/, '')}\n`);
  process.exit(1);
}

// OXMCP_PYTHON, else the active virtualenv's interpreter, else python3 on PATH.
export const python = () => process.env.OXMCP_PYTHON
  || (process.env.VIRTUAL_ENV ? path.join(process.env.VIRTUAL_ENV, process.platform === 'win32' ? 'Scripts/python.exe' : 'bin/python') : null)
  || (process.platform === 'win32' ? 'python' : 'python3');
