//! The MCP Skills extension (`io.modelcontextprotocol/skills`, SEP-2640): Agent Skills served
//! next to a server's tools.
//!
//! A skill is a directory whose minimum is a `SKILL.md` with YAML frontmatter. Every file of it
//! is an ordinary resource at `skill://<skill-path>/<file-path>`, read with `resources/read`
//! (and so covered by a caller's allow-list like any resource); the last segment of the skill
//! path is the skill's name. The extension adds `skills/list` (paginated), `skills/get` (any
//! skill by its `SKILL.md` URI) and `resources/directory/read` (the children of a directory of a
//! skill). A listing entry carries the frontmatter verbatim and a manifest of every file (URI,
//! size, `sha256:` digest) computed from the very bytes `resources/read` serves.
//!
//! The rules a skill must keep are checked here, once, when it is built ([`Skill::from_files`],
//! [`load_dir`]): a malformed one is refused with an error that names the file and the rule, so a
//! server never starts serving a skill a host would reject.
//!
//! Nested skills: a directory holding a `SKILL.md` below another skill's directory is a skill of
//! its own, and its files are also files of the enclosing skill (the SEP's rule).

mod frontmatter;
mod loader;

pub use loader::{from_tree, load_dir, load_skill};

use crate::error::BuildError;
use crate::handler::ResourceHandler;
use base64::Engine;
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};
use std::sync::Arc;

/// The extension's identifier, the key under `capabilities.extensions`.
pub const EXTENSION_ID: &str = "io.modelcontextprotocol/skills";
/// The URI scheme skills are served under.
pub const SCHEME: &str = "skill://";
/// The most files one skill may hold (the extension's interoperability limit: every host
/// accepts skills up to it).
pub const MAX_FILES: usize = 512;
/// The most bytes one skill's files may hold together.
pub const MAX_BYTES: usize = 16 * 1024 * 1024;
/// The `mimeType` of a directory in `resources/directory/read`.
pub const DIRECTORY_MIME_TYPE: &str = "inode/directory";
/// The file a skill's directory is recognised by.
pub const SKILL_MD: &str = "SKILL.md";
/// A JSON listing of a skill's files (`{"skill", "files": [{"path","size","hash"}]}`) served
/// next to them: what FastMCP's `Client.read_skill()` reads when the extension was not
/// negotiated (a legacy connection). Reserved: no skill may hold a file of that name at its root.
pub const MANIFEST_FILE: &str = "_manifest";

fn err(file: impl Into<String>, message: impl Into<String>) -> BuildError {
    BuildError::Skill {
        file: file.into(),
        message: message.into(),
    }
}

/// One segment of a skill or file path: the URI's unreserved characters only, so the URI is the
/// path itself (no percent-encoding, one spelling for every SDK), and never `.`, `..` or hidden.
fn check_segment(seg: &str, whole: &str, what: &str) -> Result<(), BuildError> {
    if seg.is_empty() {
        return Err(err(whole, format!("the {what} has an empty segment")));
    }
    if seg.starts_with('.') {
        return Err(err(
            whole,
            format!(
                "the {what} has a segment starting with '.' (hidden files and '..' are not served)"
            ),
        ));
    }
    if let Some(c) = seg
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_' | '~')))
    {
        return Err(err(
            whole,
            format!(
                "the {what} holds {c:?}: skill URIs use only letters, digits and '-', '.', '_', '~'"
            ),
        ));
    }
    Ok(())
}

/// A relative POSIX path: no leading `/`, no `\`, no `.`/`..` or empty segments.
fn check_path(path: &str, what: &str) -> Result<(), BuildError> {
    if path.starts_with('/') || path.contains('\\') || path.contains('\0') {
        return Err(err(
            path,
            format!("the {what} must be a relative POSIX path"),
        ));
    }
    for seg in path.split('/') {
        if seg == ".." || seg == "." {
            return Err(err(
                path,
                format!("the {what} must not use '.' or '..' segments"),
            ));
        }
        check_segment(seg, path, what)?;
    }
    Ok(())
}

