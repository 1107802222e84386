//! RFC 6570 URI templates, matched in reverse: given a concrete URI, find the variable values.
//! Supports the simple (`{x}`), reserved (`{+x}`), fragment (`{#x}`), label (`{.x}`),
//! path (`{/x}`) and query (`{?x,y}`, `{&x}`) operators.
//!
//! Matching is linear in the URI's length. Each template compiles once to
//! a small NFA program (literals anchored byte by byte; an expression is a greedy run of bytes
//! outside its operator's stop set; a query part is taken whole when its prefix is there) that a
//! Pike VM runs over the URI: every (position, instruction) pair is visited at most once, in
//! priority order, so the result is the one the earlier backtracking matcher found (longest
//! value first) without its quadratic retries and per-try map clones.
//!
//! Values are percent-decoded, and a value that would walk out of the template is refused (a
//! handler may build a path from it; [`Screening`] says which): such a URI matches no template,
//! so the read is answered as an unknown resource.

mod expand;
mod screen;

use serde_json::{Map, Value};

use expand::{encode_into, expand_expr};
pub use expand::{escapes_base, is_absolute_path};
pub use screen::{PathPolicy, Screening};

#[derive(Clone, Debug, PartialEq)]
enum Part {
    Lit(String),
    Expr { op: Option<char>, vars: Vec<String> },
}

/// One variable of an expression as written: its name, the explode modifier (`{x*}`) and the
/// prefix length (`{x:3}`), which only expansion uses.
#[derive(Clone, Debug, PartialEq)]
struct VarSpec {
    name: String,
    explode: bool,
    prefix: Option<usize>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct UriTemplate {
    source: String,
    parts: Vec<Part>,
    /// Each expression's operator and variables with their modifiers, in template order.
    specs: Vec<(Option<char>, Vec<VarSpec>)>,
    program: Program,
    screening: Screening,
}

impl UriTemplate {
    pub fn parse(s: &str) -> Result<Self, String> {
        let mut parts = Vec::new();
        let mut specs = Vec::new();
        let mut rest = s;
        while !rest.is_empty() {
            match rest.find(['{', '}']) {
                None => {
                    parts.push(Part::Lit(rest.to_string()));
                    break;
                }
                Some(i) if rest.as_bytes()[i] == b'}' => return Err("unmatched '}'".into()),
                Some(i) => {
                    if i > 0 {
                        parts.push(Part::Lit(rest[..i].to_string()));
                    }
                    let end = rest[i..].find('}').ok_or("unclosed '{'")? + i;
                    let inner = &rest[i + 1..end];
                    if inner.contains('{') {
                        return Err("nested '{'".into());
                    }
                    let (op, body) = match inner.chars().next() {
                        Some(c @ ('+' | '#' | '.' | '/' | ';' | '?' | '&')) => {
                            (Some(c), &inner[1..])
                        }
                        _ => (None, inner),
                    };
                    let mut vars = Vec::new();
                    let mut spec = Vec::new();
                    for v in body.split(',') {
                        let explode = v.ends_with('*');
                        let v = v.trim_end_matches('*');
                        let (v, prefix) = match v.split_once(':') {
                            Some((name, n)) => (
                                name,
                                Some(
                                    n.parse::<usize>()
                                        .ok()
                                        .filter(|n| (1..10_000).contains(n))
                                        .ok_or_else(|| format!("bad prefix length '{n}'"))?,
                                ),
                            ),
                            None => (v, None),
                        };
                        if v.is_empty()
                            || !v.chars().all(|c| {
                                c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '%'
                            })
                        {
                            return Err(format!("bad variable name '{v}'"));
                        }
                        vars.push(v.to_string());
                        spec.push(VarSpec {
                            name: v.to_string(),
                            explode,
                            prefix,
                        });
                    }
                    specs.push((op, spec));
                    parts.push(Part::Expr { op, vars });
                    rest = &rest[end + 1..];
                }
            }
        }
        if !parts.iter().any(|p| matches!(p, Part::Expr { .. })) {
            return Err("a template needs at least one {variable}".into());
        }
        let program = Program::compile(&parts, &[])?;
        Ok(Self {
            source: s.to_string(),
            parts,
            specs,
            program,
            screening: Screening::ByOperator,
        })
    }

