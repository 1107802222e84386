//! The Skills extension on the server: registration (each skill file an ordinary resource, the
//! skill itself in the registry's `skills` map) and the three methods it adds, `skills/list`,
//! `skills/get` and `resources/directory/read`. The rules a skill keeps are in `crate::skills`.
//!
//! Access: a skill is visible to a caller that may read every one of its files
//! ([`Server::may_read`], the resource rule), a dynamic one to a caller that may read its
//! `SKILL.md`. A hidden skill is answered exactly as an unknown one by every method.

use super::dispatch::{str_param, Outcome, RequestInfo};
use super::env::Env;
use super::registry::CatalogKind;
use super::{Registry, Server, ServerBuilder};
use crate::error::{BuildError, HandlerError, McpError};
use crate::handler::BoxFuture;
use crate::handler::ResourceHandler;
use crate::jsonrpc::Params;
use crate::protocol::ResourceContents;
use crate::resource::{Resource, ResourceEntry, ResourceTemplate, TemplateEntry};
use crate::skills::{self, DynamicSkill, Skill, SkillSlot, MANIFEST_FILE, SKILL_MD};
use crate::Context;
use serde_json::{json, Map, Value};
use std::sync::Arc;

/// A skill file's bytes, served as they were digested.
struct FileBytes {
    mime: &'static str,
    bytes: Arc<[u8]>,
}

impl ResourceHandler for FileBytes {
    fn read(
        &self,
        uri: String,
        _vars: Map<String, Value>,
        _ctx: Context,
    ) -> BoxFuture<Result<Vec<ResourceContents>, HandlerError>> {
        let c = skills::contents(uri, self.mime, &self.bytes);
        Box::pin(async move { Ok(vec![c]) })
    }
}

/// What registering one skill adds to the registry, compiled before the registry is touched.
pub(super) struct Compiled {
    uri: String,
    slot: SkillSlot,
    /// (URI, digest, entry): the skill's files, and its `_manifest`.
    files: Vec<(String, String, ResourceEntry)>,
    template: Option<(String, TemplateEntry)>,
}

pub(super) fn compile(slot: SkillSlot) -> Result<Compiled, BuildError> {
    match slot {
        SkillSlot::Static(s) => {
            let mut files = Vec::with_capacity(s.files().len() + 1);
            for f in s.files() {
                let uri = s.file_uri(&f.path);
                let mime = skills::mime_type(&f.path);
                // A skill's SKILL.md is listed under the skill's name and description (the
                // extension's SHOULD); its other files under their path.
                let name = if f.path == SKILL_MD {
                    s.name().to_string()
                } else {
                    format!("{}/{}", s.path(), f.path)
                };
                let mut r = Resource::new(uri.clone(), name)
                    .mime_type(mime)
                    .size(f.bytes.len() as u64);
                if f.path == SKILL_MD {
                    r = r.description(s.description());
                }
                let r = r.handler(FileBytes {
                    mime,
                    bytes: f.bytes.clone(),
                });
                let mut e = ResourceEntry::compile(r)?.1;
                e.listed = s.is_listed();
                files.push((uri, f.digest.clone(), e));
            }
            let manifest = s.manifest_json();
            let muri = s.file_uri(MANIFEST_FILE);
            let r = Resource::text(
                muri.clone(),
                format!("{}/{MANIFEST_FILE}", s.path()),
                "application/json",
                manifest.clone(),
            )
            .description(format!("File listing for {}", s.name()));
            let mut e = ResourceEntry::compile(r)?.1;
            e.listed = s.is_listed();
            files.push((muri, skills::digest(manifest.as_bytes()), e));
            Ok(Compiled {
                uri: s.uri(),
                slot: SkillSlot::Static(s),
                files,
                template: None,
            })
        }
        SkillSlot::Dynamic(d) => {
            let t = ResourceTemplate::new(
                format!("{}{}/{{+file}}", skills::SCHEME, d.path),
                d.path.clone(),
            )
            .description(d.frontmatter["description"].as_str().unwrap_or_default())
            .handler_arc(d.handler.clone());
            let (key, mut t) = TemplateEntry::compile(t)?;
            t.listed = d.is_listed();
            let template = Some((key, t));
            Ok(Compiled {
                uri: d.uri(),
                slot: SkillSlot::Dynamic(d),
                files: Vec::new(),
                template,
            })
        }
    }
}