/// The Agent Skills name rule: 1-64 lowercase letters, digits and single hyphens, neither first
/// nor last.
pub fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && !name.starts_with('-')
        && !name.ends_with('-')
        && !name.contains("--")
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

/// The frontmatter rules (Agent Skills, as the SDKs check them), for the skill at `path`.
fn check_frontmatter(
    fm: &Map<String, Value>,
    path: &str,
    file: &str,
) -> Result<String, BuildError> {
    let name = match fm.get("name") {
        Some(Value::String(n)) => n.clone(),
        _ => return Err(err(file, "the frontmatter must have a string 'name'")),
    };
    if !valid_name(&name) {
        return Err(err(
            file,
            format!("name {name:?} must be 1-64 lowercase letters, digits and single hyphens, not starting or ending with '-'"),
        ));
    }
    let last = path.rsplit('/').next().unwrap_or(path);
    if last != name {
        return Err(err(
            file,
            format!("name {name:?} must equal the last segment of its skill path {last:?}"),
        ));
    }
    match fm.get("description") {
        Some(Value::String(d)) if !d.trim().is_empty() && d.chars().count() <= 1024 => {}
        _ => {
            return Err(err(
                file,
                "the frontmatter must have a 'description' of 1-1024 characters",
            ))
        }
    }
    if let Some(c) = fm.get("compatibility") {
        let ok = c
            .as_str()
            .is_some_and(|c| !c.is_empty() && c.chars().count() <= 500);
        if !ok {
            return Err(err(
                file,
                "'compatibility' must be a string of 1-500 characters",
            ));
        }
    }
    if let Some(l) = fm.get("license") {
        if !l.is_string() {
            return Err(err(file, "'license' must be a string"));
        }
    }
    if let Some(m) = fm.get("metadata") {
        let ok = m
            .as_object()
            .is_some_and(|m| m.values().all(Value::is_string));
        if !ok {
            return Err(err(file, "'metadata' must map strings to strings"));
        }
    }
    if let Some(t) = fm.get("allowed-tools") {
        let ok = t.is_string() || t.as_array().is_some_and(|a| a.iter().all(Value::is_string));
        if !ok {
            return Err(err(
                file,
                "'allowed-tools' must be a string or a list of strings",
            ));
        }
    }
    Ok(name)
}

/// `sha256:` and the lowercase hex SHA-256 of `bytes`.
pub fn digest(bytes: &[u8]) -> String {
    let h = Sha256::digest(bytes);
    let mut s = String::with_capacity(71);
    s.push_str("sha256:");
    for b in h {
        s.push_str(&format!("{b:02x}"));
    }
    s
}

/// The MIME type of a skill file, from its extension (the TypeScript SDK's table).
pub fn mime_type(file: &str) -> &'static str {
    let name = file.rsplit('/').next().unwrap_or(file);
    let ext = match name.rfind('.') {
        Some(i) if i > 0 => name[i + 1..].to_ascii_lowercase(),
        _ => return "application/octet-stream",
    };
    match ext.as_str() {
        "md" | "markdown" => "text/markdown",
        "txt" => "text/plain",
        "json" => "application/json",
        "yaml" | "yml" => "application/yaml",
        "py" => "text/x-python",
        "sh" | "bash" => "application/x-sh",
        "js" | "mjs" => "text/javascript",
        "ts" => "text/typescript",
        "html" => "text/html",
        "css" => "text/css",
        "csv" => "text/csv",
        "xml" => "application/xml",
        "sql" => "application/sql",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "pdf" => "application/pdf",
        _ => "application/octet-stream",
    }
}

/// One file of a skill: its path under the skill's directory and its exact bytes.
#[derive(Clone, Debug)]
pub struct SkillFile {
    pub path: String,
    pub bytes: Arc<[u8]>,
    pub digest: String,
}

