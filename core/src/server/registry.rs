//! The registry: everything registered, in registration order, as persistent maps.
//!
//! Why persistent: a request works on a snapshot of the registry (one `Arc` clone) while a
//! change at runtime (`add_tool` while serving) builds the next version. With a plain map the
//! next version was a full copy — N keys and N `Arc`s per `add_tool`, so registering N tools one
//! at a time was quadratic (10,000 tools: 50 million key copies). A persistent map shares all
//! but the O(log N) nodes on the changed path, so a version costs the same whether nothing or a
//! thousand requests hold the previous one, and bulk registration is linear.

use rpds::{HashTrieMapSync, RedBlackTreeMapSync};
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use std::sync::{Arc, OnceLock};

use crate::discovery::{Origin, Place};
use crate::prompt::PromptEntry;
use crate::resource::{ResourceEntry, TemplateEntry};
use crate::tool::ToolEntry;
use crate::uri_template::Screened;

/// Everything registered. Cloning is O(1) (four persistent maps).
#[derive(Clone, Default)]
pub(crate) struct Registry {
    pub(crate) tools: Table<ToolEntry>,
    pub(crate) resources: Table<ResourceEntry>,
    pub(crate) templates: Table<TemplateEntry>,
    pub(crate) prompts: Table<PromptEntry>,
    /// The skills served, by `SKILL.md` URI (so `skills/list` is in URI order).
    pub(crate) skills: RedBlackTreeMapSync<String, crate::skills::SkillSlot>,
    /// Every skill file's URI → its digest: a nested skill's files are the enclosing skill's
    /// too, registered once, and must be the same bytes.
    pub(crate) skill_files: HashTrieMapSync<String, String>,
    /// Answers rendered from this version, made on first use (see [`Rendered`]).
    pub(crate) rendered: Rendered,
}

/// What a list or `server/discover` answers, serialised once per registry version and reused.
/// A version never changes (a change makes the next one, whose `Rendered` starts empty: a clone
/// is empty), so an entry is true for as long as the version it hangs on is served. Only the
/// answers every caller gets are kept: the first page without a cursor, to a request without a
/// caller (an allow-list filters per caller), one per era and cache scope.
#[derive(Default)]
pub(crate) struct Rendered {
    slots: [OnceLock<Arc<RawValue>>; Rendered::SLOTS],
    /// Whether any tool of this version declares `Mcp-Param-*` headers (`x-mcp-header`): when
    /// none does, the HTTP check of a modern `tools/call` need not look its tool up.
    param_headers: OnceLock<bool>,
    /// Whether any tool, prompt, resource or template of this version declares required scopes:
    /// when none does, admitting a call need not look its primitive up (a template read would
    /// otherwise match the URI against every template twice).
    scopes: OnceLock<bool>,
    /// This version's tools indexed for search, built by the first search of the version.
    search: OnceLock<Arc<super::search::SearchIndex>>,
    /// This version's templates by leading literal, built by the first read through a template.
    templates: OnceLock<Arc<super::template_index::TemplateIndex>>,
    /// This version's definitions digested, per kind and era (only a tool's definition differs
    /// between eras), built by the first list of each.
    catalogs: [OnceLock<Arc<super::catalog::KindCatalog>>; Rendered::CATALOGS],
}

/// The kinds of list a catalog is kept for.
#[derive(Clone, Copy)]
pub(crate) enum CatalogKind {
    Tools = 0,
    Resources = 1,
    Templates = 2,
    Prompts = 3,
    Skills = 4,
}

/// The answers [`Rendered`] keeps.
#[derive(Clone, Copy)]
pub(crate) enum RenderedKind {
    Tools = 0,
    Resources = 1,
    Templates = 2,
    Prompts = 3,
    Discover = 4,
}

impl Rendered {
    const SLOTS: usize = 5 * 2 * 2;
    const CATALOGS: usize = 5 * 2;

    /// The catalog of `kind` in this era, built by `make` the first time.
    pub(crate) fn catalog(
        &self,
        kind: CatalogKind,
        modern: bool,
        make: impl FnOnce() -> super::catalog::KindCatalog,
    ) -> Arc<super::catalog::KindCatalog> {
        let era = matches!(kind, CatalogKind::Tools) && modern;
        self.catalogs[(kind as usize) * 2 + usize::from(era)]
            .get_or_init(|| Arc::new(make()))
            .clone()
    }

    /// The answer for `kind` in this era and cache scope, rendered by `make` the first time.
    pub(crate) fn get_or(
        &self,
        kind: RenderedKind,
        modern: bool,
        private: bool,
        make: impl FnOnce() -> Option<Arc<RawValue>>,
    ) -> Option<Arc<RawValue>> {
        let slot =
            &self.slots[(kind as usize) * 4 + usize::from(modern) * 2 + usize::from(private)];
        if let Some(v) = slot.get() {
            return Some(v.clone());
        }
        let v = make()?;
        Some(slot.get_or_init(|| v).clone())
    }

