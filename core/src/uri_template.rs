//! RFC 6570 URI templates, matched in reverse: given a concrete URI, find the variable values.
//! Supports the simple (`{x}`), reserved (`{+x}`), fragment (`{#x}`), label (`{.x}`),
//! path (`{/x}`) and query (`{?x,y}`, `{&x}`) operators.

use serde_json::{Map, Value};

#[derive(Clone, Debug, PartialEq)]
enum Part {
    Lit(String),
    Expr { op: Option<char>, vars: Vec<String> },
}

#[derive(Clone, Debug, PartialEq)]
pub struct UriTemplate {
    source: String,
    parts: Vec<Part>,
}

impl UriTemplate {
    pub fn parse(s: &str) -> Result<Self, String> {
        let mut parts = Vec::new();
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
                    for v in body.split(',') {
                        let v = v.trim_end_matches('*');
                        let v = v.split(':').next().unwrap_or(v);
                        if v.is_empty()
                            || !v.chars().all(|c| {
                                c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '%'
                            })
                        {
                            return Err(format!("bad variable name '{v}'"));
                        }
                        vars.push(v.to_string());
                    }
                    parts.push(Part::Expr { op, vars });
                    rest = &rest[end + 1..];
                }
            }
        }
        if !parts.iter().any(|p| matches!(p, Part::Expr { .. })) {
            return Err("a template needs at least one {variable}".into());
        }
        Ok(Self {
            source: s.to_string(),
            parts,
        })
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

    /// The variables of `uri` if it matches this template.
    pub fn matches(&self, uri: &str) -> Option<Map<String, Value>> {
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
                    for pair in r[..end].split(['&', ';']) {
                        if let Some((k, v)) = pair.split_once('=') {
                            if vars.iter().any(|x| x == k) {
                                out.insert(k.to_string(), Value::String(decode(v)));
                            }
                        }
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
                    for (k, v) in vars.iter().zip(vals) {
                        trial.insert(k.clone(), Value::String(decode(v)));
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

fn decode(s: &str) -> String {
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
    String::from_utf8(out).unwrap_or_else(|_| s.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn rejects_bad_templates() {
        for bad in ["x://{", "x://}", "x://{}", "x://plain", "x://{a b}"] {
            assert!(UriTemplate::parse(bad).is_err(), "{bad}");
        }
    }
}