/// A skill with every file's bytes: what `skills/list` describes and `resources/read` serves.
/// Immutable once built; the digests are of these bytes.
#[derive(Clone, Debug)]
pub struct Skill {
    path: String,
    name: String,
    frontmatter: Map<String, Value>,
    /// Sorted by path (so by URI: every URI of a skill shares its prefix).
    files: Vec<SkillFile>,
    listed: bool,
}

impl Skill {
    /// A skill served at `skill://<path>/`, from its files (path under the skill's directory →
    /// bytes). Checks every rule: the paths, `SKILL.md` (present, UTF-8, frontmatter), the name
    /// (equal to the last segment of `path`), and the limits.
    pub fn from_files<P, B>(
        path: impl Into<String>,
        files: impl IntoIterator<Item = (P, B)>,
    ) -> Result<Skill, BuildError>
    where
        P: Into<String>,
        B: Into<Vec<u8>>,
    {
        let path = path.into();
        let path = path.trim_matches('/').to_string();
        if path.is_empty() {
            return Err(err(
                SKILL_MD,
                "a skill needs a skill path (its last segment is its name)",
            ));
        }
        check_path(&path, "skill path")?;
        let mut out: Vec<SkillFile> = Vec::new();
        let mut total = 0usize;
        for (p, b) in files {
            let p: String = p.into();
            let shown = format!("{path}/{p}");
            check_path(&p, "file path").map_err(|e| match e {
                BuildError::Skill { message, .. } => err(shown.clone(), message),
                e => e,
            })?;
            if p == MANIFEST_FILE {
                return Err(err(
                    shown,
                    format!("'{MANIFEST_FILE}' is reserved for the skill's file listing"),
                ));
            }
            let bytes: Vec<u8> = b.into();
            total += bytes.len();
            out.push(SkillFile {
                digest: digest(&bytes),
                path: p,
                bytes: bytes.into(),
            });
        }
        out.sort_by(|a, b| a.path.cmp(&b.path));
        for w in out.windows(2) {
            if w[0].path == w[1].path {
                return Err(err(
                    format!("{path}/{}", w[0].path),
                    "the file is given twice",
                ));
            }
            // `a` a file and `a/b` another: `a` cannot be both a file and a directory.
            if w[1].path.starts_with(&format!("{}/", w[0].path)) {
                return Err(err(
                    format!("{path}/{}", w[0].path),
                    "the path is used as a file and as a directory",
                ));
            }
        }
        let md_name = format!("{path}/{SKILL_MD}");
        if out.len() > MAX_FILES {
            return Err(err(
                md_name,
                format!(
                    "a skill may hold at most {MAX_FILES} files (this one has {})",
                    out.len()
                ),
            ));
        }
        if total > MAX_BYTES {
            return Err(err(
                md_name,
                format!("a skill may hold at most {MAX_BYTES} bytes (this one has {total})"),
            ));
        }
        let md = out
            .iter()
            .find(|f| f.path == SKILL_MD)
            .ok_or_else(|| err(md_name.clone(), "a skill must contain SKILL.md"))?;
        let text = std::str::from_utf8(&md.bytes)
            .map_err(|_| err(md_name.clone(), "SKILL.md is not valid UTF-8"))?;
        let frontmatter = frontmatter::parse(text).map_err(|m| err(md_name.clone(), m))?;
        let name = check_frontmatter(&frontmatter, &path, &md_name)?;
        Ok(Skill {
            path,
            name,
            frontmatter,
            files: out,
            listed: true,
        })
    }

