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
//! A variable name may hold a `-` besides RFC 6570's characters (FastMCP's `{user-id}`). A literal
//! character a URI carries percent-encoded (outside the unreserved and reserved sets: `é`, a
//! space) matches as written or as its `%XX` triplets, as clients send either. A non-exploded
//! query variable the template names a list ([`UriTemplate::with_lists`]) is the list of its
//! comma-separated items.
//!
//! Values are percent-decoded, and a value that would walk out of the template is refused
//! (a handler may build a path from it): a simple, label or path expansion (`{x}`, `{.x}`, `{/x}`) never holds a `/`
//! or `\\` after decoding, nor is it `.` or `..` (RFC 6570 level 1 encodes separators, so a
//! client never sends them there); a reserved, fragment or query value (`{+x}`, `{#x}`,
//! `{?x}`, `{&x}`, `{;x}`) holds no `..` segment (a handler may join a query value into a path
//! as readily as a path variable). Such a URI matches no template: the read is answered as an
//! unknown resource.
//!
//! A compatibility layer whose framework screens values by a policy of its own (the `mcp` SDK's
//! `ResourceSecurity`) registers the template with a [`ValueScreen`]: the URI is then matched by
//! its structure ([`UriTemplate::match_screened`]) and each value screened by that policy, which
//! decides in place of the refusals above; a refused value stops the search at that template.

mod ambiguity;
mod expand;
mod screen;

use serde_json::{Map, Value};

