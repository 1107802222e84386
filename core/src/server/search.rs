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

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
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
    /// Term → its postings.
    postings: HashMap<Box<str>, Postings, foldhash::fast::RandomState>,
    /// Document ids by lower-cased name, for exact and prefix name matches, and each
    /// document's place in that order (so "is this name in the prefix range" is one compare).
    by_name: Vec<u32>,
    name_rank: Vec<u32>,
    lower_names: Vec<Box<str>>,
    /// Every tool's searchable text, one after another (`text_at[d]..text_at[d + 1]`), for the
    /// regex mode: what FastMCP matches (name, description, parameter names and descriptions).
    text: String,
    text_at: Vec<u32>,
    /// Most documents a threshold top-k scores (see [`TOP_K_MAX_SCORED`]; lowered by tests).
    top_k_budget: usize,
}

/// One term's postings. BM25's term-frequency part (`tf·(k1+1) / (tf + k1·(1−b+b·len/avg))`)
/// depends only on the document, so it is computed once here; a query multiplies it by the
/// term's idf, which depends on which tools the caller sees.
struct Postings {
    /// `(document id, tf part)`, by document id: a document's part is found by binary search.
    by_doc: Box<[(u32, f32)]>,
    /// Indexes into `by_doc`, best score first (then by document id): the order in which a
    /// query that sees every tool reads them, to stop as soon as no unread one can rank.
    by_impact: Box<[u32]>,
}

impl Postings {
    /// The tf part of document `d`, if it has the term.
    fn part(&self, d: u32) -> Option<f32> {
        self.by_doc
            .binary_search_by_key(&d, |e| e.0)
            .ok()
            .map(|i| self.by_doc[i].1)
    }
}