    /// A skill served at its own name (`skill://<name>/`), read from its `SKILL.md`.
    pub fn from_files_named<P, B>(
        files: impl IntoIterator<Item = (P, B)>,
    ) -> Result<Skill, BuildError>
    where
        P: Into<String>,
        B: Into<Vec<u8>>,
    {
        let files: Vec<(String, Vec<u8>)> = files
            .into_iter()
            .map(|(p, b)| (p.into(), b.into()))
            .collect();
        let md = files
            .iter()
            .find(|(p, _)| p == SKILL_MD)
            .ok_or_else(|| err(SKILL_MD, "a skill must contain SKILL.md"))?;
        let text =
            std::str::from_utf8(&md.1).map_err(|_| err(SKILL_MD, "SKILL.md is not valid UTF-8"))?;
        let fm = frontmatter::parse(text).map_err(|m| err(SKILL_MD, m))?;
        let name = match fm.get("name") {
            Some(Value::String(n)) if valid_name(n) => n.clone(),
            Some(Value::String(n)) => return Err(err(SKILL_MD, format!("name {n:?} must be 1-64 lowercase letters, digits and single hyphens, not starting or ending with '-'"))),
            _ => return Err(err(SKILL_MD, "the frontmatter must have a string 'name'")),
        };
        Skill::from_files(name, files)
    }

    /// The skill left out of `skills/list` and its files out of `resources/list`: served to a
    /// host that already holds its URI (`skills/get`, `resources/read`, directory reads), as
    /// the extension allows, for skills handed out by reference rather than advertised.
    pub fn unlisted(mut self) -> Skill {
        self.listed = false;
        self
    }
    /// Whether `skills/list` carries it.
    pub fn is_listed(&self) -> bool {
        self.listed
    }

    /// The skill path (`ops/deploy`): where it is served, `skill://<path>/`.
    pub fn path(&self) -> &str {
        &self.path
    }
    pub fn name(&self) -> &str {
        &self.name
    }
    pub fn description(&self) -> &str {
        self.frontmatter
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or_default()
    }
    pub fn frontmatter(&self) -> &Map<String, Value> {
        &self.frontmatter
    }
    pub fn files(&self) -> &[SkillFile] {
        &self.files
    }
    /// The URI of the skill's root directory (no trailing slash).
    pub fn root_uri(&self) -> String {
        format!("{SCHEME}{}", self.path)
    }
    /// The URI of its `SKILL.md`: the skill's identity.
    pub fn uri(&self) -> String {
        self.file_uri(SKILL_MD)
    }
    pub fn file_uri(&self, file: &str) -> String {
        format!("{SCHEME}{}/{file}", self.path)
    }

    /// The entry `skills/list` and `skills/get` carry.
    pub fn entry(&self) -> Value {
        let resources: Vec<Value> = self
            .files
            .iter()
            .map(|f| json!({"uri": self.file_uri(&f.path), "digest": f.digest, "size": f.bytes.len()}))
            .collect();
        json!({"uri": self.uri(), "frontmatter": self.frontmatter, "resources": resources})
    }

    /// The `_manifest` listing (FastMCP's resource-mode manifest).
    pub fn manifest_json(&self) -> String {
        let files: Vec<Value> = self
            .files
            .iter()
            .map(|f| json!({"path": f.path, "size": f.bytes.len(), "hash": f.digest}))
            .collect();
        serde_json::to_string_pretty(&json!({"skill": self.name, "files": files}))
            .unwrap_or_default()
    }

