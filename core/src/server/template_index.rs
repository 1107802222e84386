//! Which resource templates can match a URI, found without trying every template.
//!
//! A template's leading literal (`bench://t17/` of `bench://t17/{id}`) is matched byte by byte,
//! so a template can only match a URI that starts with it. Templates are grouped by that
//! prefix; a read looks up the URI's own prefixes of each length some template's prefix has
//! (a handful: registries are written by people or generators with a few URI shapes), and
//! tries only the templates found, in registration order, so the first registered template
//! that matches still wins: a read of the last of 4,096 templates costs one match, not 4,096.
//! Built once per registry version, on the first read through a template.

use std::collections::HashMap;
use std::sync::Arc;

use super::registry::Table;
use crate::resource::TemplateEntry;

pub(crate) struct TemplateIndex {
    /// `(name, entry)` in registration order.
    entries: Vec<(Arc<str>, Arc<TemplateEntry>)>,
    /// Leading literal → positions in `entries`, ascending.
    by_prefix: HashMap<Box<str>, Vec<u32>, foldhash::fast::RandomState>,
    /// The distinct lengths of those literals, ascending.
    lengths: Vec<usize>,
}

impl TemplateIndex {
    pub(crate) fn build(templates: &Table<TemplateEntry>) -> Self {
        let mut by_prefix: HashMap<Box<str>, Vec<u32>, _> = HashMap::default();
        let mut entries = Vec::new();
        for (i, (name, t)) in templates.iter().enumerate() {
            let prefix = t.template.literal_prefix();
            by_prefix
                .entry(prefix.into())
                .or_insert_with(Vec::new)
                .push(i as u32);
            entries.push((Arc::from(name), t.clone()));
        }
        let mut lengths: Vec<usize> = by_prefix.keys().map(|p| p.len()).collect();
        lengths.sort_unstable();
        lengths.dedup();
        Self {
            entries,
            by_prefix,
            lengths,
        }
    }

    /// The templates that can match `uri` (its prefix is theirs), in registration order.
    pub(crate) fn candidates(
        &self,
        uri: &str,
    ) -> impl Iterator<Item = (&str, &Arc<TemplateEntry>)> + '_ {
        let mut hits: Vec<u32> = Vec::new();
        for &n in self.lengths.iter().take_while(|&&n| n <= uri.len()) {
            if let Some(ids) = uri.get(..n).and_then(|p| self.by_prefix.get(p)) {
                hits.extend_from_slice(ids);
            }
        }
        hits.sort_unstable();
        hits.into_iter().map(|i| {
            let (k, t) = &self.entries[i as usize];
            (&**k, t)
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::{ResourceContents, ResourceTemplate, Server};

    fn server(templates: &[&str]) -> Server {
        let mut b = Server::builder("t", "1");
        for (i, t) in templates.iter().enumerate() {
            b = b.resource_template(ResourceTemplate::new(*t, format!("t{i}")).handler(
                move |uri: String,
                      _vars: serde_json::Map<String, serde_json::Value>,
                      _ctx: crate::Context| async move {
                    Ok::<_, crate::HandlerError>(vec![ResourceContents::text(
                        uri,
                        "text/plain",
                        i.to_string(),
                    )])
                },
            ));
        }
        b.build().unwrap()
    }

    /// The template the index picks is the one trying every template in order picks.
    #[test]
    fn picks_the_first_registered_match() {
        let templates = [
            "file:///{+path}",
            "file:///docs/{name}",
            "{+any}",
            "file:///docs/{a}/{b}",
            "x://{id}",
            "x://y{id}",
        ];
        let s = server(&templates);
        let reg = s.snapshot();
        for uri in [
            "file:///docs/a",
            "file:///docs/a/b",
            "file:///etc/x",
            "x://y1",
            "x://1",
            "other:z",
            "",
            "x:/",
            "fi",
        ] {
            let linear = reg
                .templates
                .iter()
                .find(|(_, t)| t.template.matches(uri).is_some())
                .map(|(k, _)| k);
            let indexed = reg
                .templates_for(uri)
                .find(|(_, t)| t.template.matches(uri).is_some())
                .map(|(k, _)| k);
            assert_eq!(indexed, linear, "{uri}");
        }
    }

    /// A read through many templates tries only those whose literal prefix the URI has.
    #[test]
    fn tries_only_the_templates_with_its_prefix() {
        let templates: Vec<String> = (0..4096).map(|i| format!("bench://t{i}/{{id}}")).collect();
        let s = server(&templates.iter().map(String::as_str).collect::<Vec<_>>());
        let reg = s.snapshot();
        let tried: Vec<&str> = reg
            .templates_for("bench://t4095/abc")
            .map(|(k, _)| k)
            .collect();
        assert_eq!(tried, ["bench://t4095/{id}"]);
        assert_eq!(reg.templates_for("bench://u1/abc").count(), 0);
        // A non-ASCII URI is cut only at character boundaries.
        assert_eq!(reg.templates_for("bench://té/abc").count(), 0);
    }

    /// A template added while serving is found by the next read (the index is per version).
    #[test]
    fn follows_the_registry_version() {
        let s = server(&["a://{x}"]);
        assert_eq!(s.snapshot().templates_for("b://1").count(), 0);
        s.add_resource_template(ResourceTemplate::new("b://{x}", "b").handler(
            |uri: String,
             _vars: serde_json::Map<String, serde_json::Value>,
             _ctx: crate::Context| async move {
                Ok::<_, crate::HandlerError>(vec![ResourceContents::text(uri, "text/plain", "b")])
            },
        ))
        .unwrap();
        assert_eq!(s.snapshot().templates_for("b://1").count(), 1);
    }
}
