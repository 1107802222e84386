//! Tool search: a BM25 index over one registry version's tools, exact and prefix name
//! matches, and a bounded regex mode.
//!
//! Why a small index of our own rather than a search crate: the corpus is the registry's own
//! short texts (a name, a title, a description, parameter names and their descriptions: tens of
//! tokens per tool), queried by one process that already holds them. An inverted index of
//! `term → [(tool, tf)]` is a few hundred bytes per tool and answers a query in the length of
//! its terms' postings. tantivy would add a segment store, a schema, a writer thread and tens of
//! crates for the same ranking (bm25.rs in it is this formula), and would keep a second copy
//! of every text. Figures in bench/RESULTS.md.
//!
//! Kept in step with the registry by construction: an index belongs to one registry version
//! (it hangs on `Registry::rendered`, which every change resets), is built on the first search
//! of that version and shared by every search after it. Adds, removes and replacements are new
//! versions, so no search sees a tool that is gone or misses one that was added.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::Value;

use super::registry::Table;
use crate::tool::ToolEntry;

/// BM25 Okapi's parameters (the usual ones; FastMCP's too).
const K1: f32 = 1.5;
const B: f32 = 0.75;

/// Longest regex pattern accepted, in bytes (FastMCP's bound too).
pub(crate) const MAX_PATTERN_LEN: usize = 1000;
/// Most memory the compiled regex (its NFA) and its lazy DFA cache may take. The `regex` crate
/// matches in time linear in the text for any pattern (no backtracking), so the cost of a
/// search is bounded by these sizes times the text searched, which the index bounds: a pattern
/// whose compiled form would be larger (`(a{100}){100}`, nested counted repetitions) is refused
/// when it is compiled, before any text is read.
pub(crate) const REGEX_SIZE_LIMIT: usize = 1 << 20;
pub(crate) const REGEX_DFA_SIZE_LIMIT: usize = 2 << 20;
/// Most tools one search may return (`tool_search_max_results`, the method's `limit`).
pub(crate) const MAX_RESULTS: usize = 50;
/// Longest query text ranked (longer is cut): a query's cost is its terms' postings.
pub(crate) const MAX_QUERY_LEN: usize = 1000;

/// One registry version's tools, indexed for search.
pub(crate) struct SearchIndex {
    /// Document id → the tool (its descriptor is rendered from it for a result).
    tools: Vec<Arc<ToolEntry>>,
    /// Document id → its length in tokens.
    lens: Vec<u32>,
    avg_len: f32,
    /// Term → its postings: `(document id, term frequency)`, by document id.
    postings: HashMap<Box<str>, Vec<(u32, u32)>, foldhash::fast::RandomState>,
    /// Document ids by lower-cased name, for exact and prefix name matches.
    by_name: Vec<u32>,
    lower_names: Vec<Box<str>>,
    /// Every tool's searchable text, one after another (`text_at[d]..text_at[d + 1]`), for the
    /// regex mode: what FastMCP matches (name, description, parameter names and descriptions).
    text: String,
    text_at: Vec<u32>,
}

/// How a search is asked.
pub(crate) enum Query<'a> {
    /// Natural language, ranked by BM25 after exact and prefix name matches.
    Text(&'a str),
    /// A case-insensitive regular expression; matches in registration order.
    Regex(&'a str),
}

/// Why a search was refused.
#[derive(Debug)]
pub(crate) enum SearchError {
    PatternTooLong,
    BadPattern(String),
}

impl std::fmt::Display for SearchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::PatternTooLong => write!(f, "pattern longer than {MAX_PATTERN_LEN} bytes"),
            Self::BadPattern(e) => write!(f, "invalid pattern: {e}"),
        }
    }
}

/// Lower-cased alphanumeric runs of at least two characters (`_`, `-`, `.`, spaces and
/// camelCase boundaries split), each with a light plural fold (`files` → `file`,
/// `entries` → `entry`), so `send_emails` and "send an email" meet.
pub(crate) fn tokens(text: &str, mut out: impl FnMut(String)) {
    let mut cur = String::new();
    let mut prev_lower = false;
    let mut flush = |cur: &mut String| {
        if cur.chars().nth(1).is_some() {
            out(fold(std::mem::take(cur)));
        } else {
            cur.clear();
        }
    };
    for c in text.chars() {
        if c.is_alphanumeric() {
            if c.is_uppercase() && prev_lower {
                flush(&mut cur);
            }
            prev_lower = c.is_lowercase() || c.is_numeric();
            cur.extend(c.to_lowercase());
        } else {
            prev_lower = false;
            flush(&mut cur);
        }
    }
    flush(&mut cur);
}

