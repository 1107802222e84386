//! Discovery: primitives registered where they are defined, and the one rule that decides
//! between a registration by hand and a discovered one.
//!
//! Every registration carries an [`Origin`]: by hand ([`Origin::Manual`]) or discovered at a
//! [`Place`] (a module path and file: a Rust module, a Python module, a Node file). [`admit`] is
//! the rule, and every language goes through it (the Rust builder and runtime registry, the
//! Python binding's registry before its native server exists, the Node registry):
//!
//! - a name registered by hand wins over a discovered one, whatever the order: a manual
//!   registration replaces a discovered entry, a discovered one is skipped beside a manual one;
//! - two discovered items with the same name are an error naming both places;
//! - two manual ones are the usual duplicate-name error.
//!
//! In Rust, a primitive is submitted with [`discoverable!`](crate::discoverable) (collected at
//! link time by the `inventory` crate) and registered by [`ServerBuilder::discover`] or
//! [`ServerBuilder::discover_under`], in a deterministic order: by module path, then by name.
//!
//! [`ServerBuilder::discover`]: crate::ServerBuilder::discover
//! [`ServerBuilder::discover_under`]: crate::ServerBuilder::discover_under

use std::fmt;

use crate::error::BuildError;
use crate::prompt::Prompt;
use crate::resource::{Resource, ResourceTemplate};
use crate::tool::Tool;

#[doc(hidden)]
pub use inventory;

/// Where a discovered primitive is defined: its module path (`myapp::tools::math`, the Python
/// module `myapp.tools.math`, the Node file relative to the directory discovered), its file and
/// line (0: unknown).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Place {
    pub module: String,
    pub file: String,
    pub line: u32,
}

impl Place {
    pub fn new(module: impl Into<String>, file: impl Into<String>, line: u32) -> Self {
        Self {
            module: module.into(),
            file: file.into(),
            line,
        }
    }
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            0 => write!(f, "{} ({})", self.module, self.file),
            n => write!(f, "{} ({}:{n})", self.module, self.file),
        }
    }
}

/// How a primitive came to be registered.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum Origin {
    /// Registered by hand (`.tool(...)`, `add_tool`, `@server.tool`, `registerTool`).
    #[default]
    Manual,
    /// Found by discovery, defined at this place.
    Discovered(Place),
}

/// What [`admit`] decided for a registration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admit {
    /// Nothing of that name is registered: add it.
    Add,
    /// A discovered entry of that name is registered and this one is manual: replace it.
    Replace,
    /// A manual entry of that name is registered and this one is discovered: keep the manual one.
    Skip,
}

impl Admit {
    /// The word the bindings hand to their host layer.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Add => "add",
            Self::Replace => "replace",
            Self::Skip => "skip",
        }
    }
}

/// The rule: may a `kind` named `name` from `incoming` be registered where `existing` (the
/// origin of the entry of that name, if any) is? See the module's documentation.
pub fn admit(
    kind: &'static str,
    name: &str,
    existing: Option<&Origin>,
    incoming: &Origin,
) -> Result<Admit, BuildError> {
    match (existing, incoming) {
        (None, _) => Ok(Admit::Add),
        (Some(Origin::Manual), Origin::Manual) => Err(BuildError::DuplicateName {
            kind,
            name: name.to_string(),
        }),
        (Some(Origin::Discovered(first)), Origin::Manual) => {
            tracing::debug!(
                "the {kind} '{name}' registered by hand replaces the one discovered in {first}"
            );
            Ok(Admit::Replace)
        }
        (Some(Origin::Manual), Origin::Discovered(place)) => {
            tracing::debug!(
                "the {kind} '{name}' discovered in {place} is skipped: one is registered by hand"
            );
            Ok(Admit::Skip)
        }
        (Some(Origin::Discovered(first)), Origin::Discovered(second)) => {
            Err(BuildError::DuplicateDiscovered {
                kind,
                name: name.to_string(),
                first: first.to_string(),
                second: second.to_string(),
            })
        }
    }
}

/// What a discovered submission builds, by kind.
#[derive(Clone, Copy)]
#[non_exhaustive]
pub enum Build {
    Tool(fn() -> Tool),
    Resource(fn() -> Resource),
    ResourceTemplate(fn() -> ResourceTemplate),
    Prompt(fn() -> Prompt),
}

impl Build {
    /// The kind's name, as errors and logs spell it.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Tool(_) => "tool",
            Self::Resource(_) => "resource",
            Self::ResourceTemplate(_) => "resource template",
            Self::Prompt(_) => "prompt",
        }
    }
}

/// One submission of [`discoverable!`](crate::discoverable): a constructor and where it is.
/// Nothing is built until a server discovers it.
pub struct Discovered {
    pub build: Build,
    pub module_path: &'static str,
    pub file: &'static str,
    pub line: u32,
}

