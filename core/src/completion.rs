//! Completers attached to the arguments of a prompt or the variables of a resource template: a
//! fixed list of values, or a handler. A list is matched against what the user typed here, by
//! one rule, whichever language gave it: the values that start with the typed text, in the order
//! given (case-sensitive, as a prefix of the value itself; an empty text matches every value).
//! A handler's answer is its own: it gets the text and decides. Both are capped at 100 values
//! by dispatch, with `total` and `hasMore`.

use crate::context::Context;
use crate::error::HandlerError;
use crate::handler::{BoxFuture, CompletionHandler};
use crate::protocol::Completion;
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::sync::Arc;

/// The values of `values` that complete `typed`: those starting with it, in their order.
pub fn matching<S: AsRef<str>>(values: &[S], typed: &str) -> Completion {
    Completion::new(
        values
            .iter()
            .map(AsRef::as_ref)
            .filter(|v| v.starts_with(typed))
            .map(str::to_owned)
            .collect(),
    )
}

#[derive(Clone)]
enum Source {
    Values(Arc<[String]>),
    Handler(Arc<dyn CompletionHandler>),
}

/// Completers by argument name, itself the [`CompletionHandler`] of a prompt or template
/// (`Prompt::complete(Completer::new().values("lang", ["rust", "python"]))`). An argument with
/// no completer, and no `otherwise` handler, completes to nothing.
#[derive(Clone, Default)]
pub struct Completer {
    by_argument: BTreeMap<String, Source>,
    otherwise: Option<Arc<dyn CompletionHandler>>,
}

impl Completer {
    pub fn new() -> Self {
        Self::default()
    }

    /// Complete `argument` from a fixed list, matched by [`matching`].
    pub fn values<S: Into<String>>(
        mut self,
        argument: impl Into<String>,
        values: impl IntoIterator<Item = S>,
    ) -> Self {
        let list: Vec<String> = values.into_iter().map(Into::into).collect();
        self.by_argument
            .insert(argument.into(), Source::Values(list.into()));
        self
    }

    /// Complete `argument` from the values of a `JsonSchema` type that is a string enum (a Rust
    /// enum of unit variants: each variant as serde names it).
    #[cfg(feature = "schemars")]
    pub fn values_of<T: schemars::JsonSchema>(self, argument: impl Into<String>) -> Self {
        self.values(argument, enum_values(&crate::schema_for::<T>()))
    }

    /// Complete `argument` with a handler, which gets the typed text and answers for itself.
    pub fn handler(self, argument: impl Into<String>, h: impl CompletionHandler) -> Self {
        self.handler_arc(argument, Arc::new(h))
    }

    pub fn handler_arc(
        mut self,
        argument: impl Into<String>,
        h: Arc<dyn CompletionHandler>,
    ) -> Self {
        self.by_argument.insert(argument.into(), Source::Handler(h));
        self
    }

    /// The handler for every argument without a completer of its own (a binding's host router).
    pub fn otherwise(mut self, h: Arc<dyn CompletionHandler>) -> Self {
        self.otherwise = Some(h);
        self
    }

    /// The argument names with a completer of their own, in order.
    pub fn arguments(&self) -> impl Iterator<Item = &str> {
        self.by_argument.keys().map(String::as_str)
    }
}

impl CompletionHandler for Completer {
    fn complete(
        &self,
        argument: String,
        value: String,
        context_args: Map<String, Value>,
        ctx: Context,
    ) -> BoxFuture<Result<Completion, HandlerError>> {
        match self.by_argument.get(&argument).cloned() {
            Some(Source::Values(list)) => {
                let c = matching(&list, &value);
                Box::pin(async move { Ok(c) })
            }
            Some(Source::Handler(h)) => h.complete(argument, value, context_args, ctx),
            None => match &self.otherwise {
                Some(h) => h.complete(argument, value, context_args, ctx),
                None => Box::pin(async { Ok(Completion::default()) }),
            },
        }
    }
}