fn fold(mut t: String) -> String {
    if t.len() > 4 && t.ends_with("ies") {
        t.truncate(t.len() - 3);
        t.push('y');
    } else if t.len() > 3
        && t.ends_with('s')
        && !t.ends_with("ss")
        && !t.ends_with("us")
        && !t.ends_with("is")
    {
        t.pop();
    }
    t
}

/// The parts of a tool that are searched, as FastMCP joins them: name, title, description,
/// then each top-level parameter's name and description.
fn searchable(t: &ToolEntry) -> String {
    #[derive(serde::Deserialize)]
    struct Def {
        title: Option<String>,
        description: Option<String>,
    }
    let def: Option<Def> = serde_json::from_str(t.def.get()).ok();
    let mut parts = vec![t.name.clone()];
    if let Some(d) = def {
        parts.extend(d.title);
        parts.extend(d.description);
    }
    if let Some(Value::Object(props)) = t.input.source().get("properties") {
        for (k, v) in props {
            parts.push(k.clone());
            if let Some(d) = v.get("description").and_then(Value::as_str) {
                parts.push(d.to_owned());
            }
        }
    }
    parts.join(" ")
}

impl SearchIndex {
    pub(crate) fn build(tools: &Table<ToolEntry>) -> Self {
        let mut idx = SearchIndex {
            tools: Vec::new(),
            lens: Vec::new(),
            avg_len: 0.0,
            postings: HashMap::default(),
            by_name: Vec::new(),
            lower_names: Vec::new(),
            text: String::new(),
            text_at: vec![0],
        };
        let mut tf: HashMap<String, u32> = HashMap::new();
        let mut total = 0u64;
        for (d, t) in tools.values().enumerate() {
            let d = d as u32;
            let text = searchable(t);
            tf.clear();
            let mut len = 0u32;
            // The name counts twice: a tool named for the query is what the query means.
            tokens(&t.name, |w| {
                *tf.entry(w).or_default() += 1;
                len += 1;
            });
            tokens(&text, |w| {
                *tf.entry(w).or_default() += 1;
                len += 1;
            });
            for (w, n) in tf.drain() {
                idx.postings.entry(w.into()).or_default().push((d, n));
            }
            idx.lens.push(len);
            total += u64::from(len);
            idx.lower_names.push(t.name.to_lowercase().into());
            idx.text.push_str(&text);
            idx.text_at.push(idx.text.len() as u32);
            idx.tools.push(t.clone());
        }
        for p in idx.postings.values_mut() {
            p.shrink_to_fit();
        }
        idx.postings.shrink_to_fit();
        idx.text.shrink_to_fit();
        idx.avg_len = if idx.tools.is_empty() {
            0.0
        } else {
            total as f32 / idx.tools.len() as f32
        };
        let mut by_name: Vec<u32> = (0..idx.tools.len() as u32).collect();
        by_name.sort_unstable_by(|a, b| {
            idx.lower_names[*a as usize].cmp(&idx.lower_names[*b as usize])
        });
        idx.by_name = by_name;
        idx
    }

    /// The best `limit` tools for `query` that `visible` admits, best first. `visible` is asked
    /// before a tool is ranked, so a hidden tool takes no place and its presence changes no
    /// other tool's rank: a term's document frequency counts only visible tools.
    pub(crate) fn search(
        &self,
        query: Query<'_>,
        limit: usize,
        visible: impl Fn(&ToolEntry) -> bool,
    ) -> Result<Vec<Arc<ToolEntry>>, SearchError> {
        match query {
            Query::Text(q) => Ok(self.ranked(q, limit, visible)),
            Query::Regex(p) => self.matching(p, limit, visible),
        }
    }

