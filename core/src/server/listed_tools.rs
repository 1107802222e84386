//! The `Mcp-Param-*` headers of tools the registry does not hold: those a compatibility layer's
//! `tools/list` handler (a middleware that answers the list itself, such as a low-level server's)
//! listed. The HTTP check of a modern `tools/call` applies the same rule to them as to the
//! registry's tools, against the definition the last listing gave.
//!
//! Only tools that declare headers are kept, so a server without `x-mcp-header` keeps nothing;
//! a tool listed again replaces its entry (a schema that drops its headers drops the entry).
//!
//! A host may look the schema up by name instead ([`ToolSchemaLookup`], mcp 2.x's
//! `get_tool_input_schema`): the check of a call then asks it for every tool the registry does
//! not hold, and the listings are not consulted, as on the SDK. A schema it cannot give (`None`)
//! leaves the call unchecked, as a tool never listed is.

use serde_json::Value;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};

use super::registry::Registry;
use crate::handler::{BoxFuture, ToolSchemaLookup};

/// A tool's `(header name, JSON pointer into arguments)` pairs.
pub(crate) type HeaderPairs = Arc<[(String, String)]>;

/// The header rules of the tools a handler listed, by tool name.
#[derive(Default)]
pub(crate) struct ListedTools {
    by_name: RwLock<HashMap<String, HeaderPairs>>,
    /// Whether `by_name` holds any tool: read by every modern HTTP `tools/call`, which then
    /// skips the lock on a server whose listed tools declare no headers (almost every one).
    any: AtomicBool,
    /// The host's lookup by name, when it gave one.
    lookup: RwLock<Option<Arc<dyn ToolSchemaLookup>>>,
}

impl ListedTools {
    /// Note the tools of a `tools/list` answer that the registry `reg` does not hold. A tool
    /// whose annotations break the rules of `x-mcp-header` gets no entry (clients leave it out).
    pub(crate) fn record(&self, result: &Value, reg: &Registry) {
        let Some(tools) = result.get("tools").and_then(Value::as_array) else {
            return;
        };
        // Worked out before the lock is taken: a list of the registry's own tools takes none.
        let found: Vec<(&str, Vec<(String, String)>)> = tools
            .iter()
            .filter_map(|t| {
                let name = t.get("name").and_then(Value::as_str)?;
                if reg.tools.get(name).is_some() {
                    return None;
                }
                let pairs = t
                    .get("inputSchema")
                    .and_then(|s| crate::schema::check_mcp_headers(s).ok())
                    .unwrap_or_default();
                Some((name, pairs))
            })
            .collect();
        if found.is_empty() {
            return;
        }
        let mut map = self.by_name.write().unwrap_or_else(|e| e.into_inner());
        for (name, pairs) in found {
            if pairs.is_empty() {
                map.remove(name);
            } else {
                map.insert(name.to_string(), pairs.into());
            }
        }
        self.any.store(!map.is_empty(), Ordering::Release);
    }

    /// Whether any listed tool declares headers.
    pub(crate) fn any(&self) -> bool {
        self.any.load(Ordering::Acquire)
    }

    fn lookup(&self) -> Option<Arc<dyn ToolSchemaLookup>> {
        self.lookup
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// The header rules of the listed tool `name`, if it declares any.
    pub(crate) fn headers(&self, name: &str) -> Option<HeaderPairs> {
        let map = self.by_name.read().unwrap_or_else(|e| e.into_inner());
        map.get(name).cloned()
    }
}

impl super::Server {
    /// The `Mcp-Param-*` rules of `name`, a tool the registry does not hold, as a middleware's
    /// `tools/list` last listed it; `None` when it declared none or was never listed.
    pub(crate) fn listed_tool_headers(&self, name: &str) -> Option<HeaderPairs> {
        self.inner.listed_tools.headers(name)
    }

    /// Whether any tool a middleware listed declares `Mcp-Param-*` headers.
    pub(crate) fn any_listed_tool_headers(&self) -> bool {
        self.inner.listed_tools.any()
    }

    /// Look the input schema of the tools the registry does not hold up with `lookup`, by name,
    /// rather than in the last listing (see the module's doc).
    pub fn set_tool_schema_lookup(&self, lookup: Arc<dyn ToolSchemaLookup>) {
        *self
            .inner
            .listed_tools
            .lookup
            .write()
            .unwrap_or_else(|e| e.into_inner()) = Some(lookup);
    }

    /// Whether a host's lookup gives the schemas of the tools the registry does not hold.
    pub(crate) fn has_tool_schema_lookup(&self) -> bool {
        self.inner
            .listed_tools
            .lookup
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .is_some()
    }

    /// The `Mcp-Param-*` rules of `name` as the host's lookup gives its schema; `None` when it
    /// gives none, or a schema whose annotations break the rules of `x-mcp-header` (such a tool
    /// is one clients leave out, as a listed one).
    pub(crate) fn looked_up_tool_headers(&self, name: &str) -> BoxFuture<Option<HeaderPairs>> {
        let Some(lookup) = self.inner.listed_tools.lookup() else {
            return Box::pin(std::future::ready(None));
        };
        let schema = lookup.input_schema(name);
        Box::pin(async move {
            let pairs = crate::schema::check_mcp_headers(&schema.await?).ok()?;
            Some(pairs.into())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keeps_only_tools_with_headers_and_replaces_on_a_new_listing() {
        let listed = ListedTools::default();
        let reg = Registry::default();
        let schema = json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"}}});
        listed.record(
            &json!({"tools": [
                {"name": "a", "inputSchema": schema},
                {"name": "b", "inputSchema": {"type": "object"}}]}),
            &reg,
        );
        let a = listed.headers("a").expect("a declares a header");
        assert_eq!(&*a, &[("Region".to_string(), "/region".to_string())]);
        assert!(listed.headers("b").is_none());
        assert!(listed.any());
        listed.record(
            &json!({"tools": [{"name": "a", "inputSchema": {"type": "object"}}]}),
            &reg,
        );
        assert!(listed.headers("a").is_none());
        assert!(!listed.any());
    }
}
