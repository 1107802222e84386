//! The `oxmcp` command, written once: the Python (`oxmcp`, `python -m oxmcp`) and Node
//! (`npx oxmcp`) commands are shims that call [`main`] with their argv and [`Launchers`].
//!
//! The core parses the arguments and runs the verbs that need no host code: `inspect` and `call`
//! (a client over stdio or Streamable HTTP), `verify`, `install`, with their output, error lines
//! and exit codes. `run` and `dev` load the user's module, which only the host can do: for them
//! [`main`] answers [`Outcome::Serve`], a checked plan (target, transport, address, options) that
//! the host carries out. Errors are one line on stderr, `oxmcp: error: ...` (with the server's
//! stderr under it when there is one), and exit 1; usage errors are clap's, exit 2.

mod args;
mod client;
mod install;
mod ordered;
mod output;
mod target;
mod verify;

pub use target::Launchers;
pub use verify::{EXIT_BAD_SIGNATURE, EXIT_CHANGED};

use crate::server::catalog;
use args::{CallArgs, Cli, ClientFlags, InspectArgs, RunArgs, ServeFlags, Verb, VerifyArgs};
use clap::Parser;
use client::Client;
use serde_json::{json, Map, Value};
use std::io::Write;
use target::{app_file, parse_host_port, resolve_target, split_spec, Target};

/// A user-facing error: one line, and an optional detail (a server's stderr) printed under it.
#[derive(Debug, Clone, PartialEq)]
pub struct CliError {
    pub message: String,
    pub detail: Option<String>,
}

impl CliError {
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            detail: None,
        }
    }

    pub fn with_detail(message: impl Into<String>, detail: String) -> Self {
        Self {
            message: message.into(),
            detail: (!detail.is_empty()).then_some(detail),
        }
    }

    /// The text the command prints on stderr.
    pub fn text(&self) -> String {
        let mut t = format!("oxmcp: error: {}\n", self.message);
        if let Some(d) = &self.detail {
            t.push_str(d.trim_end_matches('\n'));
            t.push('\n');
        }
        t
    }
}

/// What the host does after [`main`].
#[derive(Debug)]
#[non_exhaustive]
pub enum Outcome {
    /// The verb ran (its output is written): exit with this code.
    Exit(i32),
    /// `run` or `dev`: the host loads the target and serves it as the plan says. The plan is JSON
    /// (the bindings hand it to their language as it is): `verb` (`"run"`/`"dev"`), `target`,
    /// `spec` and `attr` (`path/app.py` and `server` of `path/app.py:server`), `file` (absolute,
    /// or null for a module name), `language` (`"python"`, `"node"`, or null for a module),
    /// `mode` (`"stdio"`/`"http"`), `transportGiven` (whether `--http`/`--transport` was given),
    /// `host`, `port`, `path`, `discover`, `exclude`, `options` (listener options: `uds`,
    /// `tls_cert`, `tls_key`), `args` (the app's own command line, given after `--`: the host
    /// makes it the app's `sys.argv[1:]` / `process.argv.slice(2)`), and `forward` (the flags
    /// that hand the same choice to the other language's `oxmcp run`, `args` included).
    Serve(Value),
}

/// Run the command for `argv` (without the program name).
pub fn main(argv: Vec<String>, launchers: &Launchers) -> Outcome {
    match run(argv, launchers) {
        Ok(o) => o,
        Err(Failure::Cli(e)) => {
            write_err(&e.text());
            Outcome::Exit(1)
        }
        Err(Failure::Usage(e)) => {
            let code = e.exit_code();
            let text = e.render().to_string();
            if e.use_stderr() {
                write_err(&text);
            } else {
                write_out(&text);
            }
            Outcome::Exit(code)
        }
        Err(Failure::Exit(code)) => Outcome::Exit(code),
    }
}

enum Failure {
    Cli(CliError),
    Usage(clap::Error),
    /// The verb printed its own report; exit with this code.
    Exit(i32),
}

impl From<CliError> for Failure {
    fn from(e: CliError) -> Self {
        Failure::Cli(e)
    }
}

/// Writes to the process's stdout, waiting when the host made it non-blocking.
fn write_out(text: &str) {
    write_fd(text, false);
}

fn write_err(text: &str) {
    write_fd(text, true);
}

