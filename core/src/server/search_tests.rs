//! The search index's unit tests (a child module of `search`).
use super::*;
use crate::schema::SchemaCache;
use crate::{HandlerError, Tool, ToolResult};
use serde_json::json;

/// A tool as the tests write it: name, description, `(parameter, description)`s.
type Def<'a> = (&'a str, &'a str, &'a [(&'a str, &'a str)]);

fn table(defs: &[Def<'_>]) -> Table<ToolEntry> {
    let cache = SchemaCache::default();
    let mut t = Table::default();
    for (name, desc, params) in defs {
        let props: serde_json::Map<String, Value> = params
            .iter()
            .map(|(k, d)| {
                (
                    (*k).to_string(),
                    json!({"type": "string", "description": d}),
                )
            })
            .collect();
        let tool = Tool::new(*name, json!({"type": "object", "properties": props}))
            .description(*desc)
            .handler(|_a, _c| async { Ok::<_, HandlerError>(ToolResult::text("")) });
        let e = ToolEntry::compile(tool, &cache).unwrap();
        t.insert(e.name.clone(), Arc::new(e));
    }
    t
}

fn names(v: Vec<Arc<ToolEntry>>) -> Vec<String> {
    v.into_iter().map(|t| t.name.clone()).collect()
}

fn sample() -> SearchIndex {
    SearchIndex::build(&table(&[
        (
            "send_email",
            "Send an email message to recipients",
            &[("to", "Recipient address")],
        ),
        (
            "list_files",
            "List the files in a directory",
            &[("path", "Directory path")],
        ),
        (
            "get_weather",
            "Current weather for a city",
            &[("city", "City name")],
        ),
        (
            "get_weather_forecast",
            "Weather forecast for the next days",
            &[("city", "")],
        ),
        ("delete_file", "Delete one file", &[("path", "File path")]),
    ]))
}

#[test]
fn tokens_split_and_fold() {
    let mut v = Vec::new();
    tokens("getUserEntries send_emails a B42 files.list", |w| v.push(w));
    assert_eq!(
        v,
        ["get", "user", "entry", "send", "email", "b42", "file", "list"]
    );
}

#[test]
fn ranks_by_bm25_and_names_first() {
    let idx = sample();
    let all = None;
    assert_eq!(
        names(
            idx.search(Query::Text("send mail to someone by email"), 3, all)
                .unwrap()
        )[0],
        "send_email"
    );
    assert_eq!(
        names(idx.search(Query::Text("get_weather"), 2, all).unwrap()),
        ["get_weather", "get_weather_forecast"],
        "exact name, then prefix"
    );
    assert_eq!(
        names(idx.search(Query::Text("remove a file"), 1, all).unwrap()),
        ["delete_file"]
    );
    assert!(idx
        .search(Query::Text("zzz qqq"), 5, all)
        .unwrap()
        .is_empty());
}

#[test]
fn hidden_tools_take_no_place() {
    let idx = sample();
    let r = idx
        .search(
            Query::Text("weather"),
            5,
            Some(&|t| t.name != "get_weather"),
        )
        .unwrap();
    assert_eq!(names(r), ["get_weather_forecast"]);
    let r = idx
        .search(
            Query::Regex("weather"),
            5,
            Some(&|t| t.name != "get_weather"),
        )
        .unwrap();
    assert_eq!(names(r), ["get_weather_forecast"]);
}

#[test]
fn regex_is_bounded() {
    let idx = sample();
    let all = None;
    assert_eq!(
        names(idx.search(Query::Regex("^list_|^DELETE"), 5, all).unwrap()),
        ["list_files", "delete_file"]
    );
    assert!(matches!(
        idx.search(Query::Regex(&"a".repeat(MAX_PATTERN_LEN + 1)), 5, all),
        Err(SearchError::PatternTooLong)
    ));
    let t = std::time::Instant::now();
    assert!(matches!(
        idx.search(Query::Regex("((a{100}){100}){100}"), 5, all),
        Err(SearchError::BadPattern(_))
    ));
    assert!(matches!(
        idx.search(Query::Regex("(a"), 5, all),
        Err(SearchError::BadPattern(_))
    ));
    assert!(matches!(
        idx.search(Query::Regex("(?=a)"), 5, all),
        Err(SearchError::BadPattern(_))
    ));
    assert!(t.elapsed() < std::time::Duration::from_secs(1));
}

/// The fixture catalog three times over (tool `i` is fixture tool `i % 1000` with the suffix
/// `_{i / 1000}`, as the benchmark makes it), so terms are shared by many tools and scores tie.
fn fixture(copies: usize) -> (SearchIndex, Vec<String>) {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/config/tools-1000.json"
    );
    let f: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let cache = SchemaCache::default();
    let mut t = Table::default();
    let defs = f["tools"].as_array().unwrap();
    for i in 0..defs.len() * copies {
        let d = &defs[i % defs.len()];
        let name = format!("{}_{}", d["name"].as_str().unwrap(), i / defs.len());
        let tool = Tool::new(name, d["inputSchema"].clone())
            .description(d["description"].as_str().unwrap())
            .handler(|_a, _c| async { Ok::<_, HandlerError>(ToolResult::text("")) });
        let e = ToolEntry::compile(tool, &cache).unwrap();
        t.insert(e.name.clone(), Arc::new(e));
    }
    let mut queries: Vec<String> = f["queries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|q| q["query"].as_str().unwrap().to_owned())
        .collect();
    queries.extend(
        [
            "list",
            "get",
            "to",
            "delete",
            "github",
            "github_",
            "slack get",
            "wea",
            "the file",
            "send a message to a channel",
            "list the files in a directory",
            "create update delete",
            "page cursor limit",
            "zzz",
            "x",
            "",
        ]
        .map(String::from),
    );
    (SearchIndex::build(&t), queries)
}

#[test]
fn seeing_every_tool_ranks_as_the_exhaustive_path() {
    let (mut idx, queries) = fixture(3);
    let every: &dyn Fn(&ToolEntry) -> bool = &|_| true;
    for budget in [TOP_K_MAX_SCORED, 1] {
        idx.top_k_budget = budget;
        for q in &queries {
            for limit in [1, 5, 50] {
                let fast = names(idx.search(Query::Text(q), limit, None).unwrap());
                let slow = names(idx.search(Query::Text(q), limit, Some(every)).unwrap());
                assert_eq!(fast, slow, "query {q:?}, limit {limit}, budget {budget}");
            }
        }
    }
}