    /// The literal text before the first expression: every URI this template matches starts
    /// with it (literals are matched byte by byte).
    pub(crate) fn literal_prefix(&self) -> &str {
        match self.parts.first() {
            Some(Part::Lit(l)) => l,
            _ => "",
        }
    }

    pub fn as_str(&self) -> &str {
        &self.source
    }

    pub fn variables(&self) -> impl Iterator<Item = &str> {
        self.parts.iter().flat_map(|p| match p {
            Part::Expr { vars, .. } => vars.iter().map(String::as_str).collect::<Vec<_>>(),
            Part::Lit(_) => Vec::new(),
        })
    }

    /// The URI this template stands for with these values (RFC 6570 section 3, every level): a
    /// string, number or boolean is one value, an array a list, an object an associative array;
    /// a variable that is missing, null, or an empty list or object is undefined and leaves
    /// nothing (not even its operator's separator). Literal text is kept, with the characters a
    /// URI may not hold percent-encoded (section 3.1).
    pub fn expand(&self, values: &Map<String, Value>) -> String {
        let mut out = String::new();
        let mut specs = self.specs.iter();
        for part in &self.parts {
            match part {
                Part::Lit(l) => encode_into(&mut out, l, true),
                Part::Expr { .. } => {
                    if let Some((op, vars)) = specs.next() {
                        expand_expr(&mut out, *op, vars, values);
                    }
                }
            }
        }
        out
    }

    /// The variables of `uri` if it matches this template.
    pub fn matches(&self, uri: &str) -> Option<Map<String, Value>> {
        self.matches_counting(uri).0
    }

    /// [`matches`](Self::matches), plus the number of VM steps it took (tests and fuzzing
    /// check that this stays linear in `uri.len()`).
    #[doc(hidden)]
    pub fn matches_counting(&self, uri: &str) -> (Option<Map<String, Value>>, usize) {
        let (slots, steps) = self.program.run(uri.as_bytes());
        let Some(slots) = slots else {
            return (None, steps);
        };
        let span = |k: usize| match (slots[2 * k], slots[2 * k + 1]) {
            (a, b) if a != NONE && b != NONE => Some(&uri[a..b]),
            _ => None,
        };
        let mut out = Map::new();
        let mut k = 0;
        for part in &self.parts {
            let Part::Expr { op, vars } = part else {
                continue;
            };
            if matches!(op, Some('?' | '&' | ';')) {
                let chunk = span(k);
                k += 1;
                if !self.take_pairs(chunk.unwrap_or(""), *op, vars, &mut out, true) {
                    return (None, steps);
                }
                continue;
            }
            for var in vars {
                let raw = span(k).unwrap_or("");
                k += 1;
                let Some(value) = decode(raw).filter(|v| self.screening.accepts(var, *op, v))
                else {
                    return (None, steps);
                };
                out.insert(var.clone(), Value::String(value));
            }
        }
        (Some(out), steps)
    }
}

impl UriTemplate {
    /// Is `key` a variable of a query expression (`{?x}` or `{&x}`) of this template, and with the
    /// explode modifier? A query chunk may hold the pairs of later `{&x}` expressions too.
    fn query_var(&self, key: &str) -> Option<bool> {
        self.specs
            .iter()
            .filter(|(op, _)| matches!(op, Some('?' | '&')))
            .flat_map(|(_, vars)| vars)
            .find(|v| v.name == key)
            .map(|v| v.explode)
    }