fn write_fd(text: &str, stderr: bool) {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_io()
            .build();
        if let Ok(rt) = rt {
            let _enter = rt.enter();
            let fd = if stderr {
                crate::transport::stdio_fd::StdioFd::new(
                    std::io::stderr().as_fd(),
                    tokio::io::Interest::WRITABLE,
                )
            } else {
                crate::transport::stdio_fd::stdout()
            };
            if let Ok(mut fd) = fd {
                let _ = fd.write_all(text.as_bytes());
                let _ = fd.flush();
                return;
            }
        }
    }
    if stderr {
        let _ = std::io::stderr().write_all(text.as_bytes());
    } else {
        let mut out = std::io::stdout();
        let _ = out.write_all(text.as_bytes());
        let _ = out.flush();
    }
}

fn run(argv: Vec<String>, launchers: &Launchers) -> Result<Outcome, Failure> {
    // `inspect -- CMD ARGS...` and `call [flags] -- CMD ARGS... TOOL k=v`: the command is
    // everything after the first `--`; for `run`, the app's own command line.
    let (mut argv, command) = match argv.iter().position(|a| a == "--") {
        Some(i) => {
            let command = argv[i + 1..].to_vec();
            let mut before = argv;
            before.truncate(i);
            (before, Some(command))
        }
        None => (argv, None),
    };
    argv.insert(0, "oxmcp".into());
    let mut cli = Cli::try_parse_from(argv).map_err(Failure::Usage)?;
    if let Some(command) = command {
        match &mut cli.verb {
            Verb::Run(a) => a.args = command,
            Verb::Inspect(_) | Verb::Call(_) | Verb::Verify(_) if command.is_empty() => {
                return Err(CliError::new(
                    "nothing after --: give the server command, e.g. -- python server.py",
                )
                .into());
            }
            Verb::Inspect(_) | Verb::Call(_) | Verb::Verify(_) => {
                return dispatch(cli, Some(command), launchers);
            }
            Verb::Dev(_) | Verb::Install(_) => {
                let verb = if matches!(cli.verb, Verb::Dev(_)) {
                    "dev"
                } else {
                    "install"
                };
                return Err(CliError::new(format!(
                    "{verb} takes no -- ARGS; run, inspect, call and verify do"
                ))
                .into());
            }
        }
    }
    dispatch(cli, None, launchers)
}

/// Run the parsed verb; `command` is what followed `--` for inspect, call and verify.
fn dispatch(
    cli: Cli,
    command: Option<Vec<String>>,
    launchers: &Launchers,
) -> Result<Outcome, Failure> {
    match cli.verb {
        Verb::Run(a) => serve_plan("run", &a.target, &a.serve, Some(&a)),
        Verb::Dev(a) => serve_plan("dev", &a.target, &a.serve, None),
        Verb::Inspect(a) => inspect(a, command, launchers),
        Verb::Call(a) => call(a, command, launchers),
        Verb::Verify(a) => verify_cmd(a, command, launchers),
        Verb::Install(a) => {
            let out = install::install(
                &a.client,
                &a.target,
                a.name.as_deref(),
                &a.env,
                a.print_only,
                a.uds.as_deref(),
                launchers,
            )?;
            write_out(&out);
            Ok(Outcome::Exit(0))
        }
    }
}

/// The checked plan the host serves (see [`Outcome::Serve`]).
fn serve_plan(
    verb: &str,
    target: &str,
    serve: &ServeFlags,
    run: Option<&RunArgs>,
) -> Result<Outcome, Failure> {
    let file = app_file(target)?;
    if verb == "dev" && file.is_none() {
        return Err(
            CliError::new("dev wants a file (app.py or app.mjs), not a module name").into(),
        );
    }
    let mut options = Map::new();
    if let Some(r) = run {
        for (key, value) in [
            ("uds", &r.uds),
            ("tls_cert", &r.tls_cert),
            ("tls_key", &r.tls_key),
        ] {
            if let Some(v) = value {
                options.insert(key.into(), json!(v));
            }
        }
    }
    let default = if verb == "dev" { "http" } else { "stdio" };
    let wants_http = serve.http.is_some() || !options.is_empty();
    let mode = match serve.transport.as_deref() {
        Some("stdio") => "stdio",
        Some(_) => "http",
        None if wants_http => "http",
        None => default,
    };
    if mode == "stdio" {
        if serve.http.is_some() {
            return Err(CliError::new("--transport stdio and --http contradict each other").into());
        }
        if let Some(key) = options.keys().next() {
            let flag = format!("--{}", key.replace('_', "-"));
            return Err(CliError::new(format!(
                "--transport stdio and {flag} contradict each other"
            ))
            .into());
        }
    }
    if options.contains_key("uds") && serve.http.is_some() {
        return Err(CliError::new("--uds and --http contradict each other: one listener").into());
    }
    let (host, port) = parse_host_port(serve.http.as_deref().unwrap_or("127.0.0.1:8000"))?;
    let mut forward: Vec<String> = Vec::new();
    if mode == "http" {
        if !options.contains_key("uds") {
            forward.extend(["--http".into(), format!("{}:{port}", bracket(&host))]);
        }
        forward.extend(["--path".into(), serve.path.clone()]);
    } else if verb == "dev" {
        forward.extend(["--transport".into(), "stdio".into()]);
    }
    let (discover, exclude) = run.map_or((vec![], vec![]), |r| {
        (r.discover.clone(), r.exclude.clone())
    });
    for d in &discover {
        forward.extend(["--discover".into(), d.clone()]);
    }
    for x in &exclude {
        forward.extend(["--exclude".into(), x.clone()]);
    }
    for (key, value) in &options {
        forward.extend([
            format!("--{}", key.replace('_', "-")),
            value.as_str().unwrap_or_default().to_string(),
        ]);
    }
    let args = run.map_or(&[][..], |r| &r.args[..]);
    if !args.is_empty() {
        forward.push("--".into());
        forward.extend(args.iter().cloned());
    }
    let (spec, attr) = split_spec(target);
    Ok(Outcome::Serve(json!({
        "verb": verb,
        "target": target,
        "spec": spec,
        "attr": attr,
        "file": file.as_ref().map(|f| f.path.display().to_string()),
        "language": file.as_ref().map(|f| f.lang.name()),
        "mode": mode,
        "transportGiven": serve.transport.is_some() || serve.http.is_some(),
        "host": host,
        "port": port,
        "path": serve.path,
        "discover": discover,
        "exclude": exclude,
        "options": options,
        "args": args,
        "forward": forward,
    })))
}