    /// The direct children of the directory `dir` of this skill (`""` is its root), as
    /// `resources/directory/read` lists them, sorted by URI; `None` when `dir` is no directory
    /// of this skill.
    pub fn children(&self, dir: &str) -> Option<Vec<(String, Value)>> {
        let prefix = if dir.is_empty() {
            String::new()
        } else {
            format!("{dir}/")
        };
        let mut out: Vec<(String, Value)> = Vec::new();
        let mut found = false;
        for f in &self.files {
            let Some(rest) = f.path.strip_prefix(&prefix) else {
                continue;
            };
            found = true;
            let child = match rest.split_once('/') {
                Some((sub, _)) => {
                    let uri = self.file_uri(&format!("{prefix}{sub}"));
                    if out.last().is_some_and(|(u, _)| *u == uri) {
                        continue;
                    }
                    (
                        uri.clone(),
                        json!({"uri": uri, "name": sub, "mimeType": DIRECTORY_MIME_TYPE}),
                    )
                }
                None => {
                    let uri = self.file_uri(&f.path);
                    (
                        uri.clone(),
                        json!({"uri": uri, "name": rest, "mimeType": mime_type(rest), "size": f.bytes.len()}),
                    )
                }
            };
            out.push(child);
        }
        out.sort_by(|a, b| a.0.cmp(&b.0));
        out.dedup_by(|a, b| a.0 == b.0);
        found.then_some(out)
    }
}

/// File contents as `resources/read` serves them: text when the bytes are UTF-8 (kept exactly,
/// a byte-order mark included), else a base64 blob.
pub(crate) fn contents(uri: String, mime: &str, bytes: &[u8]) -> crate::protocol::ResourceContents {
    match std::str::from_utf8(bytes) {
        Ok(t) => crate::protocol::ResourceContents::text(uri, mime, t),
        Err(_) => crate::protocol::ResourceContents::blob(
            uri,
            mime,
            base64::engine::general_purpose::STANDARD.encode(bytes),
        ),
    }
}

/// A skill whose files are generated per request (the extension's `"resources": "dynamic"`):
/// the frontmatter is fixed and checked at registration, and every read of a file under
/// `skill://<path>/` goes to `handler` (a resource template `skill://<path>/{+file}`, whose
/// variable `file` is the path under the skill's directory). Hosts cannot verify such a skill
/// against a manifest, so it has none.
#[derive(Clone)]
pub struct DynamicSkill {
    pub(crate) path: String,
    pub(crate) name: String,
    pub(crate) frontmatter: Map<String, Value>,
    pub(crate) handler: Arc<dyn ResourceHandler>,
    pub(crate) listed: bool,
}

impl DynamicSkill {
    /// `frontmatter` must keep the same rules as a static skill's (name equal to the last
    /// segment of `path`, description, ...).
    pub fn new(
        path: impl Into<String>,
        frontmatter: Map<String, Value>,
        handler: Arc<dyn ResourceHandler>,
    ) -> Result<DynamicSkill, BuildError> {
        let path = path.into().trim_matches('/').to_string();
        if path.is_empty() {
            return Err(err(
                SKILL_MD,
                "a skill needs a skill path (its last segment is its name)",
            ));
        }
        check_path(&path, "skill path")?;
        let name = check_frontmatter(&frontmatter, &path, &format!("{path}/{SKILL_MD}"))?;
        Ok(DynamicSkill {
            path,
            name,
            frontmatter,
            handler,
            listed: true,
        })
    }
    /// Left out of `skills/list` and its template out of `resources/templates/list`
    /// (see [`Skill::unlisted`]).
    pub fn unlisted(mut self) -> DynamicSkill {
        self.listed = false;
        self
    }
    pub fn is_listed(&self) -> bool {
        self.listed
    }
    pub fn path(&self) -> &str {
        &self.path
    }
    pub fn name(&self) -> &str {
        &self.name
    }
    pub fn uri(&self) -> String {
        format!("{SCHEME}{}/{SKILL_MD}", self.path)
    }
    pub fn entry(&self) -> Value {
        json!({"uri": self.uri(), "frontmatter": self.frontmatter, "resources": "dynamic"})
    }
}

/// What the registry holds per skill, keyed by its `SKILL.md` URI.
#[derive(Clone)]
pub(crate) enum SkillSlot {
    Static(Arc<Skill>),
    Dynamic(Arc<DynamicSkill>),
}

