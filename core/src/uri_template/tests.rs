//! The matcher's tests, with the backtracking matcher the property tests compare the VM with.

use super::*;
use proptest::prelude::*;

/// A backtracking matcher: the reference the property tests compare the VM with.
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
            t.matches_backtracking(bad).is_some() || bad.contains("/../") || bad.contains("/./"),
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

/// Is every value of this match one [`safe_value`] accepts (what the VM adds to the old
/// matcher's answer)?
fn all_safe(t: &UriTemplate, m: &Map<String, Value>) -> bool {
    t.parts.iter().all(|p| match p {
        Part::Expr { op, vars } => vars.iter().all(|v| {
            m.get(v)
                .and_then(Value::as_str)
                .is_none_or(|s| safe_value(*op, s))
        }),
        _ => true,
    })
}

fn template_strategy() -> impl Strategy<Value = String> {
    let lit = prop::sample::select(vec!["x://", "/", "a", "-", ".", "/data", "é", ",", "b/"]);
    let expr = prop::sample::select(vec![
        "{V}", "{+V}", "{#V}", "{.V}", "{/V}", "{;V}", "{?V}", "{&V}", "{V,W}", "{+V,W}", "{?V,W}",
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

    /// The VM answers what the backtracking matcher answered (minus [`safe_value`]'s refusals),
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

#[test]
fn a_literal_matches_as_written_or_percent_encoded() {
    let t = UriTemplate::parse("file:///docs/café/{name}").unwrap();
    for uri in [
        "file:///docs/café/a.txt",
        "file:///docs/caf%C3%A9/a.txt",
        "file:///docs/caf%c3%a9/a.txt",
    ] {
        assert_eq!(t.matches(uri).unwrap()["name"], "a.txt", "{uri}");
    }
    assert!(t.matches("file:///docs/caf%C3%A8/a.txt").is_none());
    assert_eq!(t.literal_prefix(), "file:///docs/caf");
    let t = UriTemplate::parse("note:my notes/{a}").unwrap();
    assert_eq!(t.matches("note:my%20notes/one").unwrap()["a"], "one");
    assert_eq!(t.matches("note:my notes/one").unwrap()["a"], "one");
    let t = UriTemplate::parse("data://pct/100%/{a}").unwrap();
    assert_eq!(t.matches("data://pct/100%/one").unwrap()["a"], "one");
    assert_eq!(t.matches("data://pct/100%25/one").unwrap()["a"], "one");
}

#[test]
fn a_variable_name_may_hold_a_hyphen() {
    let t = UriTemplate::parse("data://{user-id}/profile").unwrap();
    assert_eq!(t.variables().collect::<Vec<_>>(), ["user-id"]);
    assert_eq!(t.matches("data://42/profile").unwrap()["user-id"], "42");
}

#[test]
fn a_list_query_variable_splits_on_literal_commas() {
    let t = UriTemplate::parse("items://{category}{?tags,q}")
        .unwrap()
        .with_lists(["tags".to_string()]);
    let tags = |uri: &str| t.matches(uri).map(|m| m.get("tags").cloned());
    let list = |items: &[&str]| Some(Some(Value::from(items.to_vec())));
    assert_eq!(tags("items://books?tags=a,b"), list(&["a", "b"]));
    assert_eq!(tags("items://books?tags=a%2Cb,c"), list(&["a,b", "c"]));
    assert_eq!(
        tags("items://books?tags=caf%C3%A9,x%20y"),
        list(&["café", "x y"])
    );
    assert_eq!(tags("items://books?tags="), list(&[]));
    assert_eq!(tags("items://books"), Some(None));
    // A variable that is not named a list keeps its commas.
    assert_eq!(t.matches("items://books?q=a,b").unwrap()["q"], "a,b");
    // Each item is screened as a query value is.
    assert!(t.matches("items://books?tags=a,../../etc").is_none());
}