fn bracket(host: &str) -> String {
    if host.contains(':') {
        format!("[{host}]")
    } else {
        host.to_string()
    }
}

/// The exit code of a command stopped by Ctrl-C (128 + SIGINT, as a shell reports it).
const EXIT_INTERRUPTED: i32 = 130;

/// Run a client verb's work on a current-thread runtime (the command does one thing at a time);
/// Ctrl-C stops it (the server it started is killed with it) and exits 130.
fn block<T>(work: impl std::future::Future<Output = Result<T, CliError>>) -> Result<T, Failure> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| CliError::new(format!("cannot start the runtime: {e}")))?;
    rt.block_on(async {
        tokio::select! {
            r = work => r.map_err(Failure::Cli),
            _ = tokio::signal::ctrl_c() => Err(Failure::Exit(EXIT_INTERRUPTED)),
        }
    })
}

fn with_timeout<T>(
    label: &str,
    secs: f64,
    fut: impl std::future::Future<Output = Result<T, CliError>>,
) -> impl std::future::Future<Output = Result<T, CliError>> {
    let label = label.to_string();
    async move {
        match tokio::time::timeout(std::time::Duration::from_secs_f64(secs), fut).await {
            Ok(r) => r,
            Err(_) => Err(CliError::new(format!("{label}: timed out after {secs}s"))),
        }
    }
}

