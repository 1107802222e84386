//! The Skills extension for Node: a skill crosses as `{ path, files: [{ path, bytes }] }`; every
//! rule is the core's (`oxmcp::skills`), and a broken skill throws `INVALID_DEFINITION` naming the
//! file and the rule.

use crate::errors::{self, Result};
use crate::js_handler::{self, JsResource, ReadFn};
use crate::server::NativeServer;
use napi::bindgen_prelude::*;
use napi_derive::napi;
use oxmcp::skills::{self, Skill};
use std::sync::Arc;

#[napi(object)]
pub struct NativeSkillFile {
    pub path: String,
    pub bytes: Buffer,
}

#[napi(object)]
pub struct NativeSkill {
    /// Where it is served: `skill://<path>/`.
    pub path: String,
    pub files: Vec<NativeSkillFile>,
    /// The entry `skills/list` carries, as JSON.
    pub entry_json: String,
}

fn to_js(s: &Skill) -> NativeSkill {
    NativeSkill {
        path: s.path().to_string(),
        files: s
            .files()
            .iter()
            .map(|f| NativeSkillFile {
                path: f.path.clone(),
                bytes: Buffer::from(f.bytes.to_vec()),
            })
            .collect(),
        entry_json: s.entry().to_string(),
    }
}

fn raw(files: Vec<NativeSkillFile>) -> Vec<(String, Vec<u8>)> {
    files
        .into_iter()
        .map(|f| (f.path, f.bytes.to_vec()))
        .collect()
}

/// The skills below `prefix` (an organisational path, `acme` → `skill://acme/<skill>/`).
fn prefixed(all: Vec<Skill>, prefix: Option<String>) -> Result<Vec<NativeSkill>> {
    let Some(p) = prefix.filter(|p| !p.trim_matches('/').is_empty()) else {
        return Ok(all.iter().map(to_js).collect());
    };
    all.iter()
        .map(|s| {
            let files = s.files().iter().map(|f| (f.path.clone(), f.bytes.to_vec()));
            Skill::from_files(format!("{}/{}", p.trim_matches('/'), s.path()), files)
                .map(|s| to_js(&s))
                .map_err(errors::build)
        })
        .collect()
}

/// Every skill in a tree of files (a directory holding a SKILL.md is a skill).
#[napi]
pub fn skills_from_tree(
    files: Vec<NativeSkillFile>,
    prefix: Option<String>,
) -> Result<Vec<NativeSkill>> {
    let all = skills::from_tree(raw(files)).map_err(errors::build)?;
    prefixed(all, prefix)
}

/// Every skill below the directory `root`, under the loader's rules (no symlinks, no special
/// files, UTF-8 names and SKILL.md).
#[napi]
pub fn skills_load_dir(root: String, prefix: Option<String>) -> Result<Vec<NativeSkill>> {
    let all = skills::load_dir(&root).map_err(errors::build)?;
    prefixed(all, prefix)
}

/// One skill from its own directory `dir`, served at `path` (default: the directory's name).
#[napi]
pub fn skill_load_one(dir: String, path: Option<String>) -> Result<NativeSkill> {
    let s = skills::load_skill(&dir, path.as_deref()).map_err(errors::build)?;
    Ok(to_js(&s))
}

/// One skill from its files, served at `path`.
#[napi]
pub fn skill_of(path: String, files: Vec<NativeSkillFile>) -> Result<NativeSkill> {
    let s = Skill::from_files(path, raw(files)).map_err(errors::build)?;
    Ok(to_js(&s))
}

#[napi]
impl NativeServer {
    /// Serve skills (all or none); `listed: false` leaves them out of the listings.
    #[napi]
    pub fn add_skills(&self, skills: Vec<NativeSkill>, listed: Option<bool>) -> Result<()> {
        let listed = listed.unwrap_or(true);
        let built = skills
            .into_iter()
            .map(|s| {
                Skill::from_files(s.path, raw(s.files))
                    .map(|s| if listed { s } else { s.unlisted() })
            })
            .collect::<std::result::Result<Vec<_>, _>>()
            .map_err(errors::build)?;
        self.server.add_skills(built).map_err(errors::build)
    }

    /// Serve a skill whose files `handler` generates per read (template variable `file`).
    #[napi]
    pub fn add_dynamic_skill(
        &self,
        path: String,
        frontmatter_json: String,
        handler: ReadFn<'_>,
        listed: Option<bool>,
    ) -> Result<()> {
        let fm: serde_json::Map<String, serde_json::Value> =
            serde_json::from_str(&frontmatter_json).map_err(|e| {
                errors::coded(
                    errors::Code::InvalidDefinition,
                    format!("frontmatter must be a JSON object: {e}"),
                )
            })?;
        let read = Arc::new(JsResource {
            what: format!("skill {path:?}"),
            callee: self.callee(js_handler::read_tsfn(&handler)?),
        });
        let d = oxmcp::DynamicSkill::new(path, fm, read).map_err(errors::build)?;
        let d = if listed.unwrap_or(true) {
            d
        } else {
            d.unlisted()
        };
        self.server.add_dynamic_skill(d).map_err(errors::build)
    }
}
