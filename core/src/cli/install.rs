//! `oxmcp install CLIENT app.py`: add a stdio entry to an MCP client's configuration file.
//!
//! Each client's documented file and shape:
//! - claude-code: `~/.claude.json`, top-level `"mcpServers"` (user scope; `claude mcp add -s user`
//!   writes the same), entries `{"type": "stdio", "command", "args", "env"}`;
//! - claude-desktop: `claude_desktop_config.json` in `~/Library/Application Support/Claude`
//!   (macOS), `%APPDATA%\Claude` (Windows), `$XDG_CONFIG_HOME/Claude` (Linux); `"mcpServers"`
//!   entries `{"command", "args", "env"}`;
//! - cursor: `~/.cursor/mcp.json`, `"mcpServers"` entries `{"command", "args", "env"}`;
//! - vscode: the user profile's `mcp.json` (`~/Library/Application Support/Code/User`,
//!   `%APPDATA%\Code\User`, `$XDG_CONFIG_HOME/Code/User`); `"servers"` entries
//!   `{"type": "stdio", "command", "args", "env"}`.
//!
//! The file is read, the one entry set, every other key kept in its place, and the result written
//! atomically (see [`write_config`] for the file's mode, symlinks and the temp file).
//!
//! A server on a Unix domain socket (`--uds`) is refused: no client's entry can name a socket
//! (Claude Desktop's takes a command only; Claude Code's, Cursor's and VS Code's a command or an
//! `http(s)` URL), and the stdio entry would start a server of its own rather than reach the one
//! on the socket. [`uds_refusal`] says what to do instead.

use super::ordered::Json;
use super::target::{app_file, resolved, split_spec, Lang, Launchers};
use super::CliError;
use std::io::Write;
use std::path::{Path, PathBuf};

fn env_dir(name: &str) -> Option<PathBuf> {
    std::env::var_os(name)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

fn home() -> PathBuf {
    env_dir("HOME")
        .or_else(|| env_dir("USERPROFILE"))
        .unwrap_or_else(|| PathBuf::from("."))
}

fn app_data() -> PathBuf {
    let home = home();
    if cfg!(target_os = "macos") {
        home.join("Library").join("Application Support")
    } else if cfg!(windows) {
        env_dir("APPDATA").unwrap_or_else(|| home.join("AppData").join("Roaming"))
    } else {
        env_dir("XDG_CONFIG_HOME").unwrap_or_else(|| home.join(".config"))
    }
}

/// (file, the key holding the servers, whether entries carry `"type": "stdio"`).
pub(crate) fn config_location(client: &str) -> Result<(PathBuf, &'static str, bool), CliError> {
    Ok(match client {
        "claude-code" => (home().join(".claude.json"), "mcpServers", true),
        "claude-desktop" => (
            app_data().join("Claude").join("claude_desktop_config.json"),
            "mcpServers",
            false,
        ),
        "cursor" => (home().join(".cursor").join("mcp.json"), "mcpServers", false),
        "vscode" => (
            app_data().join("Code").join("User").join("mcp.json"),
            "servers",
            true,
        ),
        other => {
            return Err(CliError::new(format!(
                "unknown client '{other}': claude-code, claude-desktop, cursor or vscode"
            )))
        }
    })
}

fn parse_env(pairs: &[String]) -> Result<Vec<(String, Json)>, CliError> {
    let mut env: Vec<(String, Json)> = Vec::new();
    for pair in pairs {
        match pair.split_once('=') {
            Some((k, v)) if !k.is_empty() => {
                Json::set(&mut env, k, Json::String(v.to_string()));
            }
            _ => {
                return Err(CliError::new(format!(
                    "--env wants KEY=VALUE, got '{pair}'"
                )))
            }
        }
    }
    Ok(env)
}

fn entry_for(
    target: &str,
    env: Vec<(String, Json)>,
    typed: bool,
    launchers: &Launchers,
) -> Result<Json, CliError> {
    let file = app_file(target)?
        .ok_or_else(|| CliError::new("install wants a file (app.py or app.mjs)"))?;
    let mut cmd = match file.lang {
        Lang::Python => launchers.python.clone(),
        Lang::Node => launchers.node.clone(),
    };
    cmd.push(resolved(&file, target));
    let mut entry = Vec::new();
    if typed {
        entry.push(("type".to_string(), Json::String("stdio".into())));
    }
    let command = cmd.remove(0);
    entry.push(("command".to_string(), Json::String(command)));
    entry.push(("args".to_string(), Json::strings(cmd)));
    if !env.is_empty() {
        entry.push(("env".to_string(), Json::Object(env)));
    }
    Ok(Json::object(entry))
}

/// What the kernel allows (ELOOP): a longer chain is a loop, refused rather than followed forever.
const MAX_LINKS: usize = 40;

/// The file a symlinked config points at, even when that file does not exist yet: the write goes
/// there, so a config kept in a dotfiles repository stays a link.
fn resolve_link(mut path: PathBuf) -> Result<PathBuf, CliError> {
    for _ in 0..MAX_LINKS {
        match std::fs::read_link(&path) {
            Ok(link) => {
                path = path.parent().unwrap_or(Path::new(".")).join(link);
            }
            Err(_) => return Ok(path),
        }
    }
    Err(CliError::new(format!(
        "{}: too many levels of symbolic links",
        path.display()
    )))
}

fn io_error(path: &Path, e: std::io::Error) -> CliError {
    CliError::new(format!("{}: {e}", path.display()))
}

/// Replace `path` atomically. Client configs hold secrets in "env", so a new file is 0600 and an
/// existing one keeps its mode. The temp file is created exclusively with a random name beside the
/// target (same filesystem, so the rename is atomic; no predictable path another user could
/// plant), and removed if anything fails before the rename.
pub(crate) fn write_config(path: &Path, text: &str) -> Result<(), CliError> {
    let path = resolve_link(path.to_path_buf())?;
    let dir = path.parent().unwrap_or(Path::new(".")).to_path_buf();
    std::fs::create_dir_all(&dir).map_err(|e| io_error(&dir, e))?;
    let mode = std::fs::metadata(&path).ok().map(|m| m.permissions());
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.{:016x}.oxmcp-tmp", rand::random::<u64>()));
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options.open(&tmp).map_err(|e| io_error(&tmp, e))?;
    let written = (|| {
        if let Some(mode) = &mode {
            file.set_permissions(mode.clone())?;
        }
        file.write_all(text.as_bytes())?;
        file.sync_all()?;
        drop(file);
        std::fs::rename(&tmp, &path)
    })();
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(io_error(&path, e));
    }
    Ok(())
}

