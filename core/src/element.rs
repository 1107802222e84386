//! An explicit element: a definition as the spec shapes it (a tool's, a prompt's, a resource's or
//! a resource template's) given together with its handler (`server.add(definition, handler)` in
//! Python and Node; in Rust `Tool::new(..).handler(..)` and its siblings, where the handler's
//! trait already fixes its kind). The pairing is checked here, once for every language: which
//! kind the definition is, that the handler was made for that kind, and a tool's input schema.

use crate::error::BuildError;
use serde_json::Value;

/// The kind of a definition, by the member that only that kind has: `inputSchema` (tool),
/// `uriTemplate` (resource template), `uri` (resource); any other is a prompt's.
pub fn kind_of(definition: &Value) -> &'static str {
    if definition.get("inputSchema").is_some() {
        "tool"
    } else if definition.get("uriTemplate").is_some() {
        "resource template"
    } else if definition.get("uri").is_some() {
        "resource"
    } else {
        "prompt"
    }
}

/// Check an explicit element: `definition` is an object with a string `name`, `handler_kind` (the
/// kind the host knows its handler was made for, when it knows one) matches the definition's
/// kind ("resource" also serves a resource template: one mark makes both), and a tool's input
/// schema is an object schema. The definition's kind on success.
pub fn check(definition: &Value, handler_kind: Option<&str>) -> Result<&'static str, BuildError> {
    let kind = kind_of(definition);
    let name = match definition.get("name").and_then(Value::as_str) {
        Some(n) if definition.is_object() => n,
        _ => {
            return Err(BuildError::InvalidName {
                kind,
                name: String::new(),
                message: "an element's definition is an object with a string `name`".into(),
            })
        }
    };
    if let Some(h) = handler_kind {
        let fits = h == kind || (h == "resource" && kind == "resource template");
        if !fits {
            return Err(BuildError::WrongHandler {
                kind,
                name: name.to_owned(),
                handler: h.to_owned(),
            });
        }
    }
    if kind == "tool" {
        crate::tool::check_input_schema(name, &definition["inputSchema"])?;
    }
    Ok(kind)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_kind_and_the_handler_match() {
        let tool = json!({"name": "add", "inputSchema": {"type": "object"}});
        assert_eq!(check(&tool, Some("tool")).unwrap(), "tool");
        assert_eq!(check(&tool, None).unwrap(), "tool");
        let t = json!({"name": "page", "uriTemplate": "docs://{p}"});
        assert_eq!(check(&t, Some("resource")).unwrap(), "resource template");
        assert_eq!(
            check(&json!({"name": "greet"}), Some("prompt")).unwrap(),
            "prompt"
        );
        let err = check(&tool, Some("prompt")).unwrap_err().to_string();
        assert_eq!(
            err,
            "tool 'add' is given a prompt handler: an element's handler must be of its definition's kind"
        );
        let r = json!({"name": "readme", "uri": "docs://readme"});
        assert!(check(&r, Some("tool")).is_err());
    }

    #[test]
    fn a_tool_needs_an_object_input_schema_and_a_definition_a_name() {
        let err = check(
            &json!({"name": "listy", "inputSchema": {"type": "array"}}),
            None,
        )
        .unwrap_err()
        .to_string();
        assert_eq!(
            err,
            "invalid schema for 'listy': inputSchema must be a JSON Schema object with root type \"object\""
        );
        assert!(check(&json!({"inputSchema": {"type": "object"}}), None).is_err());
    }
}