/// BM25's idf of a term in `df` of `n` documents (always > 0).
fn idf(n: f32, df: f32) -> f32 {
    ((n - df + 0.5) / (df + 0.5) + 1.0).ln()
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
            postings: HashMap::default(),
            by_name: Vec::new(),
            name_rank: Vec::new(),
            lower_names: Vec::new(),
            text: String::new(),
            text_at: vec![0],
            top_k_budget: TOP_K_MAX_SCORED,
        };
        let mut raw: HashMap<Box<str>, Vec<(u32, u32)>, foldhash::fast::RandomState> =
            HashMap::default();
        let mut lens: Vec<u32> = Vec::new();
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
                raw.entry(w.into()).or_default().push((d, n));
            }
            lens.push(len);
            total += u64::from(len);
            idx.lower_names.push(t.name.to_lowercase().into());
            idx.text.push_str(&text);
            idx.text_at.push(idx.text.len() as u32);
            idx.tools.push(t.clone());
        }
        idx.text.shrink_to_fit();
        let avg_len = if idx.tools.is_empty() {
            0.0
        } else {
            total as f32 / idx.tools.len() as f32
        };
        let norm = K1 * (1.0 - B);
        let per_len = K1 * B / avg_len;
        let n = idx.tools.len() as f32;
        idx.postings.reserve(raw.len());
        for (w, post) in raw {
            let by_doc: Box<[(u32, f32)]> = post
                .into_iter()
                .map(|(d, tf)| {
                    let (tf, dl) = (tf as f32, lens[d as usize] as f32);
                    (d, tf * (K1 + 1.0) / (tf + norm + per_len * dl))
                })
                .collect();
            // Ordered by the score a caller who sees every tool gets (the idf times the part,
            // as that query computes it, not the part alone: two parts that differ can round
            // to one score, and then the document id decides).
            let idf = idf(n, by_doc.len() as f32);
            let mut by_impact: Box<[u32]> = (0..by_doc.len() as u32).collect();
            by_impact.sort_unstable_by(|a, b| {
                let (a, b) = (by_doc[*a as usize], by_doc[*b as usize]);
                (idf * b.1).total_cmp(&(idf * a.1)).then(a.0.cmp(&b.0))
            });
            idx.postings.insert(w, Postings { by_doc, by_impact });
        }
        let mut by_name: Vec<u32> = (0..idx.tools.len() as u32).collect();
        by_name.sort_unstable_by(|a, b| {
            idx.lower_names[*a as usize].cmp(&idx.lower_names[*b as usize])
        });
        idx.name_rank = vec![0; by_name.len()];
        for (r, &d) in by_name.iter().enumerate() {
            idx.name_rank[d as usize] = r as u32;
        }
        idx.by_name = by_name;
        idx
    }

    /// The best `limit` tools for `query` that `visible` admits, best first. `visible` is asked
    /// before a tool is ranked, so a hidden tool takes no place and its presence changes no
    /// other tool's rank: a term's document frequency counts only visible tools. `None`: the
    /// caller sees every tool, and a ranked query reads only the postings that can make the
    /// top `limit` (see [`SearchIndex::ranked_all`]).
    pub(crate) fn search(
        &self,
        query: Query<'_>,
        limit: usize,
        visible: Option<&dyn Fn(&ToolEntry) -> bool>,
    ) -> Result<Vec<Arc<ToolEntry>>, SearchError> {
        let ids = match query {
            Query::Text(q) => self.ranked(q, limit, visible),
            Query::Regex(p) => self.matching(p, limit, visible)?,
        };
        Ok(ids
            .into_iter()
            .map(|d| self.tools[d as usize].clone())
            .collect())
    }

    /// The ranking, the same whichever way it is computed: names equal to the query as a whole
    /// (spaces as `_`, lower-cased) first, then names that start with it, then the rest by
    /// BM25; within each, by BM25 score, then by registration order.
    fn ranked(
        &self,
        q: &str,
        limit: usize,
        visible: Option<&dyn Fn(&ToolEntry) -> bool>,
    ) -> Vec<u32> {
        let q = match q.char_indices().nth(MAX_QUERY_LEN) {
            Some((i, _)) => &q[..i],
            None => q,
        };
        if limit == 0 || self.tools.is_empty() {
            return Vec::new();
        }
        let mut terms: Vec<String> = Vec::new();
        tokens(q, |w| {
            if !terms.contains(&w) {
                terms.push(w);
            }
        });
        let key: String = q.trim().to_lowercase().replace(char::is_whitespace, "_");
        let named = if key.len() >= 2 {
            self.name_range(&key)
        } else {
            0..0
        };
        match visible {
            None => self.ranked_all(&terms, &key, named, limit),
            Some(v) => self.ranked_filtered(&terms, &key, named, limit, v),
        }
    }

    /// The places in `by_name` of the names that start with `key` (a contiguous run, the
    /// name equal to `key` first).
    fn name_range(&self, key: &str) -> std::ops::Range<usize> {
        let name = |d: &u32| &*self.lower_names[*d as usize];
        let start = self.by_name.partition_point(|d| name(d) < key);
        let end = start + self.by_name[start..].partition_point(|d| name(d).starts_with(key));
        start..end
    }

    /// Ranking for a caller who sees every tool: each term's idf is the whole catalog's, so a
    /// posting's score is fixed and the postings can be read best first. The name matches are
    /// scored directly; the rest is a threshold top-k (Fagin's TA): read the terms' postings
    /// best first, a row at a time, score each new document in full, and stop once the k-th
    /// best score beats what any unread document could still reach (the sum of each term's
    /// next unread score). A one-term query is the first k postings of that term.
    fn ranked_all(
        &self,
        terms: &[String],
        key: &str,
        named: std::ops::Range<usize>,
        limit: usize,
    ) -> Vec<u32> {
        let n = self.tools.len() as f32;
        let lists: Vec<(f32, &Postings)> = terms
            .iter()
            .filter_map(|w| self.postings.get(w.as_str()))
            .map(|p| (idf(n, p.by_doc.len() as f32), p))
            .collect();
        // A document's score adds its terms in query order, as the exhaustive path does, so
        // both paths give the same float for the same document.
        let score = |d: u32| {
            lists.iter().fold(0f32, |s, (idf, p)| match p.part(d) {
                Some(part) => s + idf * part,
                None => s,
            })
        };
        let mut hits = self.named_hits(&lists, key, named.clone(), limit, &score);
        let want = limit - hits.len();
        if want == 0 || lists.is_empty() {
            return hits.into_iter().map(|(_, _, d)| d).collect();
        }
        let in_named = |d: u32| named.contains(&(self.name_rank[d as usize] as usize));
        let rest = match top_k(&lists, want, self.top_k_budget, &in_named, &score) {
            Some(rest) => rest,
            // The threshold did not cut early (many near-equal scores): score every posting.
            None => {
                let (scores, touched) = self.exhaustive(&lists, None);
                touched
                    .into_iter()
                    .filter(|d| !in_named(*d))
                    .map(|d| (scores[d as usize], d))
                    .collect()
            }
        };
        let mut rest: Vec<(u8, f32, u32)> = rest.into_iter().map(|(s, d)| (0, s, d)).collect();
        best(&mut rest, want);
        hits.extend(rest);
        hits.into_iter().map(|(_, _, d)| d).collect()
    }

    /// The name matches in `named` (places in `by_name`), best `limit`, ordered.
    fn named_hits(
        &self,
        lists: &[(f32, &Postings)],
        key: &str,
        named: std::ops::Range<usize>,
        limit: usize,
        score: &dyn Fn(u32) -> f32,
    ) -> Vec<(u8, f32, u32)> {
        let kind = |d: u32| {
            if *self.lower_names[d as usize] == *key {
                2
            } else {
                1
            }
        };
        let postings: usize = lists.iter().map(|(_, p)| p.by_doc.len()).sum();
        // A name is scored by a binary search per term, or, when the names are many (`get`
        // matches a fifth of some catalogs), by one pass over the terms' postings.
        let probes = named.len() * lists.len() * (usize::BITS - postings.leading_zeros()) as usize;
        let mut hits: Vec<(u8, f32, u32)> = if probes <= postings + named.len() {
            named
                .map(|r| self.by_name[r])
                .map(|d| (kind(d), score(d), d))
                .collect()
        } else {
            let mut acc = vec![0f32; named.len()];
            for (idf, p) in lists {
                for &(d, part) in p.by_doc.iter() {
                    let r = self.name_rank[d as usize] as usize;
                    if named.contains(&r) {
                        acc[r - named.start] += idf * part;
                    }
                }
            }
            named
                .zip(acc)
                .map(|(r, s)| {
                    let d = self.by_name[r];
                    (kind(d), s, d)
                })
                .collect()
        };
        best(&mut hits, limit);
        hits
    }

    /// Ranking for a caller who sees only some tools: idf counts the visible ones, so every
    /// posting of the query's terms is scored.
    fn ranked_filtered(
        &self,
        terms: &[String],
        key: &str,
        named: std::ops::Range<usize>,
        limit: usize,
        visible: &dyn Fn(&ToolEntry) -> bool,
    ) -> Vec<u32> {
        // Visibility is asked once per candidate document: 0 not yet, 1 visible, 2 hidden.
        let seen = std::cell::RefCell::new(vec![0u8; self.tools.len()]);
        let ok = |d: u32| {
            let mut seen = seen.borrow_mut();
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
        let n = self.tools.len() as f32;
        let mut lists: Vec<(f32, &Postings)> = Vec::new();
        for w in terms {
            let Some(p) = self.postings.get(w.as_str()) else {
                continue;
            };
            let df = p.by_doc.iter().filter(|(d, _)| ok(*d)).count();
            if df > 0 {
                lists.push((idf(n, df as f32), p));
            }
        }
        let (scores, touched) = self.exhaustive(&lists, Some(&ok));
        let mut hits: Vec<(u8, f32, u32)> = named
            .clone()
            .map(|r| self.by_name[r])
            .filter(|d| ok(*d))
            .map(|d| {
                let kind = if *self.lower_names[d as usize] == *key {
                    2
                } else {
                    1
                };
                (kind, scores[d as usize], d)
            })
            .collect();
        hits.extend(
            touched
                .into_iter()
                .filter(|d| !named.contains(&(self.name_rank[*d as usize] as usize)))
                .map(|d| (0, scores[d as usize], d)),
        );
        best(&mut hits, limit);
        hits.into_iter().map(|(_, _, d)| d).collect()
    }

    /// Every posting of `lists` scored: the documents' scores by document id (0: none), and
    /// the documents scored. `gate`: asked of a posting before it counts (the visibility of
    /// its document).
    fn exhaustive(
        &self,
        lists: &[(f32, &Postings)],
        gate: Option<&dyn Fn(u32) -> bool>,
    ) -> (Vec<f32>, Vec<u32>) {
        // Dense: a query touches many documents of a large catalog, and a vector indexed by
        // document id is cheaper to fill than a map.
        let mut scores = vec![0f32; self.tools.len()];
        let mut touched: Vec<u32> = Vec::new();
        for (idf, p) in lists {
            for &(d, part) in p.by_doc.iter() {
                if gate.is_some_and(|g| !g(d)) {
                    continue;
                }
                let s = &mut scores[d as usize];
                if *s == 0.0 {
                    touched.push(d);
                }
                *s += idf * part;
            }
        }
        (scores, touched)
    }

    fn matching(
        &self,
        pattern: &str,
        limit: usize,
        visible: Option<&dyn Fn(&ToolEntry) -> bool>,
    ) -> Result<Vec<u32>, SearchError> {
        let re = compile(pattern)?;
        let mut out = Vec::new();
        for d in 0..self.tools.len() {
            if out.len() >= limit {
                break;
            }
            let text = &self.text[self.text_at[d] as usize..self.text_at[d + 1] as usize];
            if re.is_match(text) && visible.is_none_or(|v| v(&self.tools[d])) {
                out.push(d as u32);
            }
        }
        Ok(out)
    }
}

