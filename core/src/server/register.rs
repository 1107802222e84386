//! Registration with an origin: by hand or discovered ([`crate::discovery`]). The builder's
//! `discover` and the server's `register_*` both decide by [`crate::discovery::admit`], so a
//! name registered by hand wins over a discovered one in whichever order they come.

use std::sync::Arc;

use super::registry::{Registry, Table};
use super::{Server, ServerBuilder};
use crate::bus::Event;
use crate::discovery::{self, Admit, Build, Origin, Place};
use crate::error::BuildError;
use crate::prompt::{Prompt, PromptEntry};
use crate::resource::{Resource, ResourceEntry, ResourceTemplate, TemplateEntry};
use crate::tool::{Tool, ToolEntry};

/// One discovered primitive registered on a server: its kind, name (a resource's URI, a
/// template's URI template) and where it is defined.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct DiscoveredEntry {
    pub kind: &'static str,
    pub name: String,
    pub place: Place,
}

impl Server {
    /// Register `tool` from `origin` while serving: added, replacing a discovered one (a
    /// manual `tool`), or skipped (a discovered `tool` beside a manual one); listeners get
    /// `notifications/tools/list_changed` unless it was skipped.
    pub fn register_tool(&self, tool: Tool, origin: Origin) -> Result<Admit, BuildError> {
        let e = ToolEntry::compile(tool, &self.inner.schemas)?;
        let key = e.name.clone();
        let done = self.register("tool", key, e, origin, |r| &r.tools, |r| &mut r.tools)?;
        if done != Admit::Skip {
            self.inner.bus.publish(Event::ToolsListChanged);
        }
        Ok(done)
    }

    /// [`Server::register_tool`] for a resource (by URI).
    pub fn register_resource(&self, res: Resource, origin: Origin) -> Result<Admit, BuildError> {
        let (k, e) = ResourceEntry::compile(res)?;
        let done = self.register(
            "resource",
            k,
            e,
            origin,
            |r| &r.resources,
            |r| &mut r.resources,
        )?;
        if done != Admit::Skip {
            self.inner.bus.publish(Event::ResourcesListChanged);
        }
        Ok(done)
    }

    /// [`Server::register_tool`] for a resource template (by URI template).
    pub fn register_resource_template(
        &self,
        t: ResourceTemplate,
        origin: Origin,
    ) -> Result<Admit, BuildError> {
        let (k, e) = TemplateEntry::compile(t)?;
        let done = self.register(
            "resource template",
            k,
            e,
            origin,
            |r| &r.templates,
            |r| &mut r.templates,
        )?;
        if done != Admit::Skip {
            self.inner.bus.publish(Event::ResourcesListChanged);
        }
        Ok(done)
    }

    /// [`Server::register_tool`] for a prompt.
    pub fn register_prompt(&self, p: Prompt, origin: Origin) -> Result<Admit, BuildError> {
        let (k, e) = PromptEntry::compile(p)?;
        let done = self.register("prompt", k, e, origin, |r| &r.prompts, |r| &mut r.prompts)?;
        if done != Admit::Skip {
            self.inner.bus.publish(Event::PromptsListChanged);
        }
        Ok(done)
    }

    /// What was discovered and is registered, in registration order: tools, resources,
    /// resource templates, prompts.
    pub fn discovered(&self) -> Vec<DiscoveredEntry> {
        let reg = self.snapshot();
        let mut out = Vec::new();
        let mut add = |kind: &'static str, it: &mut dyn Iterator<Item = (&str, &Place)>| {
            out.extend(it.map(|(name, place)| DiscoveredEntry {
                kind,
                name: name.to_string(),
                place: place.clone(),
            }));
        };
        add("tool", &mut reg.tools.discovered());
        add("resource", &mut reg.resources.discovered());
        add("resource template", &mut reg.templates.discovered());
        add("prompt", &mut reg.prompts.discovered());
        out
    }

    /// One registration in one registry change: the rule sees the current version.
    fn register<T>(
        &self,
        kind: &'static str,
        key: String,
        entry: T,
        origin: Origin,
        table: impl Fn(&Registry) -> &Table<T>,
        table_mut: impl Fn(&mut Registry) -> &mut Table<T>,
    ) -> Result<Admit, BuildError> {
        let mut decided = Admit::Skip;
        self.update(
            (key, entry, origin),
            |r, (key, _, origin)| {
                let existing = table(r).origin(key);
                decided = discovery::admit(kind, key, existing.as_ref(), origin)?;
                Ok(decided != Admit::Skip)
            },
            |r, (key, entry, origin)| table_mut(r).insert_from(key, Arc::new(entry), origin),
        )?;
        Ok(decided)
    }
}

impl ServerBuilder {
    /// Register every primitive submitted with [`discoverable!`](crate::discoverable) in this
    /// program, by module path then name. A name registered by hand (before or after) wins; two
    /// discovered primitives with one name make `build` fail, naming both places.
    pub fn discover(self) -> Self {
        self.discover_in(None)
    }

    /// [`ServerBuilder::discover`] for the submissions of modules at or below `prefix`, a module
    /// path with its crate name (`"myapp::tools"`; in the crate itself,
    /// `concat!(module_path!(), "::tools")` from its root).
    pub fn discover_under(self, prefix: &str) -> Self {
        self.discover_in(Some(prefix))
    }

    fn discover_in(mut self, prefix: Option<&str>) -> Self {
        enum Built {
            Tool(Tool),
            Resource(Resource),
            Template(ResourceTemplate),
            Prompt(Prompt),
        }
        let mut found: Vec<(&'static str, String, Built, Place)> = discovery::submissions(prefix)
            .into_iter()
            .map(|d| {
                let (name, built) = match d.build {
                    Build::Tool(f) => {
                        let t = f();
                        (t.name.clone(), Built::Tool(t))
                    }
                    Build::Resource(f) => {
                        let r = f();
                        (r.uri.clone(), Built::Resource(r))
                    }
                    Build::ResourceTemplate(f) => {
                        let t = f();
                        (t.template.clone(), Built::Template(t))
                    }
                    Build::Prompt(f) => {
                        let p = f();
                        (p.name.clone(), Built::Prompt(p))
                    }
                };
                (d.module_path, name, built, d.place())
            })
            .collect();
        // The link order of submissions is the linker's: sorted, every build registers alike.
        found.sort_by(|a, b| (a.0, &a.1, a.3.line).cmp(&(b.0, &b.1, b.3.line)));
        tracing::debug!(count = found.len(), prefix, "discovered primitives");
        for (_, _, built, place) in found {
            let origin = Origin::Discovered(place);
            self = match built {
                Built::Tool(t) => self.tool_from(t, origin),
                Built::Resource(r) => {
                    self.resources.push((r, origin));
                    self
                }
                Built::Template(t) => {
                    self.templates.push((t, origin));
                    self
                }
                Built::Prompt(p) => {
                    self.prompts.push((p, origin));
                    self
                }
            };
        }
        self
    }
}