impl Discovered {
    /// What the macro submits (`module_path!()`, `file!()`, `line!()` of the submission).
    pub const fn new(
        build: Build,
        module_path: &'static str,
        file: &'static str,
        line: u32,
    ) -> Self {
        Self {
            build,
            module_path,
            file,
            line,
        }
    }

    pub fn place(&self) -> Place {
        Place::new(self.module_path, self.file, self.line)
    }

    /// Whether this submission's module is `prefix` or below it (`a::b` is under `a`, not
    /// `a::bc` under `a::b`).
    pub fn is_under(&self, prefix: &str) -> bool {
        let prefix = prefix.trim_end_matches("::");
        match self.module_path.strip_prefix(prefix) {
            Some(rest) => rest.is_empty() || rest.starts_with("::"),
            None => false,
        }
    }
}

inventory::collect!(Discovered);

/// Every submission linked into this program whose module is under `prefix` (all when `None`).
pub fn submissions(prefix: Option<&str>) -> Vec<&'static Discovered> {
    inventory::iter::<Discovered>
        .into_iter()
        .filter(|d| prefix.is_none_or(|p| d.is_under(p)))
        .collect()
}

/// Submit primitive constructors for discovery ([`ServerBuilder::discover`]): each is a
/// `fn() -> Tool` (`tool:`), `fn() -> Resource` (`resource:`), `fn() -> ResourceTemplate`
/// (`resource_template:`) or `fn() -> Prompt` (`prompt:`), recorded with the module path, file
/// and line of the submission.
///
/// ```
/// use oxmcp::{Tool, ToolResult, HandlerError};
///
/// fn make_add_tool() -> Tool {
///     Tool::new("add", serde_json::json!({"type": "object"}))
///         .handler(|_args, _ctx| async { Ok::<_, HandlerError>(ToolResult::text("3")) })
/// }
/// oxmcp::discoverable!(tool: make_add_tool);
///
/// let server = oxmcp::Server::builder("demo", "1.0.0").discover().build().unwrap();
/// assert_eq!(server.tool_names(), ["add"]);
/// ```
///
/// [`ServerBuilder::discover`]: crate::ServerBuilder::discover
#[macro_export]
macro_rules! discoverable {
    ($($kind:ident : $f:path),+ $(,)?) => {
        $( $crate::discoverable!(@one $kind $f); )+
    };
    (@one tool $f:path) => {
        $crate::discoverable!(@submit Tool $f);
    };
    (@one resource $f:path) => {
        $crate::discoverable!(@submit Resource $f);
    };
    (@one resource_template $f:path) => {
        $crate::discoverable!(@submit ResourceTemplate $f);
    };
    (@one prompt $f:path) => {
        $crate::discoverable!(@submit Prompt $f);
    };
    (@submit $variant:ident $f:path) => {
        $crate::discovery::inventory::submit! {
            $crate::discovery::Discovered::new(
                $crate::discovery::Build::$variant($f),
                ::core::module_path!(),
                ::core::file!(),
                ::core::line!(),
            )
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(m: &str) -> Origin {
        Origin::Discovered(Place::new(m, format!("{m}.rs"), 3))
    }

    #[test]
    fn manual_wins_whatever_the_order_and_two_discovered_are_an_error() {
        assert_eq!(admit("tool", "a", None, &Origin::Manual), Ok(Admit::Add));
        assert_eq!(admit("tool", "a", None, &at("x")), Ok(Admit::Add));
        assert_eq!(
            admit("tool", "a", Some(&at("x")), &Origin::Manual),
            Ok(Admit::Replace)
        );
        assert_eq!(
            admit("tool", "a", Some(&Origin::Manual), &at("x")),
            Ok(Admit::Skip)
        );
        assert_eq!(
            admit("tool", "a", Some(&Origin::Manual), &Origin::Manual),
            Err(BuildError::DuplicateName {
                kind: "tool",
                name: "a".into()
            })
        );
        let e = admit("prompt", "a", Some(&at("m::x")), &at("m::y")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "prompt 'a' is discovered twice: in m::x (m::x.rs:3) and in m::y (m::y.rs:3)"
        );
    }

    #[test]
    fn under_a_prefix_means_at_a_path_boundary() {
        let d = |m: &'static str| Discovered::new(Build::Tool(|| unreachable!()), m, "f.rs", 1);
        assert!(d("app::tools").is_under("app::tools"));
        assert!(d("app::tools::math").is_under("app::tools"));
        assert!(d("app::tools::math").is_under("app::tools::"));
        assert!(!d("app::toolsx").is_under("app::tools"));
        assert!(!d("app").is_under("app::tools"));
        assert_eq!(Place::new("a.b", "a/b.py", 0).to_string(), "a.b (a/b.py)");
    }
}