/// The ranking order: name kind (exact 2, prefix 1, other 0), then score, then document id.
fn order(a: &(u8, f32, u32), b: &(u8, f32, u32)) -> std::cmp::Ordering {
    b.0.cmp(&a.0).then(b.1.total_cmp(&a.1)).then(a.2.cmp(&b.2))
}

/// Keeps the best `limit` of `hits`, in order.
fn best(hits: &mut Vec<(u8, f32, u32)>, limit: usize) {
    if hits.len() > limit {
        hits.select_nth_unstable_by(limit - 1, order);
        hits.truncate(limit);
    }
    hits.sort_unstable_by(order);
}

/// Most documents the threshold top-k scores before it gives way to scoring every posting:
/// past this, reading the postings in document order is cheaper than more binary searches.
const TOP_K_MAX_SCORED: usize = 4096;

/// The best `k` documents of `lists` that `skip` does not exclude, as `(score, document)`
/// (unordered), or `None` if the threshold did not stop within `budget` documents scored.
fn top_k(
    lists: &[(f32, &Postings)],
    k: usize,
    budget: usize,
    skip: &dyn Fn(u32) -> bool,
    score: &dyn Fn(u32) -> f32,
) -> Option<Vec<(f32, u32)>> {
    if let [(idf, p)] = lists {
        return Some(one_term_top_k(*idf, p, k, skip));
    }
    let mut heap: BinaryHeap<Reverse<Ranked>> = BinaryHeap::with_capacity(k + 1);
    let mut seen: std::collections::HashSet<u32, foldhash::fast::RandomState> = Default::default();
    let mut depth = 0usize;
    loop {
        let mut read = false;
        for (_, p) in lists {
            let Some(&i) = p.by_impact.get(depth) else {
                continue;
            };
            read = true;
            let d = p.by_doc[i as usize].0;
            if skip(d) || !seen.insert(d) {
                continue;
            }
            if seen.len() > budget {
                return None;
            }
            keep_best(&mut heap, k, Ranked(score(d), d));
        }
        depth += 1;
        if !read {
            break;
        }
        // An unread document must score strictly below the k-th: an equal score with a lower
        // document id would still rank above it.
        if heap.len() == k
            && heap
                .peek()
                .is_some_and(|w| w.0 .0 > unread_bound(lists, depth))
        {
            break;
        }
    }
    Some(
        heap.into_iter()
            .map(|Reverse(Ranked(s, d))| (s, d))
            .collect(),
    )
}

