//! An MCP server over a real embedded SQLite database (rmcp + rusqlite), seeded with a small
//! shop schema (customers, orders). `query` is read-only for real; `insert_row` writes.
//!
//! `cargo run -p mcp-gen-ui-examples --features sqlite --bin db-server [-- --db PATH]` (default: in memory), `--http ADDR` for
//! streamable HTTP at `/mcp`.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{Implementation, ServerCapabilities, ServerConfig};
use rmcp::{Json, ServerHandler, tool, tool_handler, tool_router};
use rusqlite::types::{Value as SqlValue, ValueRef};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

#[path = "support/serve_main.rs"]
mod serve_main;

/// A runaway query (say, an endless recursive CTE) is interrupted after this long.
const QUERY_TIMEOUT: Duration = Duration::from_secs(5);
const DEFAULT_LIMIT: u32 = 100;
const MAX_LIMIT: u32 = 1000;

const SEED: &str = "
CREATE TABLE customers (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    email TEXT NOT NULL UNIQUE,
    country TEXT,
    created_at TEXT NOT NULL
);
CREATE TABLE orders (
    id INTEGER PRIMARY KEY,
    customer_id INTEGER NOT NULL REFERENCES customers(id),
    product TEXT NOT NULL,
    quantity INTEGER NOT NULL DEFAULT 1 CHECK (quantity > 0),
    total REAL NOT NULL,
    status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'shipped', 'delivered', 'cancelled')),
    ordered_at TEXT NOT NULL
);
INSERT INTO customers (id, name, email, country, created_at) VALUES
    (1, 'Ada Lovelace', 'ada@example.com', 'GB', '2025-01-12'),
    (2, 'Grace Hopper', 'grace@example.com', 'US', '2025-02-03'),
    (3, 'Alan Turing', 'alan@example.com', 'GB', '2025-02-20'),
    (4, 'Katherine Johnson', 'katherine@example.com', 'US', '2025-03-08'),
    (5, 'Hedy Lamarr', 'hedy@example.com', 'AT', '2025-04-15');
INSERT INTO orders (id, customer_id, product, quantity, total, status, ordered_at) VALUES
    (1, 1, 'Analytical Engine manual', 1, 49.5, 'delivered', '2025-03-01'),
    (2, 2, 'COBOL reference card', 3, 12.0, 'delivered', '2025-03-04'),
    (3, 1, 'Punch cards (box of 500)', 2, 30.0, 'shipped', '2025-04-10'),
    (4, 3, 'Enigma rotor set', 1, 199.99, 'pending', '2025-05-02'),
    (5, 4, 'Slide rule', 1, 24.75, 'delivered', '2025-05-09'),
    (6, 5, 'Frequency hopping kit', 1, 89.0, 'cancelled', '2025-05-21'),
    (7, 2, 'Moth (framed)', 1, 15.0, 'shipped', '2025-06-01');
";

#[derive(Debug, Deserialize, JsonSchema)]
struct TableArgs {
    /// Table name, as listed by `list_tables`.
    table: String,
}

fn default_limit() -> u32 {
    DEFAULT_LIMIT
}

#[derive(Debug, Deserialize, JsonSchema)]
struct QueryArgs {
    /// A single read-only SQL statement (SELECT, WITH …, read-only PRAGMA).
    sql: String,
    /// The most rows to return.
    #[serde(default = "default_limit")]
    #[schemars(range(min = 1, max = 1000))]
    limit: u32,
}

#[derive(Debug, Deserialize, JsonSchema)]
struct InsertArgs {
    /// Table name.
    table: String,
    /// Column name → value for the new row. Columns left out get their defaults.
    values: Map<String, Value>,
}

#[derive(Debug, Serialize, JsonSchema)]
struct TableInfo {
    name: String,
    row_count: i64,
}

#[derive(Debug, Serialize, JsonSchema)]
struct TableList {
    tables: Vec<TableInfo>,
}

