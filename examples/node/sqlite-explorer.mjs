#!/usr/bin/env node
// A read-only SQL explorer over an embedded SQLite database (better-sqlite3@12, opened with
// `readonly: true`, so `query` cannot change the database even if a statement tries).
// Without --db a small demo database is created in a temporary directory.
//
//   node examples/node/sqlite-explorer.mjs [--db PATH]                  # stdio
//   node examples/node/sqlite-explorer.mjs --http 127.0.0.1:8000        # Streamable HTTP at /mcp
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fork } from 'node:child_process';
import Database from 'better-sqlite3';
import { z } from 'zod';
import { Server, ResourceTemplate, ToolError, McpError, ErrorCode, runFromArgs, registerAppTool, registerAppResource, RESOURCE_MIME_TYPE } from 'oxmcp';

const MAX_ROWS = 500;
const QUERY_MS = 2000;
// The MCP App: a query result as a sortable table and a chart (examples/apps/sqlite-app.html).
const APP_URI = 'ui://sqlite-explorer/query.html';
const APP_HTML = new URL('../apps/sqlite-app.html', import.meta.url);

function demoDatabase(file) {
  const db = new Database(file);
  db.exec(`
    CREATE TABLE IF NOT EXISTS artists (id INTEGER PRIMARY KEY, name TEXT NOT NULL, country TEXT);
    CREATE TABLE IF NOT EXISTS albums (id INTEGER PRIMARY KEY, artist_id INTEGER NOT NULL REFERENCES artists(id),
                                       title TEXT NOT NULL, year INTEGER);
    DELETE FROM albums; DELETE FROM artists;
    INSERT INTO artists VALUES (1, 'Nina Simone', 'US'), (2, 'Fela Kuti', 'NG'), (3, 'Björk', 'IS');
    INSERT INTO albums VALUES (1, 1, 'Pastel Blues', 1965), (2, 1, 'Wild Is the Wind', 1966),
                              (3, 2, 'Zombie', 1976), (4, 3, 'Homogenic', 1997), (5, 3, 'Vespertine', 2001);
  `);
  db.close();
}

function dbPath(argv) {
  const i = argv.indexOf('--db');
  if (i >= 0) {
    const p = argv[i + 1];
    argv.splice(i, 2);
    return p;
  }
  if (process.env.OXMCP_SQLITE_DB) return process.env.OXMCP_SQLITE_DB;
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'oxmcp-sqlite-')), 'music.db');
  demoDatabase(file);
  return file;
}