    fn ranked(
        &self,
        q: &str,
        limit: usize,
        visible: impl Fn(&ToolEntry) -> bool,
    ) -> Vec<Arc<ToolEntry>> {
        let q = match q.char_indices().nth(MAX_QUERY_LEN) {
            Some((i, _)) => &q[..i],
            None => q,
        };
        if limit == 0 || self.tools.is_empty() {
            return Vec::new();
        }
        // Visibility is asked once per candidate document: 0 not yet, 1 visible, 2 hidden.
        let mut seen = vec![0u8; self.tools.len()];
        let mut ok = |d: u32| {
            let s = &mut seen[d as usize];
            if *s == 0 {
                *s = if visible(&self.tools[d as usize]) {
                    1
                } else {
                    2
                };
            }
            *s == 1
        };
        let mut terms: Vec<String> = Vec::new();
        tokens(q, |w| {
            if !terms.contains(&w) {
                terms.push(w);
            }
        });
        let n = self.tools.len() as f32;
        // Dense: a query touches many documents of a large catalog, and a vector indexed by
        // document id is cheaper to fill than a map (0 = not a candidate).
        let mut scores = vec![0f32; self.tools.len()];
        let mut touched: Vec<u32> = Vec::new();
        for w in &terms {
            let Some(post) = self.postings.get(w.as_str()) else {
                continue;
            };
            let live: Vec<(u32, u32)> = post.iter().copied().filter(|(d, _)| ok(*d)).collect();
            let df = live.len() as f32;
            if df == 0.0 {
                continue;
            }
            let idf = ((n - df + 0.5) / (df + 0.5) + 1.0).ln();
            let norm = K1 * (1.0 - B);
            let per_len = K1 * B / self.avg_len;
            for (d, tf) in live {
                let tf = tf as f32;
                let dl = self.lens[d as usize] as f32;
                let s = &mut scores[d as usize];
                if *s == 0.0 {
                    touched.push(d);
                }
                *s += idf * tf * (K1 + 1.0) / (tf + norm + per_len * dl);
            }
        }
        // Names: the query as a whole (spaces as `_`), lower-cased, equal to a name ranks that
        // tool first; a name that starts with it ranks next.
        let key: String = q.trim().to_lowercase().replace(char::is_whitespace, "_");
        let mut hits: Vec<(u8, f32, u32)> = Vec::new();
        let mut named: Vec<u32> = Vec::new();
        if key.len() >= 2 {
            let start = self
                .by_name
                .partition_point(|d| *self.lower_names[*d as usize] < *key);
            for &d in self.by_name[start..]
                .iter()
                .take_while(|d| self.lower_names[**d as usize].starts_with(&*key))
            {
                if ok(d) {
                    let exact = *self.lower_names[d as usize] == *key;
                    hits.push((if exact { 2 } else { 1 }, scores[d as usize], d));
                    named.push(d);
                }
            }
        }
        for &d in &named {
            scores[d as usize] = 0.0;
        }
        hits.extend(
            touched
                .into_iter()
                .filter(|d| scores[*d as usize] > 0.0)
                .map(|d| (0, scores[d as usize], d)),
        );
        let order = |a: &(u8, f32, u32), b: &(u8, f32, u32)| {
            b.0.cmp(&a.0).then(b.1.total_cmp(&a.1)).then(a.2.cmp(&b.2))
        };
        if hits.len() > limit {
            hits.select_nth_unstable_by(limit - 1, order);
            hits.truncate(limit);
        }
        hits.sort_unstable_by(order);
        hits.into_iter()
            .map(|(_, _, d)| self.tools[d as usize].clone())
            .collect()
    }

    fn matching(
        &self,
        pattern: &str,
        limit: usize,
        visible: impl Fn(&ToolEntry) -> bool,
    ) -> Result<Vec<Arc<ToolEntry>>, SearchError> {
        let re = compile(pattern)?;
        let mut out = Vec::new();
        for d in 0..self.tools.len() {
            if out.len() >= limit {
                break;
            }
            let text = &self.text[self.text_at[d] as usize..self.text_at[d + 1] as usize];
            if re.is_match(text) && visible(&self.tools[d]) {
                out.push(self.tools[d].clone());
            }
        }
        Ok(out)
    }
}

/// A case-insensitive pattern within the size limits (see [`REGEX_SIZE_LIMIT`]).
pub(crate) fn compile(pattern: &str) -> Result<regex::Regex, SearchError> {
    if pattern.len() > MAX_PATTERN_LEN {
        return Err(SearchError::PatternTooLong);
    }
    regex::RegexBuilder::new(pattern)
        .case_insensitive(true)
        .size_limit(REGEX_SIZE_LIMIT)
        .dfa_size_limit(REGEX_DFA_SIZE_LIMIT)
        .nest_limit(64)
        .build()
        .map_err(|e| SearchError::BadPattern(e.to_string()))
}

#[cfg(test)]
mod tests {
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
        let all = |_: &ToolEntry| true;
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
            .search(Query::Text("weather"), 5, |t| t.name != "get_weather")
            .unwrap();
        assert_eq!(names(r), ["get_weather_forecast"]);
        let r = idx
            .search(Query::Regex("weather"), 5, |t| t.name != "get_weather")
            .unwrap();
        assert_eq!(names(r), ["get_weather_forecast"]);
    }

    #[test]
    fn regex_is_bounded() {
        let idx = sample();
        let all = |_: &ToolEntry| true;
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
}
