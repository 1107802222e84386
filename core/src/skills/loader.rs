//! The directory loader: every directory below a root that holds a `SKILL.md` is a skill, served
//! at its path relative to the root (`root/ops/deploy/SKILL.md` → `skill://ops/deploy/SKILL.md`).
//!
//! The files are read once, here, and served from memory: the digests in the listing are of the
//! bytes `resources/read` sends, whatever happens on disk later. Nothing outside the root is
//! read: a symlink anywhere below it is refused (never followed), as is a special file, a name
//! that is not UTF-8, or a `SKILL.md` that is not. Hidden entries (`.git`, `.DS_Store`) are
//! skipped.

use super::{err, Skill, SKILL_MD};
use crate::error::BuildError;
use std::fs;
use std::path::Path;

/// Deeper than this below the root is refused (a bound on the walk).
const MAX_DEPTH: usize = 32;

/// Every skill below `root`, sorted by skill path. `Err`: the first malformed skill or refused
/// entry, naming the file (relative to the root) and the rule.
pub fn load_dir(root: impl AsRef<Path>) -> Result<Vec<Skill>, BuildError> {
    let root = root.as_ref();
    let meta = fs::metadata(root).map_err(|e| {
        err(
            root.display().to_string(),
            format!("the skills root cannot be read: {e}"),
        )
    })?;
    if !meta.is_dir() {
        return Err(err(
            root.display().to_string(),
            "the skills root is not a directory",
        ));
    }
    let mut paths: Vec<String> = Vec::new();
    walk(root, "", 0, &mut paths)?;
    let mut files = Vec::with_capacity(paths.len());
    for f in paths {
        let bytes =
            fs::read(root.join(&f)).map_err(|e| err(f.clone(), format!("cannot be read: {e}")))?;
        files.push((f, bytes));
    }
    from_tree(files)
}

/// Every skill in a tree of files (path relative to the root → bytes), by the loader's rule:
/// each directory holding a `SKILL.md` is a skill, served at its path; a nested skill's files
/// are the enclosing skill's too. For storage other than a directory (memory, an archive).
pub fn from_tree(mut files: Vec<(String, Vec<u8>)>) -> Result<Vec<Skill>, BuildError> {
    files.sort_by(|a, b| a.0.cmp(&b.0));
    if files.iter().any(|(f, _)| f == SKILL_MD) {
        return Err(err(
            SKILL_MD,
            "a SKILL.md at the root has no skill path; point the loader at its parent directory",
        ));
    }
    let suffix = format!("/{SKILL_MD}");
    let dirs: Vec<&str> = files
        .iter()
        .filter_map(|(f, _)| f.strip_suffix(&suffix))
        .collect();
    let mut skills = Vec::with_capacity(dirs.len());
    for dir in dirs {
        let prefix = format!("{dir}/");
        let own = files
            .iter()
            .filter(|(f, _)| f.starts_with(&prefix))
            .map(|(f, b)| (f[prefix.len()..].to_string(), b.clone()));
        skills.push(Skill::from_files(dir, own)?);
    }
    Ok(skills)
}

/// One skill from its own directory `dir`, served at `skill_path` (default: the directory's name,
/// which must then be the skill's name), under the loader's rules.
pub fn load_skill(dir: impl AsRef<Path>, skill_path: Option<&str>) -> Result<Skill, BuildError> {
    let dir = dir.as_ref();
    let shown = dir.display().to_string();
    let meta = fs::symlink_metadata(dir)
        .map_err(|e| err(shown.clone(), format!("cannot be read: {e}")))?;
    if meta.file_type().is_symlink() || !meta.is_dir() {
        return Err(err(
            shown,
            "a skill directory must be a directory, not a symlink",
        ));
    }
    let mut files = Vec::new();
    walk(dir, "", 0, &mut files)?;
    let mut own = Vec::with_capacity(files.len());
    for f in files {
        let bytes =
            fs::read(dir.join(&f)).map_err(|e| err(f.clone(), format!("cannot be read: {e}")))?;
        own.push((f, bytes));
    }
    let path = match skill_path {
        Some(p) => p.to_string(),
        None => dir
            .file_name()
            .and_then(|n| n.to_str())
            .ok_or_else(|| err(shown.clone(), "the directory has no UTF-8 name"))?
            .to_string(),
    };
    Skill::from_files(path, own)
}

/// The regular files below `dir` (relative to the root), refusing what may not be served.
fn walk(dir: &Path, rel: &str, depth: usize, out: &mut Vec<String>) -> Result<(), BuildError> {
    let shown = |name: &str| {
        if rel.is_empty() {
            name.to_string()
        } else {
            format!("{rel}/{name}")
        }
    };
    if depth > MAX_DEPTH {
        return Err(err(
            rel,
            format!("directories nest deeper than {MAX_DEPTH} levels"),
        ));
    }
    let rd = fs::read_dir(dir).map_err(|e| err(shown(""), format!("cannot be listed: {e}")))?;
    let mut entries = Vec::new();
    for e in rd {
        let e = e.map_err(|e| err(shown(""), format!("cannot be listed: {e}")))?;
        let name = e
            .file_name()
            .into_string()
            .map_err(|n| err(shown(&n.to_string_lossy()), "the name is not UTF-8"))?;
        entries.push((name, e));
    }
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    for (name, e) in entries {
        if name.starts_with('.') {
            continue;
        }
        let path = shown(&name);
        // Not following: the entry itself, a symlink is seen as one.
        let ft = e
            .file_type()
            .map_err(|x| err(path.clone(), format!("cannot be read: {x}")))?;
        if ft.is_symlink() {
            return Err(err(
                path,
                "is a symlink; the skills loader does not follow symlinks (copy the file instead)",
            ));
        } else if ft.is_dir() {
            walk(&e.path(), &path, depth + 1, out)?;
        } else if ft.is_file() {
            out.push(path);
        } else {
            return Err(err(path, "is not a regular file"));
        }
    }
    Ok(())
}