fn pretty(value: &Json) -> String {
    serde_json::to_string_pretty(value).expect("JSON serializes")
}

/// Why `--uds` cannot be installed for `client`, and what works instead.
fn uds_refusal(client: &str, socket: &str) -> CliError {
    let takes = if client == "claude-desktop" {
        "a command to start"
    } else {
        "a command to start or an http(s) URL"
    };
    CliError::new(format!(
        "--uds {socket}: {client} cannot connect to a Unix socket (its config takes {takes}); \
         install without --uds and {client} starts the server itself over stdio, or serve it on a \
         loopback port (oxmcp run app.py --http 127.0.0.1:8000) and give {client} its URL"
    ))
}

/// Run the verb: what it prints on stdout.
pub(crate) fn install(
    client: &str,
    target: &str,
    name: Option<&str>,
    env: &[String],
    print_only: bool,
    uds: Option<&str>,
    launchers: &Launchers,
) -> Result<String, CliError> {
    let (path, key, typed) = config_location(client)?;
    if let Some(socket) = uds {
        return Err(uds_refusal(client, socket));
    }
    let entry = entry_for(target, parse_env(env)?, typed, launchers)?;
    let name = match name {
        Some(n) if !n.is_empty() => n.to_string(),
        _ => Path::new(split_spec(target).0)
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default(),
    };
    if print_only {
        let servers = Json::object(vec![(name, entry)]);
        return Ok(format!(
            "{}\n",
            pretty(&Json::object(vec![(key.into(), servers)]))
        ));
    }
    let shown = path.display();
    let mut data = Json::Object(Vec::new());
    if path.exists() {
        let text = std::fs::read_to_string(&path).map_err(|e| io_error(&path, e))?;
        if !text.trim().is_empty() {
            data = serde_json::from_str(&text).map_err(|_| {
                CliError::new(format!("{shown} is not valid JSON; not touching it"))
            })?;
        }
    }
    let Json::Object(members) = &mut data else {
        return Err(CliError::new(format!(
            "{shown} does not hold a JSON object; not touching it"
        )));
    };
    let at = Json::entry(members, key);
    let Json::Object(servers) = &mut members[at].1 else {
        return Err(CliError::new(format!(
            "{shown}: '{key}' is not an object; not touching it"
        )));
    };
    let verb = if Json::set(servers, &name, entry) {
        "updated"
    } else {
        "added"
    };
    write_config(&path, &format!("{}\n", pretty(&data)))?;
    Ok(format!("{verb} '{name}' in {client} config: {shown}\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tmp_dir(tag: &str) -> PathBuf {
        let d =
            std::env::temp_dir().join(format!("oxmcp-install-{tag}-{:x}", rand::random::<u64>()));
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn a_unix_socket_server_is_refused_for_every_client_even_to_print() {
        let dir = tmp_dir("uds");
        std::fs::write(dir.join("app.py"), "").unwrap();
        let app = dir.join("app.py").display().to_string();
        let launchers = Launchers::new(vec![], vec!["python".into()], vec!["node".into()]);
        for client in ["claude-code", "claude-desktop", "cursor", "vscode"] {
            let err = install(
                client,
                &app,
                None,
                &[],
                false,
                Some("/run/mcp.sock"),
                &launchers,
            )
            .unwrap_err()
            .message;
            assert!(
                err.starts_with(&format!(
                    "--uds /run/mcp.sock: {client} cannot connect to a Unix socket"
                )),
                "{err}"
            );
            assert!(err.contains("install without --uds"), "{err}");
        }
        let err = install(
            "claude-desktop",
            &app,
            None,
            &[],
            true,
            Some("s"),
            &launchers,
        )
        .unwrap_err()
        .message;
        assert!(
            err.contains("its config takes a command to start)"),
            "{err}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_failed_write_leaves_no_temp_file() {
        // The rename fails (the target is a non-empty directory) after the temp file was written.
        let dir = tmp_dir("fail");
        let target = dir.join("mcp.json");
        std::fs::create_dir(&target).unwrap();
        std::fs::write(target.join("keep"), "x").unwrap();
        assert!(write_config(&target, "{}\n").is_err());
        let mut names: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        assert_eq!(names, ["mcp.json"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn a_new_file_is_private_and_an_old_one_keeps_its_mode() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tmp_dir("mode");
        let f = dir.join("a").join("mcp.json");
        write_config(&f, "{}\n").unwrap();
        assert_eq!(
            std::fs::metadata(&f).unwrap().permissions().mode() & 0o7777,
            0o600
        );
        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o640)).unwrap();
        write_config(&f, "{\"a\": 1}\n").unwrap();
        assert_eq!(
            std::fs::metadata(&f).unwrap().permissions().mode() & 0o7777,
            0o640
        );
        assert_eq!(std::fs::read_to_string(&f).unwrap(), "{\"a\": 1}\n");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