    /// The search index of `tools` (this version's); built once.
    pub(crate) fn search_index(&self, tools: &Table<ToolEntry>) -> Arc<super::search::SearchIndex> {
        self.search
            .get_or_init(|| Arc::new(super::search::SearchIndex::build(tools)))
            .clone()
    }

    /// Whether any of `tools` (this version's) declares `Mcp-Param-*` headers; worked out once.
    pub(crate) fn any_param_headers(&self, tools: &Table<ToolEntry>) -> bool {
        *self
            .param_headers
            .get_or_init(|| tools.values().any(|t| !t.mcp_headers.is_empty()))
    }
}

impl Registry {
    /// The templates that can match `uri`, in registration order (the first that matches wins):
    /// those whose leading literal `uri` starts with ([`super::template_index`]).
    pub(crate) fn templates_for<'a>(
        &'a self,
        uri: &str,
    ) -> impl Iterator<Item = (&'a str, &'a Arc<TemplateEntry>)> + 'a {
        self.rendered
            .templates
            .get_or_init(|| Arc::new(super::template_index::TemplateIndex::build(&self.templates)))
            .candidates(uri)
    }

    /// The first template (of those `usable` lets through, in registration order) that `uri`
    /// matches, with its variables. `None` when none matches, or when the first whose structure
    /// matches refuses a value by its screen: no later, laxer template is tried in its place.
    pub(crate) fn resolve_template<'a>(
        &'a self,
        uri: &str,
        mut usable: impl FnMut(&str) -> bool,
    ) -> Option<(&'a str, &'a Arc<TemplateEntry>, Map<String, Value>)> {
        for (k, t) in self.templates_for(uri) {
            if !usable(k) {
                continue;
            }
            match t.resolve(uri) {
                Screened::NoMatch => {}
                Screened::Refused(_) => return None,
                Screened::Matched(vars) => return Some((k, t, vars)),
            }
        }
        None
    }

    /// Whether any primitive of this version declares required scopes; worked out once.
    pub(crate) fn any_required_scopes(&self) -> bool {
        *self.rendered.scopes.get_or_init(|| {
            self.tools.values().any(|t| !t.required_scopes.is_empty())
                || self.prompts.values().any(|p| !p.required_scopes.is_empty())
                || self
                    .resources
                    .values()
                    .any(|r| !r.required_scopes.is_empty())
                || self
                    .templates
                    .values()
                    .any(|t| !t.required_scopes.is_empty())
        })
    }
}

impl Clone for Rendered {
    /// Empty: a clone is the start of the next version.
    fn clone(&self) -> Self {
        Self::default()
    }
}

/// A persistent map from name to entry that iterates in registration order. Replacing an entry
/// keeps its place (as `IndexMap::insert` does); removing one keeps the order of the others.
pub(crate) struct Table<T> {
    /// name → position key in `order`. Hashed with foldhash, not the default SipHash: a lookup
    /// per call hashes the client's name, and SipHash's flood resistance guards inserts, which
    /// here are the server's own names (a client's name is only ever looked up).
    index: HashTrieMapSync<Arc<str>, u64, foldhash::fast::RandomState>,
    /// position key → (name, entry); keys only grow, so iteration is registration order.
    order: RedBlackTreeMapSync<u64, (Arc<str>, Arc<T>)>,
    next: u64,
    /// Where each discovered entry is defined; an entry without one was registered by hand
    /// (`crate::discovery::admit` decides between the two).
    discovered: HashTrieMapSync<Arc<str>, Arc<Place>>,
}

impl<T> Clone for Table<T> {
    fn clone(&self) -> Self {
        Self {
            index: self.index.clone(),
            order: self.order.clone(),
            next: self.next,
            discovered: self.discovered.clone(),
        }
    }
}

impl<T> Default for Table<T> {
    fn default() -> Self {
        Self {
            index: HashTrieMapSync::new_with_hasher_and_ptr_kind(Default::default()),
            order: RedBlackTreeMapSync::new_sync(),
            next: 0,
            discovered: HashTrieMapSync::new_sync(),
        }
    }
}