/// Whether `c` can join `reg`: a new skill URI, and every file URI either free or the same file
/// of an enclosing (or nested) skill, with the same bytes.
fn check(reg: &Registry, c: &Compiled) -> Result<(), BuildError> {
    if reg.skills.contains_key(&c.uri) {
        return Err(BuildError::DuplicateName {
            kind: "skill",
            name: c.uri.clone(),
        });
    }
    for (uri, digest, _) in &c.files {
        match reg.skill_files.get(uri) {
            Some(d) if d == digest || uri.ends_with(&format!("/{MANIFEST_FILE}")) => {}
            Some(_) => {
                return Err(BuildError::Skill {
                    file: uri.clone(),
                    message: "another skill serves this URI with different bytes".into(),
                })
            }
            None if reg.resources.contains_key(uri) => {
                return Err(BuildError::DuplicateName {
                    kind: "resource",
                    name: uri.clone(),
                })
            }
            None => {}
        }
    }
    if let Some((k, _)) = &c.template {
        if reg.templates.contains_key(k) {
            return Err(BuildError::DuplicateName {
                kind: "resource template",
                name: k.clone(),
            });
        }
    }
    Ok(())
}

fn apply(reg: &mut Registry, c: Compiled) {
    for (uri, digest, e) in c.files {
        if !reg.skill_files.contains_key(&uri) {
            reg.skill_files.insert_mut(uri.clone(), digest);
            reg.resources.insert(uri, Arc::new(e));
        } else if e.listed && reg.resources.get(&uri).is_some_and(|old| !old.listed) {
            // A file shared by a listed skill and an unlisted one (nesting) is listed: the
            // listed skill advertises it. Same bytes (checked), so either entry serves it.
            reg.resources.insert(uri, Arc::new(e));
        }
    }
    if let Some((k, t)) = c.template {
        reg.templates.insert(k, Arc::new(t));
    }
    reg.skills.insert_mut(c.uri, c.slot);
}

/// Check and add, in a registry no one else sees yet (the builder's).
pub(super) fn install(reg: &mut Registry, slot: SkillSlot) -> Result<(), BuildError> {
    let c = compile(slot)?;
    check(reg, &c)?;
    apply(reg, c);
    Ok(())
}

impl Server {
    /// Serve `skills` (all or none: a duplicate or clashing one is an error and nothing
    /// changes); listeners get `notifications/resources/list_changed`.
    pub fn add_skills(&self, skills: impl IntoIterator<Item = Skill>) -> Result<(), BuildError> {
        let compiled = skills
            .into_iter()
            .map(|s| compile(SkillSlot::Static(Arc::new(s))))
            .collect::<Result<Vec<_>, _>>()?;
        self.add_compiled(compiled)
    }

    /// Serve a skill whose files are generated per request.
    pub fn add_dynamic_skill(&self, skill: DynamicSkill) -> Result<(), BuildError> {
        self.add_compiled(vec![compile(SkillSlot::Dynamic(Arc::new(skill)))?])
    }

    fn add_compiled(&self, compiled: Vec<Compiled>) -> Result<(), BuildError> {
        self.update(
            compiled,
            |r, cs| {
                // Checked against the registry and against each other, before any is added.
                let mut probe = r.clone();
                for c in cs {
                    check(&probe, c)?;
                    probe.skills.insert_mut(c.uri.clone(), c.slot.clone());
                    for (uri, d, _) in &c.files {
                        probe.skill_files.insert_mut(uri.clone(), d.clone());
                    }
                }
                Ok(!cs.is_empty())
            },
            |r, cs| {
                for c in cs {
                    apply(r, c);
                }
            },
        )?;
        self.inner
            .bus
            .publish(crate::bus::Event::ResourcesListChanged);
        Ok(())
    }

    /// The `SKILL.md` URIs of the skills served, in URI order.
    pub fn skill_uris(&self) -> Vec<String> {
        self.snapshot().skills.keys().cloned().collect()
    }

    pub(super) fn has_skills(&self, reg: &Registry) -> bool {
        !reg.skills.is_empty()
    }

    fn skill_visible(&self, env: &Env, slot: &SkillSlot) -> bool {
        if env.caller.is_none() {
            return true;
        }
        match slot {
            SkillSlot::Static(s) => s
                .files()
                .iter()
                .all(|f| self.may_read(env, &s.file_uri(&f.path))),
            SkillSlot::Dynamic(d) => self.may_read(env, &d.uri()),
        }
    }