    /// Read the `key=value` pairs of a query or path-style chunk into `out`: a key of this
    /// expression (for `?` and `&`, of any query expression), its value percent-decoded; an
    /// exploded variable collects every repetition into a list. `false` when a value does not
    /// decode or (with `check`) is one [`Screening`] refuses.
    fn take_pairs(
        &self,
        chunk: &str,
        op: Option<char>,
        vars: &[String],
        out: &mut Map<String, Value>,
        check: bool,
    ) -> bool {
        for pair in chunk.split(['&', ';']) {
            let Some((key, v)) = pair.split_once('=') else {
                continue;
            };
            let explode = if op == Some(';') {
                vars.iter().any(|x| x == key).then_some(false)
            } else {
                self.query_var(key)
            };
            let Some(explode) = explode else { continue };
            let accepts = |v: &String| !check || self.screening.accepts(key, op, v);
            let Some(value) = decode(v).filter(accepts) else {
                return false;
            };
            if explode {
                match out
                    .entry(key.to_string())
                    .or_insert_with(|| Value::Array(Vec::new()))
                {
                    Value::Array(items) => items.push(Value::String(value)),
                    other => *other = Value::Array(vec![Value::String(value)]),
                }
            } else {
                out.insert(key.to_string(), Value::String(value));
            }
        }
        true
    }
}

/// An unset capture slot.
const NONE: usize = usize::MAX;

/// One instruction of a compiled template.
#[derive(Clone, Debug, PartialEq)]
enum Inst {
    /// Consume exactly this byte.
    Byte(u8),
    /// Consume one byte that is not in `stops` (nor a comma when `comma` is set).
    Class {
        stops: &'static [u8],
        comma: bool,
    },
    /// Try the first branch, then the second (greedy loops prefer the first).
    Split(usize, usize),
    Jmp(usize),
    /// Record the position in a capture slot.
    Save(usize),
    /// Only at a UTF-8 character boundary (a value never ends inside a character).
    Boundary,
    /// The next byte decides: this byte next goes to the first, anything else to the second.
    IfNext(u8, usize, usize),
    /// Only at the end or before a byte in the set (a query part is taken whole).
    StopOrEnd(&'static [u8]),
    /// Only at the end of the URI.
    Match,
}

#[derive(Clone, Debug, PartialEq)]
struct Program {
    insts: Vec<Inst>,
    slots: usize,
}

impl Program {
    /// `spans[e]`: the `e`-th expression's value may hold `/` (a path of any depth).
    fn compile(parts: &[Part], spans: &[bool]) -> Result<Self, String> {
        let mut p: Vec<Inst> = Vec::new();
        let mut slot = 0;
        let mut expr = 0;
        for part in parts {
            match part {
                Part::Lit(l) => p.extend(l.bytes().map(Inst::Byte)),
                Part::Expr { op, vars } => {
                    expr += 1;
                    let (prefix, stops): (Option<u8>, &'static [u8]) = match op {
                        None if spans.get(expr - 1) == Some(&true) => (None, b"?#"),
                        None => (None, b"/?#&"),
                        Some('+') => (None, b"?#"),
                        Some('#') => (Some(b'#'), b""),
                        Some('.') => (Some(b'.'), b"/?#."),
                        Some('/') => (Some(b'/'), b"/?#"),
                        Some(';') => (Some(b';'), b"/?#"),
                        Some('?') => (Some(b'?'), b"#"),
                        Some('&') => (Some(b'&'), b"#"),
                        Some(c) => return Err(format!("unsupported operator '{c}'")),
                    };
                    if matches!(op, Some('?' | '&' | ';')) {
                        // IfNext(prefix) -> [Byte, Save, L: Split(C, E), C: Class, Jmp L,
                        //                    E: StopOrEnd, Save] ; else -> after.
                        let at = p.len();
                        let start = at + 1;
                        let end = start + 7;
                        p.push(Inst::IfNext(prefix.unwrap_or(b'?'), start, end));
                        p.push(Inst::Byte(prefix.unwrap_or(b'?')));
                        p.push(Inst::Save(2 * slot));
                        let l = p.len();
                        p.push(Inst::Split(l + 1, l + 3));
                        p.push(Inst::Class {
                            stops,
                            comma: false,
                        });
                        p.push(Inst::Jmp(l));
                        p.push(Inst::StopOrEnd(stops));
                        p.push(Inst::Save(2 * slot + 1));
                        debug_assert_eq!(p.len(), end);
                        slot += 1;
                        continue;
                    }
                    if let Some(b) = prefix {
                        p.push(Inst::Byte(b));
                    }
                    let n = vars.len();
                    for j in 0..n {
                        let last = j + 1 == n;
                        let comma = n > 1;
                        p.push(Inst::Save(2 * slot));
                        if n == 1 {
                            // At least one byte.
                            p.push(Inst::Class { stops, comma });
                        }
                        let l = p.len();
                        p.push(Inst::Split(l + 1, l + 3));
                        p.push(Inst::Class { stops, comma });
                        p.push(Inst::Jmp(l));
                        if last {
                            p.push(Inst::Boundary);
                        }
                        p.push(Inst::Save(2 * slot + 1));
                        if !last {
                            p.push(Inst::Byte(b','));
                        }
                        slot += 1;
                    }
                }
            }
        }
        p.push(Inst::Match);
        Ok(Self {
            insts: p,
            slots: 2 * slot,
        })
    }

