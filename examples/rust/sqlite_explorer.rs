//! The demo: a read-only SQL explorer over an embedded SQLite database. Read-only is enforced by
//! SQLite itself (the connection is opened with `SQLITE_OPEN_READ_ONLY` and `query_only`), not
//! by inspecting the SQL text. A statement may not ATTACH another file (that would read any
//! SQLite file the process can: the attached-database limit is 0), and one that runs longer than
//! `QUERY_TIME` (a recursive CTE that never ends) is interrupted, so no query holds the
//! connection's lock for longer.
//!
//! `sqlite-explorer [--db PATH] [--http HOST:PORT]` — without `--db`, a small sample music
//! database is created in a temporary folder.

#![allow(clippy::print_stderr)]
mod cli;

use oxmcp::apps::UiResourceMeta;
use oxmcp::{
    Completion, Content, Context, HandlerError, Prompt, PromptMessage, PromptResult, Resource,
    ResourceContents, ResourceTemplate, Server, Tool, ToolError, ToolResult,
};
use rusqlite::{limits::Limit, types::ValueRef, Connection, OpenFlags};
use serde_json::{json, Map, Value};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

type Args = Map<String, Value>;
type Db = Arc<Mutex<Connection>>;

const MAX_ROWS: usize = 500;
const QUERY_TIME: Duration = Duration::from_secs(2);
/// The MCP App: a query result as a sortable table and a chart.
const APP_URI: &str = "ui://sqlite-explorer/query.html";
const APP_HTML: &str = include_str!("../apps/sqlite-app.html");

fn sample_db(path: &Path) -> rusqlite::Result<()> {
    let c = Connection::open(path)?;
    c.execute_batch(
        "CREATE TABLE IF NOT EXISTS artists(id INTEGER PRIMARY KEY, name TEXT NOT NULL, country TEXT);
         CREATE TABLE IF NOT EXISTS albums(id INTEGER PRIMARY KEY, artist_id INTEGER NOT NULL REFERENCES artists(id), title TEXT NOT NULL, year INTEGER);
         CREATE TABLE IF NOT EXISTS tracks(id INTEGER PRIMARY KEY, album_id INTEGER NOT NULL REFERENCES albums(id), title TEXT NOT NULL, seconds INTEGER);
         DELETE FROM tracks; DELETE FROM albums; DELETE FROM artists;
         INSERT INTO artists VALUES (1,'Nina Simone','US'),(2,'Fela Kuti','NG'),(3,'Björk','IS');
         INSERT INTO albums VALUES (1,1,'Little Girl Blue',1959),(2,2,'Zombie',1976),(3,3,'Homogenic',1997),(4,3,'Vespertine',2001);
         INSERT INTO tracks VALUES (1,1,'My Baby Just Cares for Me',217),(2,1,'Little Girl Blue',258),(3,2,'Zombie',742),
                                   (4,3,'Jóga',305),(5,3,'Bachelorette',312),(6,4,'Hidden Place',328);",
    )
}

fn open_read_only(path: &Path) -> rusqlite::Result<Connection> {
    let c = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    c.pragma_update(None, "query_only", true)?;
    c.set_limit(Limit::SQLITE_LIMIT_ATTACHED, 0);
    Ok(c)
}

fn cell(v: ValueRef<'_>) -> Value {
    match v {
        ValueRef::Null => Value::Null,
        ValueRef::Integer(i) => json!(i),
        ValueRef::Real(f) => json!(f),
        ValueRef::Text(t) => json!(String::from_utf8_lossy(t)),
        ValueRef::Blob(b) => json!(format!("<{} bytes>", b.len())),
    }
}

/// Run blocking SQLite work off the async workers.
async fn with_db<T: Send + 'static>(
    db: &Db,
    f: impl FnOnce(&Connection) -> Result<T, String> + Send + 'static,
) -> Result<T, HandlerError> {
    let db = db.clone();
    tokio::task::spawn_blocking(move || {
        let c = db
            .lock()
            .map_err(|_| "database lock poisoned".to_string())?;
        f(&c)
    })
    .await
    .map_err(|e| HandlerError::Tool(ToolError::new(e.to_string())))?
    .map_err(|e| HandlerError::Tool(ToolError::new(e)))
}