#[derive(Debug, Serialize, JsonSchema)]
struct ColumnInfo {
    name: String,
    /// The declared SQL type (may be empty).
    r#type: String,
    not_null: bool,
    /// The default value expression, as SQL text.
    default: Option<String>,
    primary_key: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
struct TableDescription {
    table: String,
    columns: Vec<ColumnInfo>,
    row_count: i64,
}

#[derive(Debug, Serialize, JsonSchema)]
struct QueryResult {
    columns: Vec<String>,
    /// One object per row, keyed by column name.
    rows: Vec<Map<String, Value>>,
    row_count: usize,
    /// True when more rows existed than `limit`.
    truncated: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
struct InsertResult {
    table: String,
    rowid: i64,
    row: Map<String, Value>,
}

#[derive(Clone)]
struct Db {
    conn: Arc<Mutex<rusqlite::Connection>>,
    tool_router: ToolRouter<Self>,
}

fn quote_ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

fn to_json(v: ValueRef<'_>) -> Value {
    match v {
        ValueRef::Null => Value::Null,
        ValueRef::Integer(i) => Value::from(i),
        ValueRef::Real(f) => serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number),
        ValueRef::Text(t) => Value::String(String::from_utf8_lossy(t).into_owned()),
        ValueRef::Blob(b) => Value::String(format!("x'{}'", hex::encode(b))),
    }
}

fn to_sql(v: &Value) -> SqlValue {
    match v {
        Value::Null => SqlValue::Null,
        Value::Bool(b) => SqlValue::Integer(i64::from(*b)),
        Value::Number(n) => match n.as_i64() {
            Some(i) => SqlValue::Integer(i),
            None => SqlValue::Real(n.as_f64().unwrap_or(f64::NAN)),
        },
        Value::String(s) => SqlValue::Text(s.clone()),
        // Nested data is stored as JSON text, which SQLite's json functions understand.
        other => SqlValue::Text(other.to_string()),
    }
}

impl Db {
    fn open(path: Option<&str>) -> Result<Db, String> {
        let conn = match path {
            Some(p) => rusqlite::Connection::open(p),
            None => rusqlite::Connection::open_in_memory(),
        }
        .map_err(|e| format!("cannot open the database: {e}"))?;
        let seeded: bool = conn
            .query_row(
                "SELECT count(*) > 0 FROM sqlite_master WHERE type = 'table' AND name = 'customers'",
                [],
                |r| r.get(0),
            )
            .map_err(|e| e.to_string())?;
        if !seeded {
            conn.execute_batch(SEED)
                .map_err(|e| format!("cannot seed the database: {e}"))?;
        }
        Ok(Db {
            conn: Arc::new(Mutex::new(conn)),
            tool_router: Self::tool_router(),
        })
    }

    /// Runs `f` on the connection off the async threads, interrupting it after the timeout.
    async fn with_conn<T, F>(&self, f: F) -> Result<T, String>
    where
        T: Send + 'static,
        F: FnOnce(&rusqlite::Connection) -> Result<T, String> + Send + 'static,
    {
        let conn = self.conn.clone();
        let (handle_tx, handle_rx) = tokio::sync::oneshot::channel();
        let work = tokio::task::spawn_blocking(move || {
            let guard = conn
                .lock()
                .map_err(|_| "the database lock is poisoned".to_string())?;
            let _ = handle_tx.send(guard.get_interrupt_handle());
            f(&guard)
        });
        let watchdog = tokio::spawn(async move {
            if let Ok(handle) = handle_rx.await {
                tokio::time::sleep(QUERY_TIMEOUT).await;
                handle.interrupt();
            }
        });
        let res = work
            .await
            .map_err(|e| format!("the query task failed: {e}"));
        watchdog.abort();
        res?.map_err(|e| {
            if e.contains("interrupted") {
                format!(
                    "The statement ran longer than {} s and was stopped.",
                    QUERY_TIMEOUT.as_secs()
                )
            } else {
                e
            }
        })
    }