    /// Run the Pike VM: the capture slots of the highest-priority match, and the step count.
    fn run(&self, input: &[u8]) -> (Option<Vec<usize>>, usize) {
        let n = self.insts.len();
        let mut steps = 0usize;
        let mut clist: Vec<(usize, Vec<usize>)> = Vec::new();
        let mut nlist: Vec<(usize, Vec<usize>)> = Vec::new();
        let mut mark = vec![usize::MAX; n];
        self.add(
            &mut clist,
            &mut mark,
            0,
            0,
            vec![NONE; self.slots],
            input,
            &mut steps,
        );
        let mut pos = 0;
        loop {
            if clist.is_empty() {
                return (None, steps);
            }
            for (pc, caps) in clist.drain(..) {
                steps += 1;
                match &self.insts[pc] {
                    Inst::Match => {
                        // Threads are in priority order: the first to match wins, and the
                        // ones after it are lower priority.
                        return (Some(caps), steps);
                    }
                    Inst::Byte(b) => {
                        if input.get(pos) == Some(b) {
                            self.add(
                                &mut nlist,
                                &mut mark,
                                pc + 1,
                                pos + 1,
                                caps,
                                input,
                                &mut steps,
                            );
                        }
                    }
                    Inst::Class { stops, comma } => {
                        if let Some(&c) = input.get(pos) {
                            if !(stops.contains(&c) || *comma && c == b',') {
                                self.add(
                                    &mut nlist,
                                    &mut mark,
                                    pc + 1,
                                    pos + 1,
                                    caps,
                                    input,
                                    &mut steps,
                                );
                            }
                        }
                    }
                    _ => unreachable!("only consuming instructions and Match are queued"),
                }
            }
            if pos >= input.len() {
                return (None, steps);
            }
            pos += 1;
            std::mem::swap(&mut clist, &mut nlist);
        }
    }

    /// Follow the epsilon instructions from `pc` at `pos`, queueing the consuming ones (and a
    /// `Match` at the end) in priority order; each instruction at most once per position.
    #[allow(clippy::too_many_arguments)] // the VM's state, passed down the recursion by reference
    fn add(
        &self,
        list: &mut Vec<(usize, Vec<usize>)>,
        mark: &mut [usize],
        pc: usize,
        pos: usize,
        mut caps: Vec<usize>,
        input: &[u8],
        steps: &mut usize,
    ) {
        *steps += 1;
        if mark[pc] == pos {
            return;
        }
        mark[pc] = pos;
        match &self.insts[pc] {
            Inst::Jmp(x) => self.add(list, mark, *x, pos, caps, input, steps),
            Inst::Split(a, b) => {
                self.add(list, mark, *a, pos, caps.clone(), input, steps);
                self.add(list, mark, *b, pos, caps, input, steps);
            }
            Inst::Save(k) => {
                caps[*k] = pos;
                self.add(list, mark, pc + 1, pos, caps, input, steps);
            }
            Inst::Boundary => {
                // A UTF-8 boundary: the end, or a byte that does not continue a character.
                if input.get(pos).is_none_or(|b| (b & 0xC0) != 0x80) {
                    self.add(list, mark, pc + 1, pos, caps, input, steps);
                }
            }
            Inst::IfNext(b, x, y) => {
                let to = if input.get(pos) == Some(b) { *x } else { *y };
                self.add(list, mark, to, pos, caps, input, steps);
            }
            Inst::StopOrEnd(stops) => {
                if input.get(pos).is_none_or(|c| stops.contains(c)) {
                    self.add(list, mark, pc + 1, pos, caps, input, steps);
                }
            }
            Inst::Match => {
                if pos == input.len() {
                    list.push((pc, caps));
                }
            }
            Inst::Byte(_) | Inst::Class { .. } => list.push((pc, caps)),
        }
    }
}

/// The backtracking matcher this module used before: kept as the reference the property test
/// compares the VM with.
#[cfg(test)]
impl UriTemplate {
    /// The variables of `uri` if it matches this template.
    fn matches_backtracking(&self, uri: &str) -> Option<Map<String, Value>> {
        let mut out = Map::new();
        if self.match_from(0, uri, &mut out) {
            Some(out)
        } else {
            None
        }
    }