fn tables(c: &Connection) -> Result<Vec<String>, String> {
    let mut st = c.prepare("SELECT name FROM sqlite_schema WHERE type='table' AND name NOT LIKE 'sqlite_%' ORDER BY name").map_err(|e| e.to_string())?;
    let names = st
        .query_map([], |r| r.get::<_, String>(0))
        .map_err(|e| e.to_string())?;
    names.collect::<Result<_, _>>().map_err(|e| e.to_string())
}

fn describe(c: &Connection, table: &str) -> Result<Value, String> {
    if !tables(c)?.iter().any(|t| t == table) {
        return Err(format!("no such table: {table}"));
    }
    let mut st = c
        .prepare(&format!(
            "PRAGMA table_info(\"{}\")",
            table.replace('"', "\"\"")
        ))
        .map_err(|e| e.to_string())?;
    let cols = st
        .query_map([], |r| {
            Ok(json!({"name": r.get::<_, String>(1)?, "type": r.get::<_, String>(2)?, "notNull": r.get::<_, bool>(3)?, "primaryKey": r.get::<_, i64>(5)? > 0}))
        })
        .map_err(|e| e.to_string())?
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.to_string())?;
    let sql: String = c
        .query_row(
            "SELECT sql FROM sqlite_schema WHERE name = ?1",
            [table],
            |r| r.get(0),
        )
        .map_err(|e| e.to_string())?;
    Ok(json!({"table": table, "columns": cols, "sql": sql}))
}

fn query(c: &Connection, sql: &str, limit: usize) -> Result<Value, String> {
    let deadline = Instant::now() + QUERY_TIME;
    // SQLite calls this every 10,000 VM steps; `true` interrupts the statement.
    c.progress_handler(10_000, Some(move || Instant::now() > deadline));
    let out = run_query(c, sql, limit);
    c.progress_handler(0, None::<fn() -> bool>);
    out.map_err(|e| {
        if Instant::now() > deadline {
            format!(
                "The query ran longer than {} s and was stopped",
                QUERY_TIME.as_secs()
            )
        } else {
            e
        }
    })
}

fn run_query(c: &Connection, sql: &str, limit: usize) -> Result<Value, String> {
    let mut st = c.prepare(sql).map_err(|e| e.to_string())?;
    let columns: Vec<String> = st.column_names().iter().map(|s| s.to_string()).collect();
    let mut rows = st.query([]).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    let mut truncated = false;
    while let Some(r) = rows.next().map_err(|e| e.to_string())? {
        if out.len() == limit {
            truncated = true;
            break;
        }
        out.push(Value::Array(
            (0..columns.len())
                .map(|i| r.get_ref(i).map(cell).unwrap_or(Value::Null))
                .collect(),
        ));
    }
    Ok(json!({"columns": columns, "rows": out, "truncated": truncated}))
}

