//! Which decoded values a template lets through to its handler.
//!
//! By default the operator decides ([`by_operator`]): a value never walks out of its expression.
//! A server ported from a framework that screens values by a path policy of its own (FastMCP's and
//! the `mcp` SDK's `ResourceSecurity`) gives that policy instead ([`PathPolicy`]), per template,
//! with its checks and exempt variables: the framework's author chose them, and its clients see
//! the framework's answers. Either way a refused value matches no template, so the read is
//! answered as an unknown resource.

use super::{escapes_base, is_absolute_path, Program, UriTemplate};

/// How a template screens the values it extracts from a URI.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Screening {
    /// The operator's rule ([`by_operator`]).
    #[default]
    ByOperator,
    /// A framework's path policy: its checks, on the variables it does not exempt.
    Policy(PathPolicy),
}

/// A path policy on extracted values: a relative path climbing above its base, an absolute path,
/// a NUL byte. A value that fails an enabled check is refused, unless its variable is exempt.
/// Every check off is no screening at all (what the framework's `security=None` means).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct PathPolicy {
    pub reject_traversal: bool,
    pub reject_absolute: bool,
    pub reject_null_bytes: bool,
    /// Variables not screened, as the template spells them (`-` and `_` count as one).
    pub exempt: Vec<String>,
}

impl PathPolicy {
    /// The frameworks' default: every check on, nothing exempt.
    pub fn new(reject_traversal: bool, reject_absolute: bool, reject_null_bytes: bool) -> Self {
        Self {
            reject_traversal,
            reject_absolute,
            reject_null_bytes,
            exempt: Vec::new(),
        }
    }

    /// No screening: every decoded value passes.
    pub fn off() -> Self {
        Self::new(false, false, false)
    }

    pub fn exempt(mut self, vars: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.exempt.extend(vars.into_iter().map(Into::into));
        self
    }

    /// Does this policy refuse `value` (one of its strings, for a list)?
    pub fn refuses(&self, value: &str) -> bool {
        self.reject_traversal && escapes_base(value)
            || self.reject_absolute && is_absolute_path(value)
            || self.reject_null_bytes && value.contains('\0')
    }

    fn exempts(&self, var: &str) -> bool {
        let norm = |s: &str| s.replace('-', "_");
        self.exempt.iter().any(|e| e == var || norm(e) == norm(var))
    }
}

impl Screening {
    /// May `value`, decoded from `var` of an expression with operator `op`, reach the handler?
    pub(super) fn accepts(&self, var: &str, op: Option<char>, value: &str) -> bool {
        match self {
            Self::ByOperator => by_operator(op, value),
            Self::Policy(p) => p.exempts(var) || !p.refuses(value),
        }
    }
}

impl UriTemplate {
    /// This template screening its values by `screening` ([`Screening`]). Under a framework's path
    /// policy a lone exploded simple variable (`{path*}`) is a path of any depth, as those
    /// frameworks read it: the policy screens what it holds.
    pub fn with_screening(mut self, screening: Screening) -> Self {
        if matches!(screening, Screening::Policy(_)) {
            let spans: Vec<bool> = (self.specs.iter())
                .map(|(op, vars)| op.is_none() && matches!(vars.as_slice(), [v] if v.explode))
                .collect();
            if let Ok(program) = Program::compile(&self.parts, &spans) {
                self.program = program; // (the same parts compiled once already)
            }
        }
        self.screening = screening;
        self
    }
}

/// The operator's rule: a simple, label or path value (`{x}`, `{.x}`, `{/x}`) never holds a `/`
/// or `\` after decoding, nor is it `.` or `..` (RFC 6570 level 1 encodes separators, so a client
/// never sends them there); a reserved, fragment or query value (`{+x}`, `{#x}`, `{?x}`, `{&x}`,
/// `{;x}`) holds no `..` segment (a handler may join a query value into a path as readily as a
/// path variable).
pub(super) fn by_operator(op: Option<char>, v: &str) -> bool {
    match op {
        None | Some('.' | '/') => !v.contains(['/', '\\']) && v != "." && v != "..",
        _ => !v.split(['/', '\\']).any(|seg| seg == ".."),
    }
}

#[cfg(test)]
mod tests {
    use super::super::UriTemplate;
    use super::*;

    fn read(t: &str, screening: Screening, uri: &str) -> Option<String> {
        let t = UriTemplate::parse(t).unwrap().with_screening(screening);
        let m = t.matches(uri)?;
        Some(
            m.values()
                .map(|v| v.to_string())
                .collect::<Vec<_>>()
                .join(" "),
        )
    }

    #[test]
    fn a_policy_replaces_the_operator_rule() {
        let on = || Screening::Policy(PathPolicy::new(true, true, true));
        // `..` alone climbs: refused by the operator rule and by the policy.
        assert_eq!(
            read("git://diff/{ref}", Screening::ByOperator, "git://diff/.."),
            None
        );
        assert_eq!(read("git://diff/{ref}", on(), "git://diff/.."), None);
        // An exempt variable, or a policy with every check off, lets it through.
        let exempt = Screening::Policy(PathPolicy::new(true, true, true).exempt(["ref"]));
        assert_eq!(
            read("git://diff/{ref}", exempt, "git://diff/..").as_deref(),
            Some("\"..\"")
        );
        let off = Screening::Policy(PathPolicy::off());
        assert_eq!(
            read("git://diff/{ref}", off, "git://diff/..").as_deref(),
            Some("\"..\"")
        );
        // A range of revisions is a name, not a climb.
        assert!(read("git://diff/{ref}", on(), "git://diff/HEAD~3..HEAD").is_some());
        // The policy's checks hold on decoded values: an absolute path, a NUL byte.
        assert_eq!(read("f://{+p}", on(), "f:///etc/passwd"), None);
        assert_eq!(read("f://x/{p}", on(), "f://x/a%00b"), None);
        assert!(read(
            "f://x/{p}",
            Screening::Policy(PathPolicy::off()),
            "f://x/a%00b"
        )
        .is_some());
    }

    #[test]
    fn under_a_policy_an_exploded_variable_is_a_path_of_any_depth() {
        let on = || Screening::Policy(PathPolicy::new(true, true, true));
        let t = "file:///{path*}";
        assert_eq!(
            read(t, Screening::ByOperator, "file:///docs/readme.txt"),
            None
        );
        assert_eq!(
            read(t, on(), "file:///docs/readme.txt").as_deref(),
            Some("\"docs/readme.txt\"")
        );
        assert_eq!(read(t, on(), "file:///a/../../b"), None);
        assert_eq!(read(t, on(), "file:////etc/passwd"), None);
        let off = Screening::Policy(PathPolicy::off());
        assert_eq!(
            read(t, off, "file:///../etc/passwd").as_deref(),
            Some("\"../etc/passwd\"")
        );
        // The query stays apart.
        assert_eq!(
            read("f://{p*}{?q}", on(), "f://a/b?q=1").as_deref(),
            Some("\"a/b\" \"1\"")
        );
    }

    #[test]
    fn exempt_names_match_either_spelling_and_queries_are_screened() {
        let p = Screening::Policy(PathPolicy::new(true, true, true).exempt(["user-id"]));
        assert!(read("u://{user_id}", p, "u://..").is_some());
        let on = Screening::Policy(PathPolicy::new(true, true, true));
        assert_eq!(
            read("f://docs{?paths}", on.clone(), "f://docs?paths=../x"),
            None
        );
        assert!(read("f://docs{?paths}", on, "f://docs?paths=a/../b").is_some());
    }
}