    fn match_from(&self, i: usize, s: &str, out: &mut Map<String, Value>) -> bool {
        let Some(part) = self.parts.get(i) else {
            return s.is_empty();
        };
        match part {
            Part::Lit(l) => s
                .strip_prefix(l.as_str())
                .is_some_and(|r| self.match_from(i + 1, r, out)),
            Part::Expr { op, vars } => {
                let (prefix, stop): (&str, &[char]) = match op {
                    None => ("", &['/', '?', '#', '&']),
                    Some('+') => ("", &['?', '#']),
                    Some('#') => ("#", &[]),
                    Some('.') => (".", &['/', '?', '#', '.']),
                    Some('/') => ("/", &['/', '?', '#']),
                    Some(';') => (";", &['/', '?', '#']),
                    Some('?') => ("?", &['#']),
                    Some('&') => ("&", &['#']),
                    Some(_) => return false,
                };
                if matches!(op, Some('?' | '&' | ';')) {
                    // key=value pairs; all optional.
                    let Some(r) = s.strip_prefix(prefix) else {
                        return self.match_from(i + 1, s, out);
                    };
                    let end = r.find(stop).unwrap_or(r.len());
                    if !self.take_pairs(&r[..end], *op, vars, out, false) {
                        return false;
                    }
                    return self.match_from(i + 1, &r[end..], out);
                }
                let Some(r) = s.strip_prefix(prefix) else {
                    return false;
                };
                // Try the longest candidate first, then shorter ones (backtracking).
                let limit = r.find(stop).unwrap_or(r.len());
                let mut ends: Vec<usize> = (1..=limit).filter(|&e| r.is_char_boundary(e)).collect();
                ends.reverse();
                for e in ends {
                    let mut trial = out.clone();
                    let vals: Vec<&str> = if vars.len() > 1 {
                        r[..e].split(',').collect()
                    } else {
                        vec![&r[..e]]
                    };
                    if vals.len() != vars.len() {
                        continue;
                    }
                    let Some(decoded) = vals.into_iter().map(decode).collect::<Option<Vec<_>>>()
                    else {
                        continue;
                    };
                    for (k, v) in vars.iter().zip(decoded) {
                        trial.insert(k.clone(), Value::String(v));
                    }
                    if self.match_from(i + 1, &r[e..], &mut trial) {
                        *out = trial;
                        return true;
                    }
                }
                false
            }
        }
    }
}

/// Percent-decoded `s`; `None` when the bytes it decodes to are not UTF-8. Such a value matches
/// no template: kept encoded, it would hide a `../` from the traversal check (`Screening`), and
/// the handler would get it still encoded.
fn decode(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            if let Some(x) = std::str::from_utf8(&b[i + 1..i + 3])
                .ok()
                .and_then(|h| u8::from_str_radix(h, 16).ok())
            {
                out.push(x);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn matches_simple_and_reserved() {
        let t = UriTemplate::parse("test://template/{id}/data").unwrap();
        assert_eq!(t.matches("test://template/123/data").unwrap()["id"], "123");
        assert!(t.matches("test://template/1/2/data").is_none());
        let t = UriTemplate::parse("file:///{+path}").unwrap();
        assert_eq!(t.matches("file:///a/b/c.txt").unwrap()["path"], "a/b/c.txt");
        let t = UriTemplate::parse("user://{id}/profile{?fields}").unwrap();
        let m = t.matches("user://42/profile?fields=name%20x").unwrap();
        assert_eq!(m["id"], "42");
        assert_eq!(m["fields"], "name x");
        assert!(t.matches("user://42/profile").is_some());
    }

    #[test]
    fn values_that_walk_out_of_the_template_match_nothing() {
        let t = UriTemplate::parse("test://template/{id}/data").unwrap();
        for bad in [
            "test://template/..%2F..%2Fetc%2Fpasswd/data",
            "test://template/%2e%2e/data",
            "test://template/../data",
            "test://template/./data",
            "test://template/a%5Cb/data",
            "test://template/a%2fb/data",
        ] {
            assert!(t.matches(bad).is_none(), "{bad}");
            assert!(
                t.matches_backtracking(bad).is_some()
                    || bad.contains("/../")
                    || bad.contains("/./"),
                "{bad}"
            );
        }
        assert_eq!(
            t.matches("test://template/a%20b/data").unwrap()["id"],
            "a b"
        );
        // A value that does not decode to UTF-8 matches nothing: kept encoded, its `%2F..` would
        // pass the traversal check and reach the handler still encoded.
        for bad in [
            "test://template/..%2F..%2Fetc%2Fpasswd%FF/data",
            "test://template/%C3/data",
        ] {
            assert!(t.matches(bad).is_none(), "{bad}");
        }
        let t = UriTemplate::parse("file:///{+path}").unwrap();
        assert!(t.matches("file:///..%2F..%2Fetc%2Fpasswd%FF").is_none());
        let q = UriTemplate::parse("user://{id}/profile{?path}").unwrap();
        assert!(q.matches("user://42/profile?path=..%2Fx%FF").is_none());
        assert!(t.matches("file:///a/../../etc/passwd").is_none());
        assert!(t.matches("file:///a/%2E%2E/b").is_none());
        assert!(t.matches("file:///a\\..\\b").is_none());
        assert_eq!(t.matches("file:///a/..b/c").unwrap()["path"], "a/..b/c");
        // Query values too (found by the fuzz target's invariant, fuzz/common.rs).
        let t = UriTemplate::parse("user://{id}/profile{?fields,path}").unwrap();
        for bad in [
            "user://42/profile?fields=file:///a/../b",
            "user://42/profile?path=..",
            "user://42/profile?fields=x&path=a%2F..%2Fb",
            "user://42/profile?path=a\\..\\b",
        ] {
            assert!(t.matches(bad).is_none(), "{bad}");
        }
        let m = t.matches("user://42/profile?fields=a/b&path=..c").unwrap();
        assert_eq!(
            (m["fields"].as_str(), m["path"].as_str()),
            (Some("a/b"), Some("..c"))
        );
    }

    #[test]
    fn adversarial_uris_take_linear_steps() {
        let t = UriTemplate::parse("test://template/{id}/data").unwrap();
        let insts = t.program.insts.len();
        for n in [1usize, 1000, 64 * 1024] {
            let uri = format!("test://template/{}/dat", "a".repeat(n));
            let (m, steps) = t.matches_counting(&uri);
            assert!(m.is_none());
            assert!(steps <= 4 * insts * (uri.len() + 1), "{n}: {steps} steps");
        }
        let t = UriTemplate::parse("x://{a}{b}{c}{+d}{#e}").unwrap();
        let uri = format!("x://{}", "é,".repeat(20_000));
        let (_, steps) = t.matches_counting(&uri);
        assert!(
            steps <= 4 * t.program.insts.len() * (uri.len() + 1),
            "{steps}"
        );
    }

    /// Is every value of this match one [`Screening`] accepts (what the VM adds to the old
    /// matcher's answer)?
    fn all_safe(t: &UriTemplate, m: &Map<String, Value>) -> bool {
        t.parts.iter().all(|p| match p {
            Part::Expr { op, vars } => vars.iter().all(|v| {
                m.get(v)
                    .and_then(Value::as_str)
                    .is_none_or(|s| screen::by_operator(*op, s))
            }),
            _ => true,
        })
    }

    fn template_strategy() -> impl Strategy<Value = String> {
        let lit = prop::sample::select(vec!["x://", "/", "a", "-", ".", "/data", "é", ",", "b/"]);
        let expr = prop::sample::select(vec![
            "{V}", "{+V}", "{#V}", "{.V}", "{/V}", "{;V}", "{?V}", "{&V}", "{V,W}", "{+V,W}",
            "{?V,W}",
        ]);
        prop::collection::vec((lit, expr), 1..4).prop_map(|ps| {
            let mut out = String::new();
            for (i, (l, e)) in ps.into_iter().enumerate() {
                out.push_str(l);
                out.push_str(
                    &e.replace('V', &format!("v{i}"))
                        .replace('W', &format!("w{i}")),
                );
            }
            out
        })
    }

    fn uri_strategy() -> impl Strategy<Value = String> {
        let piece = prop::sample::select(vec![
            "x://", "a", "b", "/", "?", "#", "&", ",", "=", ".", ";", "-", "%2F", "%20", "é", "..",
            "v0=", "w1=", "v1=", "/data", "%", "%2",
        ]);
        prop::collection::vec(piece, 0..16).prop_map(|v| v.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

        /// The VM answers what the backtracking matcher answered (minus [`Screening`]'s refusals),
        /// on URIs built from the pieces templates are made of.
        #[test]
        fn vm_agrees_with_the_backtracking_matcher(t in template_strategy(), uri in uri_strategy()) {
            let t = UriTemplate::parse(&t).unwrap();
            let old = t.matches_backtracking(&uri).filter(|m| all_safe(&t, m));
            prop_assert_eq!(t.matches(&uri), old);
        }

        /// And on URIs expanded from the template itself (the ordinary case), it matches.
        #[test]
        fn vm_agrees_on_expanded_uris(t in template_strategy(), vals in prop::collection::vec("[a-z0-9é]{1,6}", 8)) {
            let tpl = UriTemplate::parse(&t).unwrap();
            let mut uri = String::new();
            let mut k = 0;
            for p in &tpl.parts {
                match p {
                    Part::Lit(l) => uri.push_str(l),
                    Part::Expr { op, vars } => {
                        let vs = vars.iter().map(|v| { k += 1; (v, &vals[k % vals.len()]) });
                        match op {
                            Some(c @ ('?' | '&' | ';')) => {
                                uri.push(*c);
                                let sep = if *c == ';' { ";" } else { "&" };
                                uri.push_str(&vs.map(|(n, v)| format!("{n}={v}")).collect::<Vec<_>>().join(sep));
                            }
                            _ => {
                                if let Some(c) = op.filter(|c| *c != '+') { uri.push(c); }
                                uri.push_str(&vs.map(|(_, v)| v.as_str()).collect::<Vec<_>>().join(","));
                            }
                        }
                    }
                }
            }
            let old = tpl.matches_backtracking(&uri).filter(|m| all_safe(&tpl, m));
            prop_assert_eq!(tpl.matches(&uri), old);
        }

        /// Steps stay linear in the URI's length whatever the URI.
        #[test]
        fn steps_are_linear(t in template_strategy(), unit in uri_strategy(), n in 1usize..400) {
            let t = UriTemplate::parse(&t).unwrap();
            let uri = format!("x://{}", unit.repeat(n));
            let (_, steps) = t.matches_counting(&uri);
            prop_assert!(steps <= 4 * t.program.insts.len() * (uri.len() + 1), "{} steps for {} bytes", steps, uri.len());
        }
    }

    #[test]
    fn rejects_bad_templates() {
        for bad in ["x://{", "x://}", "x://{}", "x://plain", "x://{a b}"] {
            assert!(UriTemplate::parse(bad).is_err(), "{bad}");
        }
    }
}
