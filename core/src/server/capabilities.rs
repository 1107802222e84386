//! What the server declares: `ServerCapabilities`, computed from what is registered (and what
//! the builder declared), or declared exactly by a compatibility layer that answers as its
//! framework would; and the `extensions` the registry needs.

use super::registry::Registry;
use super::Server;
use serde_json::{json, Map, Value};
use std::sync::Arc;

impl Server {
    /// Whether capability `k` (`tools`, `resources`, `prompts`, `completions`, `logging`) is
    /// declared: it is when something of that kind is registered or the builder declared it.
    pub(crate) fn has_capability(&self, reg: &Registry, k: &str) -> bool {
        if k != "skills" {
            if let Some(exact) = &*self.inner.exact.read().unwrap_or_else(|e| e.into_inner()) {
                return exact.get(k).is_some();
            }
        }
        let d = self.inner.declared;
        match k {
            "logging" => true,
            "tools" => d.tools || !reg.tools.is_empty() || self.inner.options.tool_search.is_some(),
            "resources" => d.resources || !reg.resources.is_empty() || !reg.templates.is_empty(),
            "skills" => self.has_skills(reg),
            "prompts" => d.prompts || !reg.prompts.is_empty(),
            "completions" => match self.inner.options.completions {
                Some(declared) => declared,
                None => !reg.prompts.is_empty() || !reg.templates.is_empty(),
            },
            _ => false,
        }
    }

    /// Declare exactly `capabilities` (a `ServerCapabilities` object) from now on, instead of the
    /// ones computed from what is registered; `None` goes back to computing them. A method of a
    /// capability left out is answered as unknown (-32601), as by a framework that declared
    /// none: this is how a port of a framework declares what that framework would
    /// (the TypeScript SDK 1.x declares what the server was given and what it registered).
    /// On 2026-07-28 requests the extensions the registry needs are added to it.
    pub fn declare_exactly(&self, capabilities: Option<Value>) {
        *self.inner.exact.write().unwrap_or_else(|e| e.into_inner()) = capabilities.map(Arc::new);
    }

    /// `ServerCapabilities`: the ones declared exactly, or computed from what is registered
    /// (and what the builder declared). `modern`: for a 2026-07-28 request.
    pub(crate) fn capabilities(&self, reg: &Registry, modern: bool) -> Value {
        let exact = self
            .inner
            .exact
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        if let Some(exact) = exact {
            let mut caps = (*exact).clone();
            if let (true, Some(obj), Some(ext)) =
                (modern, caps.as_object_mut(), self.extensions(reg))
            {
                obj.entry("extensions").or_insert(ext);
            }
            return caps;
        }
        let mut caps = Map::new();
        let objects = [
            ("logging", json!({})),
            ("tools", json!({"listChanged": true})),
            ("resources", json!({"subscribe": true, "listChanged": true})),
            ("prompts", json!({"listChanged": true})),
            ("completions", json!({})),
        ];
        for (k, v) in objects {
            if self.has_capability(reg, k) {
                caps.insert(k.into(), v);
            }
        }
        if let Some(ext) = self.extensions(reg) {
            caps.insert("extensions".into(), ext);
        }
        if let Some((k, v)) = self.search_capability() {
            caps.insert("experimental".into(), json!({ k: v }));
        }
        Value::Object(caps)
    }

    /// The `extensions` capability: what the registry needs (tasks, apps, skills) and what the
    /// options declare, if any. An id the options declare is declared with the options'
    /// settings: the server's author (or the framework a compatibility layer ports, which
    /// declares what that framework would) says what its settings are, the registry only
    /// which extensions its registrations use.
    fn extensions(&self, reg: &Registry) -> Option<Value> {
        let mut ext = Map::new();
        if reg
            .tools
            .values()
            .any(|t| t.task != crate::tasks::TaskSupport::Forbidden)
        {
            ext.insert(crate::tasks::EXTENSION_ID.into(), json!({}));
        }
        if reg.resources.keys().any(|u| u.starts_with("ui://"))
            || reg.templates.keys().any(|u| u.starts_with("ui://"))
        {
            ext.insert(
                crate::apps::EXTENSION_ID.into(),
                json!({"mimeTypes": [crate::apps::MIME_TYPE]}),
            );
        }
        if self.has_skills(reg) {
            ext.insert(crate::skills::EXTENSION_ID.into(), self.skills_capability());
        }
        for (id, settings) in &self.inner.options.extensions {
            ext.insert(id.clone(), settings.clone());
        }
        (!ext.is_empty()).then_some(Value::Object(ext))
    }
}
