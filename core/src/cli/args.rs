//! The `oxmcp` command's verbs, flags and help text: one clap definition that the Python and Node
//! commands share.

use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

#[derive(Parser, Debug)]
#[command(
    name = "oxmcp",
    about = "Run, inspect, call, verify and install MCP servers built with oxmcp.",
    subcommand_value_name = "COMMAND",
    arg_required_else_help = true,
    disable_version_flag = true
)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) verb: Verb,
}

#[derive(Subcommand, Debug)]
pub(crate) enum Verb {
    /// serve app.py[:server] (or app.mjs[:export]) over stdio or Streamable HTTP
    Run(RunArgs),
    /// serve over HTTP and restart when a file under the app's folder changes
    Dev(DevArgs),
    /// list a server's tools, resources, templates and prompts
    Inspect(InspectArgs),
    /// call a tool and print its result
    Call(CallArgs),
    /// compare a server's catalog with a pin file (digests, and the catalog signature)
    Verify(VerifyArgs),
    /// add the server to an MCP client's configuration
    Install(InstallArgs),
}

#[derive(Args, Debug)]
pub(crate) struct ServeFlags {
    /// serve Streamable HTTP on HOST:PORT
    #[arg(long, value_name = "HOST:PORT")]
    pub(crate) http: Option<String>,
    /// stdio (the default for run) or http (127.0.0.1:8000 unless --http says)
    #[arg(long, value_parser = ["stdio", "http", "streamable-http"])]
    pub(crate) transport: Option<String>,
    /// HTTP endpoint path
    #[arg(long, default_value = "/mcp")]
    pub(crate) path: String,
}

#[derive(Args, Debug)]
pub(crate) struct RunArgs {
    /// path/to/app.py[:server], a module[:server], or app.mjs[:export]
    pub(crate) target: String,
    #[command(flatten)]
    pub(crate) serve: ServeFlags,
    /// register what the package or directory marks (@oxmcp.tool, defineTool & co.; repeatable)
    #[arg(long, value_name = "PKG_OR_DIR")]
    pub(crate) discover: Vec<String>,
    /// a subpackage or directory name --discover skips (repeatable)
    #[arg(long, value_name = "NAME")]
    pub(crate) exclude: Vec<String>,
    /// serve HTTP on this Unix domain socket instead of a TCP port
    #[arg(long, value_name = "PATH")]
    pub(crate) uds: Option<String>,
    /// serve HTTPS: the certificate chain (PEM file), with --tls-key
    #[arg(long, value_name = "FILE")]
    pub(crate) tls_cert: Option<String>,
    /// serve HTTPS: the certificate's private key (PEM file), with --tls-cert
    #[arg(long, value_name = "FILE")]
    pub(crate) tls_key: Option<String>,
    /// The app's own command line, what follows `--` (split off before parsing, like the
    /// command of `inspect -- CMD`): a script or package that serves itself reads it as
    /// `python app.py ARGS` / `node app.mjs ARGS` would give it.
    #[arg(skip)]
    pub(crate) args: Vec<String>,
}

#[derive(Args, Debug)]
pub(crate) struct DevArgs {
    /// path/to/app.py[:server] or app.mjs[:export]
    pub(crate) target: String,
    #[command(flatten)]
    pub(crate) serve: ServeFlags,
}

#[derive(Args, Debug)]
pub(crate) struct ClientFlags {
    /// print JSON instead of text
    #[arg(long)]
    pub(crate) json: bool,
    /// seconds to wait for the server
    #[arg(long, default_value_t = 30.0, value_parser = positive_seconds)]
    pub(crate) timeout: f64,
}

#[derive(Args, Debug)]
pub(crate) struct InspectArgs {
    /// app.py[:server], app.mjs or an http(s):// URL; or -- CMD ARGS...
    pub(crate) target: Option<String>,
    #[command(flatten)]
    pub(crate) client: ClientFlags,
}

#[derive(Args, Debug)]
pub(crate) struct CallArgs {
    /// app.py[:server], app.mjs or an http(s):// URL (or -- CMD ARGS... TOOL), then the tool,
    /// then its arguments as KEY=VALUE (JSON values, or strings)
    #[arg(value_name = "TARGET TOOL KEY=VALUE")]
    pub(crate) words: Vec<String>,
    /// the arguments as one JSON object
    #[arg(long = "args", value_name = "JSON")]
    pub(crate) args_json: Option<String>,
    #[command(flatten)]
    pub(crate) client: ClientFlags,
}

#[derive(Args, Debug)]
pub(crate) struct VerifyArgs {
    /// an http(s):// URL, app.py or app.mjs; or -- CMD ARGS...
    pub(crate) target: Option<String>,
    /// the pin file: the digests of the tools, resources, templates and prompts (and a public key)
    #[arg(long, value_name = "FILE", required = true)]
    pub(crate) pin: PathBuf,
    /// write the pin file from the server's catalog instead of comparing
    #[arg(long)]
    pub(crate) write: bool,
    /// with --write: the key that signs the catalog (ed25519:<base64url>), kept in the pin
    #[arg(long, value_name = "KEY", requires = "write")]
    pub(crate) public_key: Option<String>,
    #[command(flatten)]
    pub(crate) client: ClientFlags,
}

#[derive(Args, Debug)]
pub(crate) struct InstallArgs {
    /// the MCP client whose configuration file gets the entry
    #[arg(value_parser = ["claude-code", "claude-desktop", "cursor", "vscode"])]
    pub(crate) client: String,
    /// app.py[:server] or app.mjs
    pub(crate) target: String,
    /// the entry's name (default: the file's stem)
    #[arg(long)]
    pub(crate) name: Option<String>,
    /// an environment variable (repeatable)
    #[arg(long, value_name = "KEY=VALUE")]
    pub(crate) env: Vec<String>,
    /// print the entry; write nothing
    #[arg(long = "print")]
    pub(crate) print_only: bool,
    /// the server listens on this Unix domain socket (refused: no client's config can name one)
    #[arg(long, value_name = "PATH")]
    pub(crate) uds: Option<String>,
}

fn positive_seconds(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v > 0.0 && v.is_finite() => Ok(v),
        _ => Err(format!("invalid float value: '{s}' (seconds, more than 0)")),
    }
}