// Statements run one at a time in a child process (sqlite-query-process.mjs). One that runs longer
// than QUERY_MS is stopped by killing that process; the next query starts a new one.
function queryRunner(file) {
  let child = null;
  let seq = 0;
  const pending = new Map();
  const stop = (c, why) => {
    if (child === c) child = null;
    for (const [id, p] of pending) {
      if (p.child !== c) continue;
      pending.delete(id);
      clearTimeout(p.timer);
      p.resolve({ error: why(id) });
    }
    c.kill('SIGKILL');
  };
  const start = () => {
    const script = new URL('./sqlite-query-process.mjs', import.meta.url);
    const c = fork(script, [file, String(MAX_ROWS)], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    c.on('message', ({ id, ...result }) => {
      const p = pending.get(id);
      if (!p) return;
      pending.delete(id);
      clearTimeout(p.timer);
      p.resolve(result);
    });
    c.on('exit', () => stop(c, () => 'The query process ended'));
    // The process never keeps the server alive: stdin's end ends the server, and the child with it.
    c.unref();
    c.channel?.unref();
    return c;
  };
  return (sql, params) => new Promise((resolve) => {
    child ??= start();
    const c = child;
    const id = ++seq;
    const timer = setTimeout(() => stop(c, (other) => (other === id
      ? `The query ran longer than ${QUERY_MS / 1000} s and was stopped`
      : 'The query was stopped with the one before it, which ran too long')), QUERY_MS);
    pending.set(id, { resolve, timer, child: c });
    c.send({ id, sql, params });
  });
}

export function createServer(file) {
  const runQuery = queryRunner(file);
  // readonly: SQLite refuses every write on this connection.
  const db = new Database(file, { readonly: true, fileMustExist: true });
  const tables = () => db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all().map((r) => r.name);
  const columns = (table) => {
    if (!tables().includes(table)) return undefined;
    return db.prepare('SELECT name, type, "notnull" AS not_null, pk FROM pragma_table_info(?)').all(table)
      .map((c) => ({ name: c.name, type: c.type, notNull: Boolean(c.not_null), primaryKey: c.pk > 0 }));
  };

  const server = new Server({
    name: 'sqlite-explorer',
    version: '0.1.0',
    instructions: 'Explore a read-only SQLite database: list_tables, describe_table, then query.',
  });

  server.registerTool('list_tables', {
    description: 'List the tables of the database',
    annotations: { readOnlyHint: true },
    outputSchema: z.object({ tables: z.array(z.string()) }),
  }, () => ({ tables: tables() }));

  server.registerTool('describe_table', {
    description: 'Columns of one table (name, type, not null, primary key)',
    inputSchema: { table: z.string().min(1).describe('table name') },
    annotations: { readOnlyHint: true },
  }, ({ table }) => {
    const cols = columns(table);
    if (!cols) throw new ToolError(`No table named ${JSON.stringify(table)}; call list_tables`);
    return { content: [{ type: 'text', text: JSON.stringify(cols) }], structuredContent: { table, columns: cols } };
  });

  registerAppTool(server, 'query', {
    description: `Run one read-only SQL statement (SELECT / WITH / PRAGMA); at most ${MAX_ROWS} rows are returned`,
    _meta: { ui: { resourceUri: APP_URI, visibility: ['model', 'app'] } },
    inputSchema: z.object({
      sql: z.string().min(1).describe('one SQL statement'),
      params: z.array(z.union([z.string(), z.number(), z.null()])).default([]).describe('positional parameters'),
    }),
    annotations: { readOnlyHint: true, idempotentHint: true },
  }, async ({ sql, params }) => {
    const r = await runQuery(sql, params);
    if (r.error) throw new ToolError(r.error);
    const { rows, truncated } = r;
    return { content: [{ type: 'text', text: JSON.stringify({ rows, truncated }) }], structuredContent: { rows, truncated } };
  });

  registerAppResource(server, 'Query result viewer', APP_URI, {
    mimeType: RESOURCE_MIME_TYPE,
    description: 'The query result as a sortable table and a chart',
    // No external origins: the page is self-contained, so the host's default CSP is enough.
    _meta: { ui: { csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: true } },
  }, () => fs.readFileSync(APP_HTML, 'utf8'));

  server.registerResource('table-schema', new ResourceTemplate('schema://{table}', {
    complete: { table: (value) => tables().filter((t) => t.startsWith(value)) },
  }), { description: 'The CREATE statement of a table', mimeType: 'text/plain' }, (uri, { table }) => {
    const row = db.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?").get(table);
    if (!row) throw new McpError(ErrorCode.InvalidParams, 'Resource not found', { uri: uri.href });
    return row.sql;
  });

  server.registerPrompt('explore_table', {
    description: 'Ask the model to explore one table',
    argsSchema: { table: z.string().describe('table to explore') },
    complete: { table: (value) => tables().filter((t) => t.startsWith(value)) },
  }, ({ table }) => `Use describe_table on ${JSON.stringify(table)}, then query a few rows with LIMIT 5, and summarise what the table holds.`);

  // The workflow these tools serve, as a skill (examples/skills/explore-database).
  server.addSkillDir(new URL('../skills/explore-database', import.meta.url).pathname);

  return server;
}

const isMain = import.meta.url === new URL(process.argv[1] ?? '', 'file:').href;
if (isMain) {
  const argv = process.argv.slice(2);
  const file = dbPath(argv);
  await runFromArgs(createServer(file), argv);
}