    fn table_exists(conn: &rusqlite::Connection, table: &str) -> Result<(), String> {
        let found: bool = conn
            .query_row(
                "SELECT count(*) > 0 FROM sqlite_master WHERE type IN ('table', 'view') AND name = ?1",
                [table],
                |r| r.get(0),
            )
            .map_err(|e| e.to_string())?;
        if found {
            Ok(())
        } else {
            let tables = list_tables(conn)?
                .into_iter()
                .map(|t| t.name)
                .collect::<Vec<_>>()
                .join(", ");
            Err(format!("No table named {table:?}. Tables: {tables}."))
        }
    }
}

fn list_tables(conn: &rusqlite::Connection) -> Result<Vec<TableInfo>, String> {
    let mut stmt = conn
        .prepare(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' \
             ORDER BY name",
        )
        .map_err(|e| e.to_string())?;
    let names: Vec<String> = stmt
        .query_map([], |r| r.get(0))
        .map_err(|e| e.to_string())?
        .collect::<Result<_, _>>()
        .map_err(|e| e.to_string())?;
    names
        .into_iter()
        .map(|name| {
            let row_count = conn
                .query_row(
                    &format!("SELECT count(*) FROM {}", quote_ident(&name)),
                    [],
                    |r| r.get(0),
                )
                .map_err(|e| e.to_string())?;
            Ok(TableInfo { name, row_count })
        })
        .collect()
}

#[tool_router]
impl Db {
    /// List the tables of the database with their row counts.
    #[tool(
        title = "List tables",
        annotations(read_only_hint = true, open_world_hint = false, idempotent_hint = true)
    )]
    async fn list_tables(&self) -> Result<Json<TableList>, String> {
        let tables = self.with_conn(list_tables).await?;
        Ok(Json(TableList { tables }))
    }

    /// Describe a table: its columns, their types and constraints, and its row count.
    #[tool(
        title = "Describe table",
        annotations(read_only_hint = true, open_world_hint = false, idempotent_hint = true)
    )]
    async fn describe_table(
        &self,
        Parameters(args): Parameters<TableArgs>,
    ) -> Result<Json<TableDescription>, String> {
        let desc = self
            .with_conn(move |conn| {
                Db::table_exists(conn, &args.table)?;
                let mut stmt = conn
                    .prepare(
                        "SELECT name, type, \"notnull\", dflt_value, pk FROM pragma_table_info(?1)",
                    )
                    .map_err(|e| e.to_string())?;
                let columns = stmt
                    .query_map([&args.table], |r| {
                        Ok(ColumnInfo {
                            name: r.get(0)?,
                            r#type: r.get(1)?,
                            not_null: r.get::<_, i64>(2)? != 0,
                            default: r.get(3)?,
                            primary_key: r.get::<_, i64>(4)? != 0,
                        })
                    })
                    .map_err(|e| e.to_string())?
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(|e| e.to_string())?;
                let row_count = conn
                    .query_row(
                        &format!("SELECT count(*) FROM {}", quote_ident(&args.table)),
                        [],
                        |r| r.get(0),
                    )
                    .map_err(|e| e.to_string())?;
                Ok(TableDescription {
                    table: args.table,
                    columns,
                    row_count,
                })
            })
            .await?;
        Ok(Json(desc))
    }

    /// Run one read-only SQL statement and return its rows. Statements that would change the
    /// database are refused.
    #[tool(
        title = "Run a read-only SQL query",
        annotations(read_only_hint = true, open_world_hint = false, idempotent_hint = true)
    )]
    async fn query(
        &self,
        Parameters(args): Parameters<QueryArgs>,
    ) -> Result<Json<QueryResult>, String> {
        let limit = args.limit.clamp(1, MAX_LIMIT) as usize;
        let result = self
            .with_conn(move |conn| {
                let first_word = args
                    .sql
                    .trim_start()
                    .split(|c: char| !c.is_ascii_alphabetic())
                    .next()
                    .unwrap_or("")
                    .to_ascii_uppercase();
                // ATTACH/DETACH count as read-only to SQLite, yet ATTACH creates files.
                if first_word == "ATTACH" || first_word == "DETACH" {
                    return Err(format!("{first_word} is not allowed in `query`."));
                }
                let mut stmt = conn
                    .prepare(&args.sql)
                    .map_err(|e| format!("SQL error: {e}"))?;
                if !stmt.readonly() {
                    return Err(
                        "`query` only runs read-only statements (SELECT, WITH, read-only PRAGMA); \
                         use `insert_row` to add data."
                            .into(),
                    );
                }
                let columns: Vec<String> = stmt.column_names().map(str::to_string).collect();
                let mut rows = Vec::new();
                let mut truncated = false;
                let mut cursor = stmt.query([]).map_err(|e| format!("SQL error: {e}"))?;
                while let Some(row) = cursor.next().map_err(|e| format!("SQL error: {e}"))? {
                    if rows.len() == limit {
                        truncated = true;
                        break;
                    }
                    let mut obj = Map::new();
                    for (i, name) in columns.iter().enumerate() {
                        let v = row.get_ref(i).map_err(|e| e.to_string())?;
                        obj.insert(name.clone(), to_json(v));
                    }
                    rows.push(obj);
                }
                Ok(QueryResult {
                    row_count: rows.len(),
                    columns,
                    rows,
                    truncated,
                })
            })
            .await?;
        Ok(Json(result))
    }

    /// Insert one row into a table and return it with its rowid.
    #[tool(
        title = "Insert a row",
        annotations(
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn insert_row(
        &self,
        Parameters(args): Parameters<InsertArgs>,
    ) -> Result<Json<InsertResult>, String> {
        let result = self
            .with_conn(move |conn| {
                Db::table_exists(conn, &args.table)?;
                if args.values.is_empty() {
                    return Err("`values` is empty: give at least one column.".into());
                }
                let cols: Vec<String> = args.values.keys().map(|k| quote_ident(k)).collect();
                let marks: Vec<String> = (1..=cols.len()).map(|i| format!("?{i}")).collect();
                let sql = format!(
                    "INSERT INTO {} ({}) VALUES ({})",
                    quote_ident(&args.table),
                    cols.join(", "),
                    marks.join(", ")
                );
                let params: Vec<SqlValue> = args.values.values().map(to_sql).collect();
                conn.execute(&sql, rusqlite::params_from_iter(params))
                    .map_err(|e| format!("SQL error: {e}"))?;
                let rowid = conn.last_insert_rowid();
                let mut stmt = conn
                    .prepare(&format!(
                        "SELECT * FROM {} WHERE rowid = ?1",
                        quote_ident(&args.table)
                    ))
                    .map_err(|e| e.to_string())?;
                let names: Vec<String> = stmt.column_names().map(str::to_string).collect();
                let row = stmt
                    .query_row([rowid], |r| {
                        let mut obj = Map::new();
                        for (i, n) in names.iter().enumerate() {
                            obj.insert(n.clone(), to_json(r.get_ref(i)?));
                        }
                        Ok(obj)
                    })
                    .map_err(|e| e.to_string())?;
                Ok(InsertResult {
                    table: args.table,
                    rowid,
                    row,
                })
            })
            .await?;
        Ok(Json(result))
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Db {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("sqlite-db", env!("CARGO_PKG_VERSION")))
            .with_instructions("A small SQLite shop database: customers and orders.")
    }
}

fn main() -> std::process::ExitCode {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let serve = match serve_main::take_serve_args(&mut args) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("db-server: {e}");
            return std::process::ExitCode::from(2);
        }
    };
    let mut db_path = None;
    let mut it = args.into_iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--db" => match it.next() {
                Some(p) => db_path = Some(p),
                None => {
                    eprintln!("db-server: --db needs a path");
                    return std::process::ExitCode::from(2);
                }
            },
            other => {
                eprintln!(
                    "db-server: unknown argument {other:?} (usage: db-server [--db PATH] [--http ADDR])"
                );
                return std::process::ExitCode::from(2);
            }
        }
    }
    let db = match Db::open(db_path.as_deref()) {
        Ok(db) => db,
        Err(e) => {
            eprintln!("db-server: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    // Every HTTP session shares the one database.
    serve_main::run("sqlite-db", serve, move || Ok(db.clone()))
}