/// A binding's completers, named by argument, checked against what the primitive has: a
/// prompt's argument names, or a resource template's variables (`uri_template`). A completer
/// for a name the primitive does not have would never run, and the name is most likely a typo
/// of one that then completes nothing, so it is refused when registered, with the same text in
/// every binding.
pub fn check_names(
    primitive: Completed<'_>,
    completed: impl IntoIterator<Item = impl AsRef<str>>,
) -> Result<(), String> {
    let template;
    let known: Vec<&str> = match &primitive {
        Completed::Prompt { arguments, .. } => arguments.to_vec(),
        // A static URI (no variable; the parser refuses it as a template) has none to complete.
        Completed::Template { uri_template } => {
            template = crate::uri_template::UriTemplate::parse(uri_template).ok();
            template.iter().flat_map(|t| t.variables()).collect()
        }
    };
    for name in completed {
        let name = name.as_ref();
        if !known.contains(&name) {
            return Err(match primitive {
                Completed::Prompt { name: p, .. } => {
                    format!("prompt '{p}' has no argument '{name}' to complete")
                }
                Completed::Template { uri_template } => {
                    format!(
                        "resource '{uri_template}' has no template variable '{name}' to complete"
                    )
                }
            });
        }
    }
    Ok(())
}

/// What [`check_names`] checks completers against.
pub enum Completed<'a> {
    /// A prompt and its argument names.
    Prompt {
        name: &'a str,
        arguments: &'a [&'a str],
    },
    /// A resource template, by its URI template.
    Template { uri_template: &'a str },
}

/// The string values a JSON Schema allows when it is an enumeration: `enum`, or `oneOf`/`anyOf`
/// whose branches are each a `const` or an `enum` (schemars' shape for documented variants).
pub fn enum_values(schema: &Value) -> Vec<String> {
    let strings = |a: &Vec<Value>| -> Vec<String> {
        a.iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect()
    };
    if let Some(a) = schema.get("enum").and_then(Value::as_array) {
        return strings(a);
    }
    if let Some(c) = schema.get("const").and_then(Value::as_str) {
        return vec![c.to_owned()];
    }
    ["oneOf", "anyOf"]
        .iter()
        .filter_map(|k| schema.get(*k).and_then(Value::as_array))
        .flat_map(|branches| branches.iter().flat_map(enum_values))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn completers_are_named_for_what_the_primitive_has() {
        let prompt = Completed::Prompt {
            name: "review",
            arguments: &["code", "lang"],
        };
        assert_eq!(check_names(prompt, ["lang"]), Ok(()));
        let prompt = Completed::Prompt {
            name: "review",
            arguments: &["code", "lang"],
        };
        assert_eq!(
            check_names(prompt, ["lang", "langs"]),
            Err("prompt 'review' has no argument 'langs' to complete".into())
        );
        let template = Completed::Template {
            uri_template: "docs://{section}/{page}",
        };
        assert_eq!(check_names(template, ["page", "section"]), Ok(()));
        let motd = Completed::Template {
            uri_template: "docs://motd",
        };
        assert_eq!(
            check_names(motd, ["x"]),
            Err("resource 'docs://motd' has no template variable 'x' to complete".into())
        );
        let template = Completed::Template {
            uri_template: "docs://{section}/{page}",
        };
        assert_eq!(
            check_names(template, ["chapter"]),
            Err(
                "resource 'docs://{section}/{page}' has no template variable 'chapter' to complete"
                    .into()
            )
        );
    }
    use serde_json::json;

    #[test]
    fn a_list_is_matched_by_prefix_in_its_order() {
        let v = ["python", "rust", "ruby", "Rust"];
        assert_eq!(matching(&v, "ru").values, ["rust", "ruby"]);
        assert_eq!(matching(&v, "").values, v);
        assert!(matching(&v, "go").values.is_empty());
    }

    #[test]
    fn enum_values_read_enum_const_and_one_of() {
        assert_eq!(enum_values(&json!({"enum": ["a", "b"]})), ["a", "b"]);
        assert_eq!(
            enum_values(&json!({"oneOf": [{"const": "a", "description": "x"}, {"enum": ["b"]}]})),
            ["a", "b"]
        );
        assert!(enum_values(&json!({"type": "string"})).is_empty());
    }

    #[cfg(feature = "schemars")]
    #[test]
    fn values_of_a_rust_enum_are_its_serde_names() {
        #[derive(schemars::JsonSchema)]
        #[allow(dead_code)]
        #[serde(rename_all = "lowercase")]
        enum Lang {
            Rust,
            Python,
        }
        assert_eq!(
            enum_values(&crate::schema_for::<Lang>()),
            ["rust", "python"]
        );
        // A documented variant is a `oneOf` branch of its own: its value is still there.
        #[derive(schemars::JsonSchema)]
        #[allow(dead_code)]
        enum Documented {
            /// the first
            A,
            B,
        }
        let mut v = enum_values(&crate::schema_for::<Documented>());
        v.sort();
        assert_eq!(v, ["A", "B"]);
    }
}