impl<T> Table<T> {
    pub(crate) fn is_empty(&self) -> bool {
        self.order.is_empty()
    }
    pub(crate) fn contains_key(&self, name: &str) -> bool {
        self.index.contains_key(name)
    }
    pub(crate) fn get(&self, name: &str) -> Option<&Arc<T>> {
        let pos = self.index.get(name)?;
        self.order.get(pos).map(|(_, v)| v)
    }
    /// Insert or replace (a replaced entry keeps its position); returns the previous entry.
    pub(crate) fn insert(&mut self, name: String, v: Arc<T>) -> Option<Arc<T>> {
        if let Some(&pos) = self.index.get(name.as_str()) {
            let key = self.order.get(&pos).map(|(k, _)| k.clone())?;
            let old = self.order.get(&pos).map(|(_, v)| v.clone());
            self.order.insert_mut(pos, (key, v));
            return old;
        }
        let key: Arc<str> = name.into();
        let pos = self.next;
        self.next += 1;
        self.index.insert_mut(key.clone(), pos);
        self.order.insert_mut(pos, (key, v));
        None
    }
    /// The origin of the entry named `name`, if there is one.
    pub(crate) fn origin(&self, name: &str) -> Option<Origin> {
        if !self.contains_key(name) {
            return None;
        }
        Some(match self.discovered.get(name) {
            Some(place) => Origin::Discovered((**place).clone()),
            None => Origin::Manual,
        })
    }
    /// Insert or replace, remembering where the entry comes from.
    pub(crate) fn insert_from(&mut self, name: String, v: Arc<T>, origin: Origin) {
        match origin {
            Origin::Manual => {
                if !self.discovered.is_empty() {
                    self.discovered.remove_mut(name.as_str());
                }
            }
            Origin::Discovered(place) => {
                self.discovered
                    .insert_mut(Arc::from(name.as_str()), Arc::new(place));
            }
        }
        self.insert(name, v);
    }
    /// `(name, place)` of every discovered entry, in registration order.
    pub(crate) fn discovered(&self) -> impl Iterator<Item = (&str, &Place)> + '_ {
        self.keys()
            .filter_map(|k| self.discovered.get(k).map(|p| (k, &**p)))
    }
    /// Remove by name; the others keep their order.
    pub(crate) fn shift_remove(&mut self, name: &str) -> Option<Arc<T>> {
        let pos = *self.index.get(name)?;
        self.index.remove_mut(name);
        self.discovered.remove_mut(name);
        let old = self.order.get(&pos).map(|(_, v)| v.clone());
        self.order.remove_mut(&pos);
        old
    }
    /// `(name, entry)` in registration order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&str, &Arc<T>)> + '_ {
        self.order.values().map(|(k, v)| (&**k, v))
    }
    pub(crate) fn values(&self) -> impl Iterator<Item = &Arc<T>> + '_ {
        self.order.values().map(|(_, v)| v)
    }
    pub(crate) fn keys(&self) -> impl Iterator<Item = &str> + '_ {
        self.order.values().map(|(k, _)| &**k)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(t: &Table<u32>) -> Vec<(String, u32)> {
        t.iter().map(|(k, v)| (k.to_string(), **v)).collect()
    }

    #[test]
    fn keeps_registration_order_through_replace_and_remove() {
        let mut t = Table::default();
        for (i, n) in ["b", "a", "c", "d"].iter().enumerate() {
            assert!(t.insert((*n).to_string(), Arc::new(i as u32)).is_none());
        }
        assert_eq!(t.insert("a".into(), Arc::new(9)).map(|v| *v), Some(1));
        assert_eq!(t.shift_remove("c").map(|v| *v), Some(2));
        assert!(t.shift_remove("c").is_none());
        t.insert("c".into(), Arc::new(7));
        assert_eq!(
            names(&t),
            [("b", 0), ("a", 9), ("d", 3), ("c", 7)].map(|(k, v)| (k.to_string(), v))
        );
        assert_eq!(t.iter().count(), 4);
        assert_eq!(t.get("a").map(|v| **v), Some(9));
        assert!(t.contains_key("d") && !t.contains_key("x"));
        assert_eq!(t.keys().collect::<Vec<_>>(), ["b", "a", "d", "c"]);
    }

    #[test]
    fn a_clone_is_a_snapshot() {
        let mut t = Table::default();
        t.insert("x".into(), Arc::new(1u32));
        let snap = t.clone();
        t.insert("y".into(), Arc::new(2));
        t.shift_remove("x");
        assert_eq!(names(&snap), [("x".to_string(), 1)]);
        assert_eq!(names(&t), [("y".to_string(), 2)]);
    }

    /// The flag the HTTP check reads is worked out per version: a tool with `Mcp-Param-*`
    /// headers added while serving is seen, whether the version changes in place (no snapshot
    /// held) or as a clone (a snapshot held).
    #[test]
    fn param_headers_follow_the_version() {
        use crate::{Server, Tool, ToolResult};
        use serde_json::json;
        let tool = |name: &str, schema: serde_json::Value| {
            Tool::new(name, schema).handler(|_args, _ctx| async {
                Ok::<_, crate::HandlerError>(ToolResult::text("ok"))
            })
        };
        let plain = json!({"type": "object", "properties": {"a": {"type": "integer"}}});
        let headed = json!({"type": "object", "properties": {"region": {"type": "string", "x-mcp-header": "Region"}}});
        let flag = |s: &Server| {
            let reg = s.snapshot();
            reg.rendered.any_param_headers(&reg.tools)
        };
        let server = Server::builder("t", "1")
            .tool(tool("plain", plain.clone()))
            .build()
            .unwrap();
        assert!(!flag(&server));
        server.add_tool(tool("headed", headed.clone())).unwrap();
        assert!(flag(&server), "changed in place");
        server.remove_tool("headed");
        assert!(!flag(&server));
        let held = server.snapshot();
        server.add_tool(tool("headed2", headed)).unwrap();
        assert!(flag(&server), "changed as a clone");
        assert!(
            !held.rendered.any_param_headers(&held.tools),
            "the old version keeps its own"
        );
    }
}
