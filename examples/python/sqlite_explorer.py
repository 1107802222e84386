"""A read-only SQL explorer over an embedded SQLite database.

The database is opened read-only (``file:...?mode=ro``), so `query` cannot change it even if a
statement tries. A statement may not ATTACH another file (that would read any SQLite file the
process can), and one that runs longer than QUERY_SECONDS (a recursive CTE that never ends) is
stopped. Without ``--db`` a small demo database is created in a temporary directory.

    python examples/python/sqlite_explorer.py [--db PATH]                  # stdio
    python examples/python/sqlite_explorer.py --http 127.0.0.1:8000        # Streamable HTTP at /mcp
"""

from __future__ import annotations

import os
import sqlite3
import sys
import tempfile
import time
from pathlib import Path
from typing import Annotated, Any

from pydantic import Field

from oxmcp import ResourceError, Server, Skill, ToolError

MAX_ROWS = 500
QUERY_SECONDS = 2.0


def demo_database(path: Path) -> None:
    with sqlite3.connect(path) as db:
        db.executescript("""
            CREATE TABLE IF NOT EXISTS artists (id INTEGER PRIMARY KEY, name TEXT NOT NULL, country TEXT);
            CREATE TABLE IF NOT EXISTS albums (id INTEGER PRIMARY KEY, artist_id INTEGER NOT NULL REFERENCES artists(id),
                                               title TEXT NOT NULL, year INTEGER);
            DELETE FROM albums; DELETE FROM artists;
            INSERT INTO artists VALUES (1, 'Nina Simone', 'US'), (2, 'Fela Kuti', 'NG'), (3, 'Björk', 'IS');
            INSERT INTO albums VALUES (1, 1, 'Pastel Blues', 1965), (2, 1, 'Wild Is the Wind', 1966),
                                      (3, 2, 'Zombie', 1976), (4, 3, 'Homogenic', 1997), (5, 3, 'Vespertine', 2001);
        """)


def _db_path() -> Path:
    if "--db" in sys.argv:
        i = sys.argv.index("--db")
        path = Path(sys.argv[i + 1])
        del sys.argv[i:i + 2]
        return path
    env = os.environ.get("OXMCP_SQLITE_DB")
    if env:
        return Path(env)
    path = Path(tempfile.mkdtemp(prefix="oxmcp-sqlite-")) / "music.db"
    demo_database(path)
    return path


DB_PATH = _db_path()
server = Server("sqlite-explorer", version="0.1.0",
                instructions="Explore a read-only SQLite database: list_tables, describe_table, then query.")
# The workflow these tools serve, as a skill (examples/skills/explore-database).
server.add_skill(Skill.from_directory(Path(__file__).resolve().parent.parent / "skills" / "explore-database"))


def connect() -> sqlite3.Connection:
    # mode=ro: SQLite refuses every write on this connection.
    db = sqlite3.connect(f"{DB_PATH.resolve().as_uri()}?mode=ro", uri=True, timeout=5)
    db.row_factory = sqlite3.Row
    db.set_authorizer(_no_attach)
    return db


def _no_attach(action: int, *_: object) -> int:
    return sqlite3.SQLITE_DENY if action in (sqlite3.SQLITE_ATTACH, sqlite3.SQLITE_DETACH) else sqlite3.SQLITE_OK


def _tables(db: sqlite3.Connection) -> list[str]:
    rows = db.execute("SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    return [r[0] for r in rows]


def _columns(db: sqlite3.Connection, table: str) -> list[dict[str, Any]]:
    if table not in _tables(db):
        raise ToolError(f"No table named {table!r}; call list_tables first")
    return [{"name": r["name"], "type": r["type"], "notNull": bool(r["notnull"]), "primaryKey": bool(r["pk"])}
            for r in db.execute(f'PRAGMA table_info("{table}")')]


@server.tool(annotations={"read_only_hint": True})
def list_tables() -> list[str]:
    """List the tables of the database."""
    with connect() as db:
        return _tables(db)


@server.tool(annotations={"read_only_hint": True})
def describe_table(table: str) -> list[dict[str, Any]]:
    """Describe a table's columns.

    Args:
        table: table name, as returned by list_tables
    """
    with connect() as db:
        return _columns(db, table)


# The MCP App: a query result as a sortable table and a chart (examples/apps/sqlite-app.html).
APP_URI = "ui://sqlite-explorer/query.html"
APP_HTML = Path(__file__).resolve().parent.parent / "apps" / "sqlite-app.html"


@server.ui_resource(APP_URI, name="Query result viewer", description="The query result as a sortable table and a chart",
                    prefers_border=True)
def query_app() -> str:
    return APP_HTML.read_text(encoding="utf-8")


@server.tool(annotations={"read_only_hint": True}, app={"resource_uri": APP_URI, "visibility": ["model", "app"]})
def query(sql: str, limit: Annotated[int, Field(ge=1, le=MAX_ROWS)] = 100) -> dict[str, Any]:
    """Run one read-only SQL statement and return its rows.

    Args:
        sql: a single SELECT (or other read-only) statement
        limit: maximum rows to return
    """
    with connect() as db:
        deadline = time.monotonic() + QUERY_SECONDS
        # SQLite calls this every 10,000 VM steps; a non-zero answer interrupts the statement.
        db.set_progress_handler(lambda: int(time.monotonic() > deadline), 10_000)
        try:
            cur = db.execute(sql)
            columns = [d[0] for d in cur.description or []]
            rows = [list(r) for r in cur.fetchmany(limit)]
            truncated = cur.fetchone() is not None
        except sqlite3.Error as exc:
            if time.monotonic() > deadline:
                raise ToolError(f"The query ran longer than {QUERY_SECONDS:g} s and was stopped") from exc
            raise ToolError(f"SQL error: {exc}") from exc
    return {"columns": columns, "rows": rows, "truncated": truncated}


@server.resource("schema://{table}", mime_type="application/json",
                 completions={"table": lambda value: [t for t in list_tables() if t.startswith(value)]})
def table_schema(table: str) -> dict[str, Any]:
    """The schema of one table, with its CREATE statement."""
    with connect() as db:
        row = db.execute("SELECT sql FROM sqlite_master WHERE type='table' AND name=?", (table,)).fetchone()
        if row is None:
            raise ResourceError(f"No table named {table!r}")
        return {"table": table, "sql": row[0], "columns": _columns(db, table)}


@server.prompt(completions={"table": lambda value: [t for t in list_tables() if t.startswith(value)]})
def explore_table(table: str, question: str = "What is interesting in this table?") -> str:
    """Ask the assistant to explore one table.

    Args:
        table: the table to explore
        question: what to find out
    """
    return (f"Use describe_table on {table!r}, then query it (read-only) to answer: {question} "
            "Show the SQL you ran.")


if __name__ == "__main__":
    server.main()