    pub(super) fn skills_list(
        &self,
        rq: &RequestInfo,
        params: &Params,
        env: &Env,
        reg: &Registry,
    ) -> Outcome {
        self.kind_list(
            (rq, params, env, reg),
            (CatalogKind::Skills, None, "skills"),
            || reg.skills.values(),
            |s| s.entry(),
            |s| s.is_listed(),
            |s| s.is_listed() && self.skill_visible(env, s),
        )
    }

    pub(super) fn skills_get(
        &self,
        rq: &RequestInfo,
        params: &Params,
        env: &Env,
        reg: &Registry,
    ) -> Outcome {
        let uri = match str_param(params, "uri") {
            Ok(u) => u,
            Err(e) => return e.into(),
        };
        if let Err(e) = self.check_uri_len(uri) {
            return e.into();
        }
        match reg.skills.get(uri) {
            Some(s) if self.skill_visible(env, s) => {
                // The entry as `skills/list` gives it, digest included.
                let mut r = Map::new();
                r.insert("skill".into(), self.as_listed(s.entry()));
                Outcome::Result(self.finish(rq, r, true))
            }
            _ => {
                if reg.skills.contains_key(uri) {
                    env.note("denied");
                }
                unknown_skill(uri).into()
            }
        }
    }

    pub(super) fn directory_read(
        &self,
        rq: &RequestInfo,
        params: &Params,
        env: &Env,
        reg: &Registry,
    ) -> Outcome {
        let uri = match str_param(params, "uri") {
            Ok(u) => u.trim_end_matches('/'),
            Err(e) => return e.into(),
        };
        if let Err(e) = self.check_uri_len(uri) {
            return e.into();
        }
        // The innermost visible skill whose directory holds `uri`.
        let mut best: Option<(usize, Vec<(String, Value)>)> = None;
        for slot in reg.skills.values() {
            let SkillSlot::Static(s) = slot else { continue };
            let root = s.root_uri();
            let dir = if uri == root {
                ""
            } else if let Some(rest) = uri.strip_prefix(&format!("{root}/")) {
                rest
            } else {
                continue;
            };
            if best.as_ref().is_some_and(|(len, _)| *len >= root.len()) {
                continue;
            }
            if !self.skill_visible(env, slot) {
                continue;
            }
            if let Some(children) = s.children(dir) {
                best = Some((root.len(), children));
            }
        }
        let Some((_, children)) = best else {
            return McpError::invalid_params(format!("{uri} is not a directory resource")).into();
        };
        let v = children.into_iter().map(|(_, c)| c);
        self.list(rq, params, v, |c| c, "resources", Map::new())
    }

    /// The Skills capability: `{"directoryRead": true}` (every static skill's directories are
    /// readable).
    pub(super) fn skills_capability(&self) -> Value {
        json!({"directoryRead": true})
    }
}

pub(super) fn unknown_skill(uri: &str) -> McpError {
    McpError::invalid_params(format!("Unknown skill URI: {uri}"))
}

