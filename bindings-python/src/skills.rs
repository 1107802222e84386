//! The Skills extension for Python: a skill crosses as `(path, [(file, bytes)])`; every rule is
//! the core's (`oxmcp::skills`), and a broken one raises `ValueError` naming the file and the rule.

use crate::convert::to_py;
use crate::{build_err, NativeServer};
use oxmcp::skills::{self, Skill};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

pub(crate) type Files = Vec<(String, Vec<u8>)>;

fn out<'py>(py: Python<'py>, s: &Skill) -> (String, Vec<(String, Bound<'py, PyBytes>)>) {
    let files = s
        .files()
        .iter()
        .map(|f| (f.path.clone(), PyBytes::new(py, &f.bytes)))
        .collect();
    (s.path().to_string(), files)
}

/// Check a skill and return `(path, entry)`: the entry `skills/list` would carry for it.
/// `path`: where it is served (default: its name).
#[pyfunction]
#[pyo3(signature = (files, path=None))]
pub(crate) fn skill_entry<'py>(
    py: Python<'py>,
    files: Files,
    path: Option<String>,
) -> PyResult<(String, Bound<'py, PyAny>)> {
    let s = match path {
        Some(p) => Skill::from_files(p, files),
        None => Skill::from_files_named(files),
    }
    .map_err(build_err)?;
    Ok((s.path().to_string(), to_py(py, &s.entry())?))
}

/// Every skill below `root`, as `(path, files)`, under the loader's rules.
#[pyfunction]
#[allow(clippy::type_complexity)] // the tuple Python receives
pub(crate) fn skills_load_dir(
    py: Python<'_>,
    root: std::path::PathBuf,
) -> PyResult<Vec<(String, Vec<(String, Bound<'_, PyBytes>)>)>> {
    let all = py.detach(|| skills::load_dir(&root)).map_err(build_err)?;
    Ok(all.iter().map(|s| out(py, s)).collect())
}

/// One skill from its own directory, as `(path, files)`.
#[pyfunction]
#[pyo3(signature = (dir, path=None))]
#[allow(clippy::type_complexity)]
pub(crate) fn skills_load_one(
    py: Python<'_>,
    dir: std::path::PathBuf,
    path: Option<String>,
) -> PyResult<(String, Vec<(String, Bound<'_, PyBytes>)>)> {
    let s = py
        .detach(|| skills::load_skill(&dir, path.as_deref()))
        .map_err(build_err)?;
    Ok(out(py, &s))
}

impl NativeServer {
    pub(crate) fn add_skills_native(&self, skills: Vec<(String, Files, bool)>) -> PyResult<()> {
        let built = skills
            .into_iter()
            .map(|(p, f, listed)| {
                Skill::from_files(p, f).map(|s| if listed { s } else { s.unlisted() })
            })
            .collect::<Result<Vec<_>, _>>()
            .map_err(build_err)?;
        self.server.add_skills(built).map_err(build_err)
    }
}