/// Everything a server lists, as `inspect --json` prints it; each list's page `_meta`s beside.
async fn listing(
    c: &mut Client,
) -> Result<(Value, Vec<(&'static str, Map<String, Value>)>), CliError> {
    let caps = c.init.get("capabilities").cloned().unwrap_or(json!({}));
    let mut info = Map::new();
    let mut metas = Vec::new();
    for (key, method, cap) in [
        ("tools", "tools/list", "tools"),
        ("resources", "resources/list", "resources"),
        ("resourceTemplates", "resources/templates/list", "resources"),
        ("prompts", "prompts/list", "prompts"),
    ] {
        let items = if caps.get(cap).is_some() {
            let (items, pages) = c.list_all(method, key).await?;
            metas.extend(pages.into_iter().map(|m| (method, m)));
            items
        } else {
            Vec::new()
        };
        info.insert(key.into(), Value::Array(items));
    }
    let discovered = c.discovered();
    if !discovered.is_empty() {
        info.insert("discovered".into(), Value::Array(discovered));
    }
    info.insert(
        "server".into(),
        c.init.get("serverInfo").cloned().unwrap_or(json!({})),
    );
    info.insert(
        "protocolVersion".into(),
        c.init
            .get("protocolVersion")
            .cloned()
            .unwrap_or(Value::Null),
    );
    Ok((Value::Object(info), metas))
}

/// The catalog's digest per list, and its signature and key when the server signs it, from the
/// first page's `_meta` (every page of a list carries the same ones). `None` when the server
/// sends no digests (`catalog_digests` off, or not an oxmcp server).
fn catalog_of(metas: &[(&'static str, Map<String, Value>)]) -> Option<Value> {
    let mut out = Map::new();
    for (method, meta) in metas {
        if out.contains_key(*method) {
            continue;
        }
        let Some(digest) = meta.get(catalog::META_CATALOG_DIGEST) else {
            continue;
        };
        let mut entry = Map::new();
        entry.insert("digest".into(), digest.clone());
        for (key, name) in [
            (catalog::META_SIGNATURE, "signature"),
            (catalog::META_KEY, "key"),
        ] {
            if let Some(v) = meta.get(key) {
                entry.insert(name.into(), v.clone());
            }
        }
        out.insert((*method).into(), Value::Object(entry));
    }
    (!out.is_empty()).then_some(Value::Object(out))
}

fn one_target(
    verb: &str,
    target: Option<&str>,
    command: Option<Vec<String>>,
    launchers: &Launchers,
) -> Result<Target, CliError> {
    if target.is_none() == command.is_none() {
        return Err(CliError::new(format!(
            "{verb} wants one of: app.py, app.mjs, a URL, or -- CMD ARGS..."
        )));
    }
    resolve_target(target, command, launchers)
}

fn inspect(
    a: InspectArgs,
    command: Option<Vec<String>>,
    launchers: &Launchers,
) -> Result<Outcome, Failure> {
    let target = one_target("inspect", a.target.as_deref(), command, launchers)?;
    let ClientFlags { json, timeout } = a.client;
    let info = block(async {
        let mut c = Client::connect(&target, timeout).await?;
        with_timeout(&target.label(), timeout, listing(&mut c)).await
    })?;
    let (mut info, metas) = info;
    if let Some(catalog) = catalog_of(&metas) {
        info["catalog"] = catalog;
    }
    let text = if json {
        output::pretty(&info)
    } else {
        output::render_text(&info)
    };
    write_out(&format!("{text}\n"));
    Ok(Outcome::Exit(0))
}

/// `CMD ARGS... TOOL k=v ...` after `--`: the tool is the word before the first `k=v` (or the
/// last word), everything before it is the server command.
fn split_command(command: Vec<String>) -> Result<(Vec<String>, Vec<String>), CliError> {
    let is_pair = |a: &String| {
        a.split_once('=').is_some_and(|(k, _)| {
            let mut chars = k.chars();
            chars
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && chars.all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c))
        })
    };
    let first = command.iter().position(is_pair).unwrap_or(command.len());
    if first < 2 {
        return Err(CliError::new(
            "call -- CMD ARGS... TOOL [key=value ...]: give the server command, then the tool",
        ));
    }
    let mut cmd = command;
    let rest = cmd.split_off(first - 1);
    Ok((cmd, rest))
}

/// `--args JSON` then `key=value` pairs; a value is JSON unless the schema says the key is a string.
fn parse_arguments(
    pairs: &[String],
    args_json: Option<&str>,
    schema: &Value,
) -> Result<Map<String, Value>, CliError> {
    let mut out = Map::new();
    if let Some(text) = args_json {
        let parsed: Value = serde_json::from_str(text)
            .map_err(|e| CliError::new(format!("--args is not valid JSON: {e}")))?;
        let Value::Object(m) = parsed else {
            return Err(CliError::new("--args must be a JSON object"));
        };
        out.extend(m);
    }
    for pair in pairs {
        let Some((key, raw)) = pair.split_once('=').filter(|(k, _)| !k.is_empty()) else {
            return Err(CliError::new(format!(
                "arguments are key=value, got '{pair}'"
            )));
        };
        let string = schema
            .get("properties")
            .and_then(|p| p.get(key))
            .and_then(|p| p.get("type"))
            .and_then(Value::as_str)
            == Some("string");
        let value = if string {
            Value::String(raw.to_string())
        } else {
            serde_json::from_str(raw).unwrap_or_else(|_| Value::String(raw.to_string()))
        };
        out.insert(key.to_string(), value);
    }
    Ok(out)
}

fn call(
    a: CallArgs,
    command: Option<Vec<String>>,
    launchers: &Launchers,
) -> Result<Outcome, Failure> {
    let (target, rest) = match command {
        Some(command) => {
            if !a.words.is_empty() {
                return Err(CliError::new(
                    "with --, put the tool after the server command: oxmcp call -- CMD ARGS... TOOL key=value ...",
                )
                .into());
            }
            let (cmd, rest) = split_command(command)?;
            (resolve_target(None, Some(cmd), launchers)?, rest)
        }
        None => {
            let Some((spec, rest)) = a.words.split_first() else {
                return Err(CliError::new(
                    "call wants a target and a tool: oxmcp call app.py TOOL key=value ...",
                )
                .into());
            };
            (resolve_target(Some(spec), None, launchers)?, rest.to_vec())
        }
    };
    let Some((tool, pairs)) = rest.split_first() else {
        return Err(CliError::new("call wants a tool name after the target").into());
    };
    let ClientFlags { json, timeout } = a.client;
    let mut bar = output::Bar::new(tool);
    let result = block(async {
        let mut c = Client::connect(&target, timeout).await?;
        let tools = with_timeout(&target.label(), timeout, async {
            Ok(c.list_all("tools/list", "tools").await?.0)
        })
        .await?;
        let Some(found) = tools
            .iter()
            .find(|t| t.get("name").and_then(Value::as_str) == Some(tool))
        else {
            let names: Vec<&str> = tools
                .iter()
                .filter_map(|t| t.get("name").and_then(Value::as_str))
                .collect();
            let names = if names.is_empty() {
                "none".to_string()
            } else {
                names.join(", ")
            };
            return Err(CliError::new(format!(
                "no tool named '{tool}' (tools: {names})"
            )));
        };
        let schema = found.get("inputSchema").cloned().unwrap_or(json!({}));
        let arguments = parse_arguments(pairs, a.args_json.as_deref(), &schema)?;
        // --timeout bounds the start and the listing; the call itself may run long.
        let params = json!({"name": tool, "arguments": arguments, "_meta": {"progressToken": 1}});
        let r = c
            .request("tools/call", params, &mut |p| bar.update(p))
            .await;
        bar.close();
        r.map_err(|e| CliError::new(format!("tools/call {tool} failed: {}", e.message())))
    })?;
    let (text, error) = output::render_result(&result, json);
    if !text.is_empty() {
        write_out(&text);
    }
    if let Some(error) = error {
        return Err(CliError::new(format!("tool {tool} returned an error: {error}")).into());
    }
    Ok(Outcome::Exit(0))
}

fn verify_cmd(
    a: VerifyArgs,
    command: Option<Vec<String>>,
    launchers: &Launchers,
) -> Result<Outcome, Failure> {
    let target = one_target("verify", a.target.as_deref(), command, launchers)?;
    let shown = a.pin.display().to_string();
    let pin = if a.write {
        if let Some(k) = &a.public_key {
            verify::public_key(k)?;
        }
        None
    } else {
        let text = std::fs::read_to_string(&a.pin)
            .map_err(|e| CliError::new(format!("cannot read the pin file {shown}: {e}")))?;
        Some(verify::parse_pin(&text, &shown)?)
    };
    let ClientFlags { json, timeout } = a.client;
    let (info, metas) = block(async {
        let mut c = Client::connect(&target, timeout).await?;
        with_timeout(&target.label(), timeout, listing(&mut c)).await
    })?;
    let current = verify::digests(&info)?;
    let counts = verify::KINDS
        .iter()
        .map(|(key, _, word)| {
            let n = current.get(key).map_or(0, |m| m.len());
            format!("{n} {word}{}", if n == 1 { "" } else { "s" })
        })
        .collect::<Vec<_>>()
        .join(", ");
    let Some(pin) = pin else {
        install::write_config(&a.pin, &verify::pin_text(&current, a.public_key.as_deref()))?;
        write_out(&format!("pinned {counts} in {shown}\n"));
        return Ok(Outcome::Exit(0));
    };
    let mut signature = Value::Null;
    if let Some(k) = &pin.public_key {
        let key = verify::public_key(k)?;
        for (method, meta) in &metas {
            if let Err(why) = verify::check_signature(meta, &key) {
                write_err(&CliError::new(format!("{method}: {why}")).text());
                return Err(Failure::Exit(EXIT_BAD_SIGNATURE));
            }
        }
        signature = json!("verified");
    }
    let diff = verify::compare(&pin.digests, &current);
    if json {
        let mut report = diff.to_json();
        report["signature"] = signature;
        write_out(&format!("{}\n", output::pretty(&report)));
    } else {
        let mut text = diff.to_text();
        if !text.is_empty() {
            text.push('\n');
        }
        if pin.public_key.is_some() {
            text.push_str("catalog signature verified\n");
        }
        if diff.is_empty() {
            text.push_str(&format!("unchanged: {counts} (pin {shown})\n"));
        } else {
            text.push_str(&format!(
                "changed: {} added, {} removed, {} changed (pin {shown})\n",
                diff.added.len(),
                diff.removed.len(),
                diff.changed.len()
            ));
        }
        write_out(&text);
    }
    Ok(Outcome::Exit(if diff.is_empty() {
        0
    } else {
        EXIT_CHANGED
    }))
}

#[cfg(test)]
mod tests;