fn build(db: Db) -> Result<Server, oxmcp::BuildError> {
    let d = db.clone();
    let list_tables = Tool::new("list_tables", json!({"type":"object","properties":{},"additionalProperties":false}))
        .title("List tables")
        .description("List the tables of the database")
        .annotations(json!({"readOnlyHint": true}))
        .output_schema(json!({"type":"object","properties":{"tables":{"type":"array","items":{"type":"string"}}},"required":["tables"]}))
        .handler(move |_: Args, _: Context| {
            let d = d.clone();
            async move {
                let t = with_db(&d, tables).await?;
                Ok::<_, HandlerError>(ToolResult::structured(json!({"tables": t})))
            }
        });
    let d = db.clone();
    let describe_table = Tool::new(
        "describe_table",
        json!({"type":"object","properties":{"table":{"type":"string","description":"Table name"}},"required":["table"],"additionalProperties":false}),
    )
    .title("Describe a table")
    .description("Columns, types and the CREATE statement of a table")
    .annotations(json!({"readOnlyHint": true}))
    .handler(move |a: Args, _: Context| {
        let d = d.clone();
        async move {
            let table = a["table"].as_str().unwrap_or_default().to_string();
            let v = with_db(&d, move |c| describe(c, &table)).await?;
            Ok::<_, HandlerError>(ToolResult::structured(v))
        }
    });
    let d = db.clone();
    let query_tool = Tool::new(
        "query",
        json!({"type":"object","properties":{
            "sql":{"type":"string","description":"One SQL statement; the database is opened read-only"},
            "limit":{"type":"integer","minimum":1,"maximum":MAX_ROWS,"default":100}},
          "required":["sql"],"additionalProperties":false}),
    )
    .title("Run a read-only query")
    .app(APP_URI, &["model", "app"])
    .description("Run a SQL query against the database (read-only: writes fail in SQLite itself)")
    .annotations(json!({"readOnlyHint": true, "openWorldHint": false}))
    .handler(move |a: Args, _: Context| {
        let d = d.clone();
        async move {
            let sql = a["sql"].as_str().unwrap_or_default().to_string();
            let limit = a.get("limit").and_then(Value::as_u64).unwrap_or(100) as usize;
            let v = with_db(&d, move |c| query(c, &sql, limit)).await?;
            Ok::<_, HandlerError>(ToolResult::structured(v))
        }
    });
    let d = db.clone();
    let d2 = db.clone();
    let schema = ResourceTemplate::new("schema://{table}", "Table schema")
        .description("The CREATE statement of a table")
        .mime_type("text/plain")
        .handler(move |uri: String, vars: Args, _: Context| {
            let d = d.clone();
            async move {
                let table = vars["table"].as_str().unwrap_or_default().to_string();
                match with_db(&d, move |c| describe(c, &table)).await {
                    Ok(v) => Ok(vec![ResourceContents::text(
                        uri,
                        "text/plain",
                        v["sql"].as_str().unwrap_or_default(),
                    )]),
                    // An unknown table is a missing resource: empty contents → "Resource not found".
                    Err(_) => Ok::<_, HandlerError>(Vec::new()),
                }
            }
        })
        .complete(move |_arg: String, value: String, _: Args, _: Context| {
            let d = d2.clone();
            async move {
                let t = with_db(&d, tables).await?;
                Ok::<_, HandlerError>(Completion::new(
                    t.into_iter().filter(|t| t.starts_with(&value)).collect(),
                ))
            }
        });
    let d = db.clone();
    let explore = Prompt::new("explore_table")
        .description("Ask the model to explore one table")
        .argument("table", "The table to explore", true)
        .handler(|a: Args, _: Context| async move {
            let t = a["table"].as_str().unwrap_or_default();
            Ok::<_, HandlerError>(PromptResult::new(vec![PromptMessage::user(Content::text(format!(
                "Explore the table `{t}`: read schema://{t}, then use the query tool to summarise its contents (row count, notable values)."
            )))]))
        })
        .complete(move |_arg: String, value: String, _: Args, _: Context| {
            let d = d.clone();
            async move {
                let t = with_db(&d, tables).await?;
                Ok::<_, HandlerError>(Completion::new(t.into_iter().filter(|t| t.starts_with(&value)).collect()))
            }
        });
    Server::builder("oxmcp-sqlite-explorer", env!("CARGO_PKG_VERSION"))
        .title("SQLite explorer")
        .instructions("Read-only access to a SQLite database. Start with list_tables, then describe_table or schema://{table}, then query.")
        .tool(list_tables)
        .tool(describe_table)
        .tool(query_tool)
        .resource(
            Resource::app(
                APP_URI,
                "Query result viewer",
                APP_HTML,
                UiResourceMeta::new().prefers_border(true),
            )
            .description("The query result as a sortable table and a chart"),
        )
        .resource_template(schema)
        .prompt(explore)
        .skills(explore_skill()?)
        .build()
}

/// The `explore-database` skill of examples/skills, the workflow this server's tools serve.
fn explore_skill() -> Result<Vec<oxmcp::Skill>, oxmcp::BuildError> {
    let all = oxmcp::skills::load_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/skills"))?;
    Ok(all
        .into_iter()
        .filter(|s| s.name() == "explore-database")
        .collect())
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let path = match args.iter().position(|a| a == "--db") {
        Some(i) => PathBuf::from(args.get(i + 1).ok_or("--db needs a path")?),
        None => {
            let dir = std::env::temp_dir().join(format!("oxmcp-demo-{}", std::process::id()));
            std::fs::create_dir_all(&dir)?;
            let p = dir.join("music.db");
            sample_db(&p)?;
            p
        }
    };
    let db = Arc::new(Mutex::new(open_read_only(&path)?));
    cli::run(build(db)?).await
}