/// [`top_k`] of one term: the postings' own order is the ranking's (score, then document id).
fn one_term_top_k(idf: f32, p: &Postings, k: usize, skip: &dyn Fn(u32) -> bool) -> Vec<(f32, u32)> {
    p.by_impact
        .iter()
        .map(|&i| p.by_doc[i as usize])
        .filter(|(d, _)| !skip(*d))
        .take(k)
        .map(|(d, part)| (idf * part, d))
        .collect()
}

/// A scored document, ordered as the ranking does: greater is better.
#[derive(PartialEq)]
struct Ranked(f32, u32);
impl Eq for Ranked {}
impl PartialOrd for Ranked {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Ranked {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&o.0).then(o.1.cmp(&self.1))
    }
}

/// `r` into the `k` best so far (a min-heap: its top is the worst kept).
fn keep_best(heap: &mut BinaryHeap<Reverse<Ranked>>, k: usize, r: Ranked) {
    if heap.len() < k {
        heap.push(Reverse(r));
    } else if heap.peek().is_some_and(|w| r > w.0) {
        heap.pop();
        heap.push(Reverse(r));
    }
}

/// The most a document not yet read at `depth` can score: each term's next part times its
/// idf, added in query order (float addition is monotone, so this bounds the float score too).
fn unread_bound(lists: &[(f32, &Postings)], depth: usize) -> f32 {
    lists
        .iter()
        .fold(0f32, |s, (idf, p)| match p.by_impact.get(depth) {
            Some(&i) => s + idf * p.by_doc[i as usize].1,
            None => s,
        })
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
#[path = "search_tests.rs"]
mod tests;
