//! What a verb's TARGET names: an app file (Python or JavaScript, with an optional `:name`), a
//! Python module, a URL, or a command after `--`; and the command that serves it over stdio.

use super::CliError;
use std::path::{Path, PathBuf};

pub(crate) const JS_SUFFIXES: [&str; 3] = [".mjs", ".js", ".cjs"];

/// How the host starts a server: its own `oxmcp run` (which serves either language), and the
/// command prefixes that serve a Python or a JavaScript app. Host facts only (which interpreter,
/// where its CLI lives); the target is appended by the core.
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct Launchers {
    /// The host's own `oxmcp run` (`python -m oxmcp run`, `node .../main.mjs run`).
    pub run: Vec<String>,
    /// What serves `app.py[:name]` over stdio.
    pub python: Vec<String>,
    /// What serves `app.mjs[:name]` over stdio.
    pub node: Vec<String>,
}

impl Launchers {
    pub fn new(run: Vec<String>, python: Vec<String>, node: Vec<String>) -> Self {
        Self { run, python, node }
    }
}

/// The language of an app file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Lang {
    Python,
    Node,
}

impl Lang {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Lang::Python => "python",
            Lang::Node => "node",
        }
    }
}

/// `path/app.py:server` → (path, attr); a Windows drive letter is not an attr separator.
pub(crate) fn split_spec(spec: &str) -> (&str, &str) {
    if let Some(i) = spec.rfind(':') {
        let (head, attr) = (&spec[..i], &spec[i + 1..]);
        if i > 1 && !attr.contains('/') && !attr.contains('\\') {
            return (head, attr);
        }
    }
    (spec, "")
}

/// An app file a spec names: its absolute path and language. None for a module name.
pub(crate) struct AppFile {
    pub(crate) path: PathBuf,
    pub(crate) lang: Lang,
}

pub(crate) fn app_file(spec: &str) -> Result<Option<AppFile>, CliError> {
    let (path, _) = split_spec(spec);
    let js = JS_SUFFIXES.iter().any(|s| path.ends_with(s));
    if !(js
        || path.ends_with(".py")
        || path.contains('/')
        || path.contains(std::path::MAIN_SEPARATOR))
    {
        return Ok(None);
    }
    let p = Path::new(path);
    if !p.is_file() {
        return Err(CliError::new(format!("no such file: {path}")));
    }
    let abs = std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let abs = std::fs::canonicalize(&abs).unwrap_or(abs);
    Ok(Some(AppFile {
        path: abs,
        lang: if js { Lang::Node } else { Lang::Python },
    }))
}

/// `file:attr` with the file made absolute (what a launched process is given).
pub(crate) fn resolved(file: &AppFile, spec: &str) -> String {
    let (_, attr) = split_spec(spec);
    let f = file.path.display();
    if attr.is_empty() {
        f.to_string()
    } else {
        format!("{f}:{attr}")
    }
}

/// The stdio command that serves `spec`.
pub(crate) fn launch_command(spec: &str, launchers: &Launchers) -> Result<Vec<String>, CliError> {
    let mut cmd;
    match app_file(spec)? {
        Some(file) => {
            cmd = match file.lang {
                Lang::Python => launchers.python.clone(),
                Lang::Node => launchers.node.clone(),
            };
            cmd.push(resolved(&file, spec));
        }
        None => {
            cmd = launchers.run.clone();
            cmd.push(spec.to_string());
        }
    }
    Ok(cmd)
}

/// How to reach a server: a URL, or a command to spawn for stdio.
#[derive(Debug, Clone)]
pub(crate) enum Target {
    Url(String),
    Command(Vec<String>),
}

impl Target {
    /// What error texts call the server.
    pub(crate) fn label(&self) -> String {
        match self {
            Target::Url(u) => u.clone(),
            Target::Command(c) => c.join(" "),
        }
    }
}

pub(crate) fn resolve_target(
    spec: Option<&str>,
    command: Option<Vec<String>>,
    launchers: &Launchers,
) -> Result<Target, CliError> {
    if let Some(command) = command {
        return Ok(Target::Command(command));
    }
    let spec = spec.unwrap_or_default();
    if spec.starts_with("http://") || spec.starts_with("https://") {
        return Ok(Target::Url(spec.to_string()));
    }
    Ok(Target::Command(launch_command(spec, launchers)?))
}

/// `HOST:PORT` (`[::1]:8000` for IPv6); an empty host is 127.0.0.1.
pub(crate) fn parse_host_port(value: &str) -> Result<(String, u16), CliError> {
    let bad = || CliError::new(format!("--http wants HOST:PORT, got '{value}'"));
    let (host, port) = value.rsplit_once(':').ok_or_else(bad)?;
    let port: u16 = port.parse().map_err(|_| bad())?;
    let host = host.trim_start_matches('[').trim_end_matches(']');
    Ok((
        if host.is_empty() { "127.0.0.1" } else { host }.to_string(),
        port,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_split_at_the_last_colon_but_not_a_drive_letter() {
        assert_eq!(split_spec("app.py:server"), ("app.py", "server"));
        assert_eq!(split_spec("app.py"), ("app.py", ""));
        assert_eq!(split_spec("C:\\x\\app.py"), ("C:\\x\\app.py", ""));
        assert_eq!(split_spec("pkg.mod:mk"), ("pkg.mod", "mk"));
    }

    #[test]
    fn host_port() {
        assert_eq!(parse_host_port(":80").unwrap(), ("127.0.0.1".into(), 80));
        assert_eq!(parse_host_port("[::1]:8000").unwrap(), ("::1".into(), 8000));
        assert_eq!(
            parse_host_port("nope").unwrap_err().message,
            "--http wants HOST:PORT, got 'nope'"
        );
    }
}