impl SkillSlot {
    pub(crate) fn entry(&self) -> Value {
        match self {
            SkillSlot::Static(s) => s.entry(),
            SkillSlot::Dynamic(d) => d.entry(),
        }
    }
    pub(crate) fn is_listed(&self) -> bool {
        match self {
            SkillSlot::Static(s) => s.is_listed(),
            SkillSlot::Dynamic(d) => d.is_listed(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn md(name: &str) -> String {
        format!("---\nname: {name}\ndescription: Does {name} things.\n---\n# {name}\n")
    }

    #[test]
    fn an_entry_lists_every_file_with_its_digest() {
        let s = Skill::from_files(
            "ops/deploy",
            [
                ("SKILL.md", md("deploy").into_bytes()),
                ("ref/a.txt", b"abc".to_vec()),
            ],
        )
        .unwrap();
        let e = s.entry();
        assert_eq!(e["uri"], "skill://ops/deploy/SKILL.md");
        assert_eq!(e["frontmatter"]["name"], "deploy");
        let r = e["resources"].as_array().unwrap();
        assert_eq!(r.len(), 2);
        assert_eq!(r[1]["uri"], "skill://ops/deploy/ref/a.txt");
        assert_eq!(
            r[1]["digest"],
            "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(r[1]["size"], 3);
        let c = s.children("").unwrap();
        assert_eq!(c[0].1["name"], "SKILL.md");
        assert_eq!(
            c[1].1,
            json!({"uri": "skill://ops/deploy/ref", "name": "ref", "mimeType": "inode/directory"})
        );
        assert_eq!(s.children("ref").unwrap()[0].1["size"], 3);
        assert!(s.children("nope").is_none());
    }

    #[test]
    fn malformed_skills_are_refused_naming_file_and_rule() {
        let bad = |path: &str, files: Vec<(&str, Vec<u8>)>| {
            Skill::from_files(path, files).unwrap_err().to_string()
        };
        let e = bad("x", vec![("a.txt", b"1".to_vec())]);
        assert!(
            e.contains("x/SKILL.md") && e.contains("must contain SKILL.md"),
            "{e}"
        );
        let e = bad("x", vec![("SKILL.md", md("y").into_bytes())]);
        assert!(e.contains("must equal the last segment"), "{e}");
        let e = bad("Bad_Name", vec![("SKILL.md", md("Bad_Name").into_bytes())]);
        assert!(e.contains("lowercase"), "{e}");
        let e = bad("x", vec![("SKILL.md", vec![0xff, 0xfe])]);
        assert!(e.contains("not valid UTF-8"), "{e}");
        let e = bad(
            "x",
            vec![("SKILL.md", md("x").into_bytes()), ("../up", vec![])],
        );
        assert!(e.contains("x/../up") && e.contains("'..'"), "{e}");
        let e = bad(
            "x",
            vec![("SKILL.md", md("x").into_bytes()), ("/abs", vec![])],
        );
        assert!(e.contains("relative"), "{e}");
        let e = bad(
            "x",
            vec![("SKILL.md", md("x").into_bytes()), ("a b", vec![])],
        );
        assert!(e.contains("x/a b") && e.contains("letters, digits"), "{e}");
        let many: Vec<(String, Vec<u8>)> = (0..MAX_FILES)
            .map(|i| (format!("f{i}"), vec![]))
            .chain([("SKILL.md".to_string(), md("x").into_bytes())])
            .collect();
        let e = Skill::from_files("x", many).unwrap_err().to_string();
        assert!(e.contains("at most 512 files"), "{e}");
        let e = bad(
            "x",
            vec![
                ("SKILL.md", md("x").into_bytes()),
                ("big", vec![0; MAX_BYTES]),
            ],
        );
        assert!(e.contains("at most 16777216 bytes"), "{e}");
        let e = bad("x", vec![("SKILL.md", b"---\nname: x\n---\n".to_vec())]);
        assert!(e.contains("description"), "{e}");
    }
}
