// The sqlite-explorer's query process (examples/node/sqlite-explorer.mjs). A statement runs here,
// on its own read-only connection, so that the server can stop one that never ends (a recursive
// CTE) by killing this process. better-sqlite3 has no interrupt, and a statement runs inside
// SQLite's C code, where neither a timer nor Worker.terminate() reaches it.
import Database from 'better-sqlite3';

const [file, maxRows] = [process.argv[2], Number(process.argv[3])];
const db = new Database(file, { readonly: true, fileMustExist: true });
const reply = (m) => process.send(m);

process.on('message', ({ id, sql, params }) => {
  let stmt;
  try {
    stmt = db.prepare(sql);
  } catch (e) {
    reply({ id, error: `SQL error: ${e.message}` });
    return;
  }
  // Only statements that return rows: that also refuses ATTACH, which would read any SQLite file
  // the process can.
  if (!stmt.reader) {
    reply({ id, error: 'Only statements that return rows (SELECT, WITH, PRAGMA) are allowed; the database is read-only' });
    return;
  }
  const rows = [];
  let truncated = false;
  try {
    for (const row of stmt.iterate(...params)) {
      if (rows.length === maxRows) { truncated = true; break; }
      rows.push(row);
    }
  } catch (e) {
    reply({ id, error: `SQL error: ${e.message}` });
    return;
  }
  reply({ id, rows, truncated });
});