impl ServerBuilder {
    /// Serve these skills (see [`crate::skills`]).
    pub fn skills(mut self, skills: impl IntoIterator<Item = Skill>) -> Self {
        self.skills
            .extend(skills.into_iter().map(|s| SkillSlot::Static(Arc::new(s))));
        self
    }
    /// Serve every skill below `root` ([`crate::skills::load_dir`]); a malformed one fails
    /// `build` with an error naming the file and the rule.
    pub fn skills_dir(self, root: impl AsRef<std::path::Path>) -> Self {
        match skills::load_dir(root) {
            Ok(s) => self.skills(s),
            Err(e) => {
                let mut b = self;
                b.error.get_or_insert(e);
                b
            }
        }
    }
    /// Serve a skill whose files are generated per request.
    pub fn dynamic_skill(mut self, skill: DynamicSkill) -> Self {
        self.skills.push(SkillSlot::Dynamic(Arc::new(skill)));
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::env::{Env, Transport};
    use serde_json::json;

    fn md(name: &str) -> Vec<u8> {
        format!("---\nname: {name}\ndescription: Does {name}.\n---\n").into_bytes()
    }

    async fn ask(s: &Server, method: &str, params: Value) -> Value {
        let mut p = params;
        p["_meta"] = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                            "io.modelcontextprotocol/clientCapabilities": {}});
        let msg = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": p});
        s.dispatch(msg, &Env::new(Transport::Stdio)).await.unwrap()
    }

    #[tokio::test]
    async fn a_nested_skill_is_a_skill_and_files_of_the_enclosing_one() {
        let tree = vec![
            ("outer/SKILL.md".to_string(), md("outer")),
            ("outer/inner/SKILL.md".to_string(), md("inner")),
            ("outer/inner/x.txt".to_string(), b"x".to_vec()),
        ];
        let skills = skills::from_tree(tree).unwrap();
        assert_eq!(skills.len(), 2);
        let s = Server::builder("t", "1").skills(skills).build().unwrap();
        let list = ask(&s, "skills/list", json!({})).await;
        let entries = list["result"]["skills"].as_array().unwrap();
        assert_eq!(entries[0]["uri"], "skill://outer/SKILL.md");
        assert_eq!(entries[1]["uri"], "skill://outer/inner/SKILL.md");
        let outer: Vec<&str> = entries[0]["resources"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["uri"].as_str().unwrap())
            .collect();
        assert_eq!(
            outer,
            [
                "skill://outer/SKILL.md",
                "skill://outer/inner/SKILL.md",
                "skill://outer/inner/x.txt"
            ]
        );
        let read = ask(
            &s,
            "resources/read",
            json!({"uri": "skill://outer/inner/x.txt"}),
        )
        .await;
        assert_eq!(read["result"]["contents"][0]["text"], "x");
        // The outer directory lists the inner skill's directory.
        let dir = ask(
            &s,
            "resources/directory/read",
            json!({"uri": "skill://outer"}),
        )
        .await;
        assert_eq!(dir["result"]["resources"][1]["mimeType"], "inode/directory");
    }

    #[tokio::test]
    async fn one_uri_with_two_contents_is_refused_and_nothing_changes() {
        let a =
            Skill::from_files("a", [("SKILL.md", md("a")), ("b/x.txt", b"1".to_vec())]).unwrap();
        let b =
            Skill::from_files("a/b", [("SKILL.md", md("b")), ("x.txt", b"2".to_vec())]).unwrap();
        let s = Server::builder("t", "1").build().unwrap();
        let e = s.add_skills([a, b]).unwrap_err().to_string();
        assert!(
            e.contains("skill://a/b/x.txt") && e.contains("different bytes"),
            "{e}"
        );
        assert!(s.skill_uris().is_empty());
        let dup = Skill::from_files("c", [("SKILL.md", md("c"))]).unwrap();
        s.add_skills([dup.clone()]).unwrap();
        let e = s.add_skills([dup]).unwrap_err().to_string();
        assert!(e.contains("duplicate skill"), "{e}");
    }

    /// A file shared by a listed skill and an unlisted nested one is listed, whichever was
    /// added first; the unlisted skill's own entry stays out of `skills/list`.
    #[tokio::test]
    async fn a_file_of_a_listed_skill_stays_listed_when_an_unlisted_one_shares_it() {
        let tree = || {
            vec![
                ("outer/SKILL.md".to_string(), md("outer")),
                ("outer/inner/SKILL.md".to_string(), md("inner")),
            ]
        };
        for inner_first in [false, true] {
            let mut all = skills::from_tree(tree()).unwrap();
            let inner = all.pop().unwrap().unlisted();
            let outer = all.pop().unwrap();
            assert_eq!(inner.path(), "outer/inner");
            let s = Server::builder("t", "1").build().unwrap();
            if inner_first {
                s.add_skills([inner]).unwrap();
                s.add_skills([outer]).unwrap();
            } else {
                s.add_skills([outer, inner]).unwrap();
            }
            let list = ask(&s, "skills/list", json!({})).await;
            assert_eq!(list["result"]["skills"].as_array().unwrap().len(), 1);
            let res = ask(&s, "resources/list", json!({})).await;
            let uris: Vec<&str> = res["result"]["resources"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r["uri"].as_str().unwrap())
                .collect();
            assert!(uris.contains(&"skill://outer/inner/SKILL.md"), "{uris:?}");
            assert!(!uris.contains(&"skill://outer/inner/_manifest"), "{uris:?}");
            let got = ask(
                &s,
                "skills/get",
                json!({"uri": "skill://outer/inner/SKILL.md"}),
            )
            .await;
            assert_eq!(got["result"]["skill"]["frontmatter"]["name"], "inner");
        }
    }
}
