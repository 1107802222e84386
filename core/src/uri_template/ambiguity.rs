//! Templates whose reverse match is ambiguous: two variables with no literal between them, or
//! more than one variable that may span segments. This module's matcher still gives such a
//! template one answer (longest value first); a framework whose parser refuses them (the `mcp`
//! SDK's `UriTemplate.parse`) asks [`UriTemplate::ambiguity`] and refuses what it names.

use super::{Part, UriTemplate};

/// Why a template's match is ambiguous.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ambiguity {
    /// These two variables follow each other with no literal between them: nothing marks where
    /// the first ends.
    Adjacent(String, String),
    /// More than one variable may span segments (`{+x}`, `{#x}`, or exploded): nothing says
    /// which one takes an extra segment.
    ManySpanning,
}

impl UriTemplate {
    /// The first ambiguity of this template, in template order, or `None`. A trailing run of
    /// query expressions that starts with `{?...}` (after a path with no `?` or `#`) is matched
    /// as a query string, by name, so its variables are not counted.
    pub fn ambiguity(&self) -> Option<Ambiguity> {
        let end = self.query_tail_start();
        let mut specs = self.specs.iter();
        let mut previous: Option<&str> = None;
        let mut spanning = false;
        for part in &self.parts[..end] {
            let (op, vars) = match part {
                Part::Lit(l) => {
                    if !l.is_empty() {
                        previous = None;
                    }
                    continue;
                }
                Part::Expr { .. } => match specs.next() {
                    Some(spec) => spec,
                    None => break,
                },
            };
            for (i, var) in vars.iter().enumerate() {
                let lead = match (op, i) {
                    (None | Some('+'), 0) => "",
                    (Some(c @ ('#' | '.' | '/' | ';' | '?' | '&')), 0) => lead_str(*c),
                    (None | Some('+' | '#'), _) => ",",
                    (Some('?' | '&'), _) => "&",
                    (Some(c), _) => lead_str(*c),
                };
                let named = matches!(op, Some(';' | '?' | '&'));
                if !var.explode && (named || !lead.is_empty()) {
                    previous = None;
                }
                if let Some(before) = previous {
                    return Some(Ambiguity::Adjacent(before.to_string(), var.name.clone()));
                }
                if var.explode || matches!(op, Some('+' | '#')) {
                    if spanning {
                        return Some(Ambiguity::ManySpanning);
                    }
                    spanning = true;
                }
                previous = Some(&var.name);
            }
        }
        None
    }

    /// Where the trailing query expressions matched by name begin (`parts.len()` when none are).
    fn query_tail_start(&self) -> usize {
        let mut start = self.parts.len();
        for part in self.parts.iter().rev() {
            match part {
                Part::Expr {
                    op: Some('?' | '&'),
                    ..
                } => start -= 1,
                _ => break,
            }
        }
        let opens_query = matches!(
            self.parts.get(start),
            Some(Part::Expr { op: Some('?'), .. })
        );
        let path_is_plain = self.parts[..start].iter().all(|p| match p {
            Part::Lit(l) => !l.contains(['?', '#']),
            Part::Expr { op, .. } => !matches!(op, Some('?' | '#')),
        });
        if opens_query && path_is_plain {
            start
        } else {
            self.parts.len()
        }
    }
}

/// The literal an operator puts before its first variable, and between its variables.
fn lead_str(op: char) -> &'static str {
    match op {
        '#' => "#",
        '.' => ".",
        '/' => "/",
        ';' => ";",
        '?' => "?",
        _ => "&",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(t: &str) -> Option<Ambiguity> {
        UriTemplate::parse(t).unwrap().ambiguity()
    }

    #[test]
    fn adjacent_variables_are_named() {
        assert_eq!(
            of("manuals://{+path}{ext}"),
            Some(Ambiguity::Adjacent("path".into(), "ext".into()))
        );
        assert_eq!(
            of("x://{a}{b}"),
            Some(Ambiguity::Adjacent("a".into(), "b".into()))
        );
        assert_eq!(
            of("x://{a}{/b*}"),
            Some(Ambiguity::Adjacent("a".into(), "b".into()))
        );
    }

    #[test]
    fn an_operator_or_a_literal_separates() {
        assert_eq!(of("manuals://{+path}{.ext}"), None);
        assert_eq!(of("x://{a,b}"), None);
        assert_eq!(of("x://{a}-{b}"), None);
        assert_eq!(of("x://{a}{;b}"), None);
        assert_eq!(of("reviews://{isbn}{?limit,sort}"), None);
        assert_eq!(of("x://{a}{?q}{&r}"), None);
    }

    #[test]
    fn two_spanning_variables_are_refused() {
        assert_eq!(
            of("copy://{+source}/to/{+destination}"),
            Some(Ambiguity::ManySpanning)
        );
        assert_eq!(of("x://{/a*}/and{/b*}"), Some(Ambiguity::ManySpanning));
        assert_eq!(of("x://{+a}/{b}"), None);
    }

    #[test]
    fn a_query_tail_after_a_literal_query_is_matched_strictly() {
        assert_eq!(of("x://p?fixed=1{&page}"), None);
        assert_eq!(of("x://{a}{&b}"), None);
    }
}