pub use ambiguity::Ambiguity;
use expand::{encode_into, expand_expr};
pub use expand::{escapes_base, is_absolute_path};
pub use screen::{Screened, ValueScreen};

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
    /// Non-exploded query variables whose value is a list ([`UriTemplate::with_lists`]).
    lists: Vec<String>,
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
                                c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '%' | '-')
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
        let program = Program::compile(&parts, &specs, false)?;
        Ok(Self {
            source: s.to_string(),
            parts,
            specs,
            program,
            lists: Vec::new(),
        })
    }

    /// This template with the non-exploded query variables `names` (`{?tags}`) read as lists,
    /// as RFC 6570 (section 3.2.8) expands a list there: one value whose items are joined by
    /// literal commas. The value is split on its literal commas before each item is
    /// percent-decoded (an item's own comma arrives as `%2C`); an empty value is the empty
    /// list. A compatibility layer names the variables its function takes as lists.
    pub fn with_lists(mut self, names: impl IntoIterator<Item = String>) -> Self {
        self.lists = names.into_iter().collect();
        self
    }

    /// This template with a lone exploded simple variable (`{path*}`) matching a path of any
    /// depth, as FastMCP and the `mcp` SDK read it. Only for a template whose values a
    /// [`ValueScreen`] screens ([`UriTemplate::match_screened`]): the screen, not the matcher,
    /// then decides what such a path may hold.
    pub fn spanning_paths(mut self) -> Self {
        if let Ok(program) = Program::compile(&self.parts, &self.specs, true) {
            self.program = program;
        }
        self
    }

    /// The literal text before the first expression, up to its first byte that a URI may carry
    /// percent-encoded: every URI this template matches starts with it.
    pub(crate) fn literal_prefix(&self) -> &str {
        match self.parts.first() {
            Some(Part::Lit(l)) => {
                let end = l
                    .bytes()
                    .position(|b| !literal_byte_kept(b))
                    .unwrap_or(l.len());
                &l[..end]
            }
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

    /// The variables of `uri` if it matches this template. An exploded path or label variable
    /// (`{/x*}`, `{.x*}`) is the list of its segments or labels.
    pub fn matches(&self, uri: &str) -> Option<Map<String, Value>> {
        self.matches_counting(uri).0
    }

    /// [`matches`](Self::matches), plus the number of VM steps it took (tests and fuzzing
    /// check that this stays linear in `uri.len()`).
    #[doc(hidden)]
    pub fn matches_counting(&self, uri: &str) -> (Option<Map<String, Value>>, usize) {
        self.extract(uri, true)
    }

    /// Match `uri` by its structure alone, then screen the values with `screen` in place of
    /// this module's own refusals: a value that decodes to a `/` in one segment may match, and
    /// `screen` decides whether a value may stand (the `mcp` SDK's and FastMCP's
    /// `ResourceSecurity`, whose default refuses a path that climbs above its base, an absolute
    /// path and a NUL byte). The first refused variable (in template order) is named, so that a
    /// caller stops there rather than trying a later, laxer template.
    pub fn match_screened(&self, uri: &str, screen: &ValueScreen) -> Screened {
        let Some(vars) = self.extract(uri, false).0 else {
            return Screened::NoMatch;
        };
        match self
            .variables()
            .find(|name| vars.get(*name).is_some_and(|v| screen.refuses(name, v)))
        {
            Some(name) => Screened::Refused(name.to_string()),
            None => Screened::Matched(vars),
        }
    }

    /// The variables of `uri`, percent-decoded; with `check`, a value [`safe_value`] refuses
    /// fails the match.
    fn extract(&self, uri: &str, check: bool) -> (Option<Map<String, Value>>, usize) {
        let (slots, steps) = self.program.run(uri.as_bytes());
        let Some(slots) = slots else {
            return (None, steps);
        };
        let span = |k: usize| match (slots[2 * k], slots[2 * k + 1]) {
            (a, b) if a != NONE && b != NONE => Some(&uri[a..b]),
            _ => None,
        };
        let value =
            |op: Option<char>, raw: &str| decode(raw).filter(|v| !check || safe_value(op, v));
        let mut out = Map::new();
        let mut k = 0;
        for (part, (_, spec)) in self
            .parts
            .iter()
            .filter(|p| matches!(p, Part::Expr { .. }))
            .zip(&self.specs)
        {
            let Part::Expr { op, vars } = part else {
                continue;
            };
            if matches!(op, Some('?' | '&' | ';')) {
                let chunk = span(k);
                k += 1;
                if !self.take_pairs(chunk.unwrap_or(""), *op, vars, &mut out, check) {
                    return (None, steps);
                }
                continue;
            }
            if exploded_run(*op, spec) {
                let raw = span(k).unwrap_or("");
                k += 1;
                let sep = if *op == Some('/') { '/' } else { '.' };
                let items: Option<Vec<Value>> = raw
                    .split(sep)
                    .map(|seg| value(*op, seg).map(Value::String))
                    .collect();
                let Some(items) = items else {
                    return (None, steps);
                };
                out.insert(vars[0].clone(), Value::Array(items));
                continue;
            }
            for var in vars {
                let raw = span(k).unwrap_or("");
                k += 1;
                let Some(v) = value(*op, raw) else {
                    return (None, steps);
                };
                out.insert(var.clone(), Value::String(v));
            }
        }
        (Some(out), steps)
    }
}

/// Is this expression one exploded path or label variable (`{/x*}`, `{.x*}`), whose value runs
/// over several segments or labels and is matched as their list?
fn exploded_run(op: Option<char>, vars: &[VarSpec]) -> bool {
    matches!(op, Some('/' | '.')) && matches!(vars, [v] if v.explode)
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
    /// decode or (with `check`) is one [`safe_value`] refuses.
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
            let item = |raw: &str| decode(raw).filter(|v| !check || safe_value(op, v));
            if !explode && self.lists.iter().any(|l| l == key) {
                let items: Option<Vec<Value>> = v
                    .split(',')
                    .filter(|_| !v.is_empty())
                    .map(|raw| item(raw).map(Value::String))
                    .collect();
                let Some(items) = items else { return false };
                out.insert(key.to_string(), Value::Array(items));
                continue;
            }
            let Some(value) = item(v) else {
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

/// May this decoded value stand in for a variable of this operator?
fn safe_value(op: Option<char>, v: &str) -> bool {
    match op {
        None | Some('.' | '/') => !v.contains(['/', '\\']) && v != "." && v != "..",
        _ => !v.split(['/', '\\']).any(|seg| seg == ".."),
    }
}

/// An unset capture slot.
const NONE: usize = usize::MAX;

/// One instruction of a compiled template.
#[derive(Clone, Debug, PartialEq)]
enum Inst {
    /// Consume exactly this byte.
    Byte(u8),
    /// Consume this hex digit, in either case.
    Hex(u8),
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

impl Inst {
    /// Does this byte instruction (`Byte`, `Hex`) consume `c`?
    fn consumes(&self, c: u8) -> bool {
        match self {
            Inst::Byte(b) => c == *b,
            Inst::Hex(h) => c.eq_ignore_ascii_case(h),
            _ => false,
        }
    }
}

/// Does a URI carry this literal byte as written (an unreserved or reserved ASCII character)?
fn literal_byte_kept(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"-._~:/?#[]@!$&'()*+,;=".contains(&b)
}

/// Compile a literal: each byte that a URI carries percent-encoded (RFC 6570 section 3.1 encodes
/// it on expansion: outside the unreserved and reserved sets, as a non-ASCII character's bytes)
/// matches either as written or as its `%XX` triplet (in either hex case), so a client that
/// sends the URI encoded and one that sends it as the template spells it both match.
fn literal(p: &mut Vec<Inst>, l: &str) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    for b in l.bytes() {
        if literal_byte_kept(b) {
            p.push(Inst::Byte(b));
            continue;
        }
        // Split(raw, encoded); raw: Byte, Jmp(after); encoded: '%', hi, lo.
        let at = p.len();
        p.push(Inst::Split(at + 1, at + 3));
        p.push(Inst::Byte(b));
        p.push(Inst::Jmp(at + 6));
        p.push(Inst::Byte(b'%'));
        p.push(Inst::Hex(HEX[usize::from(b >> 4)]));
        p.push(Inst::Hex(HEX[usize::from(b & 0xF)]));
    }
}

#[derive(Clone, Debug, PartialEq)]
struct Program {
    insts: Vec<Inst>,
    slots: usize,
}

impl Program {
    /// `paths`: a lone exploded simple variable (`{x*}`) is a path of any depth (it may hold `/`),
    /// as the frameworks whose value policy screens it read it ([`UriTemplate::spanning_paths`]).
    fn compile(
        parts: &[Part],
        specs: &[(Option<char>, Vec<VarSpec>)],
        paths: bool,
    ) -> Result<Self, String> {
        let mut p: Vec<Inst> = Vec::new();
        let mut slot = 0;
        let mut specs = specs.iter();
        for part in parts {
            match part {
                Part::Lit(l) => literal(&mut p, l),
                Part::Expr { op, vars } => {
                    let spec = specs.next();
                    let exploded = spec.is_some_and(|(_, v)| exploded_run(*op, v));
                    let path = paths
                        && spec.is_some_and(|(_, v)| matches!(v.as_slice(), [v] if v.explode));
                    let (prefix, stops): (Option<u8>, &'static [u8]) = match op {
                        None if path => (None, b"?#"),
                        None => (None, b"/?#&"),
                        Some('+') => (None, b"?#"),
                        Some('#') => (Some(b'#'), b""),
                        // An exploded label or path variable runs over several labels or segments.
                        Some('.') if exploded => (Some(b'.'), b"/?#"),
                        Some('.') => (Some(b'.'), b"/?#."),
                        Some('/') if exploded => (Some(b'/'), b"?#"),
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
                    Inst::Byte(_) | Inst::Hex(_) => {
                        if input.get(pos).is_some_and(|c| self.insts[pc].consumes(*c)) {
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
            Inst::Byte(_) | Inst::Hex(_) | Inst::Class { .. } => list.push((pc, caps)),
        }
    }
}

/// Percent-decoded `s`; `None` when the bytes it decodes to are not UTF-8. Such a value matches
/// no template: kept encoded, it would hide a `../` from the traversal check (`safe_value`), and
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
mod tests;
