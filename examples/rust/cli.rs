//! The command line every example server shares: no argument serves stdio;
//! `--http HOST:PORT` serves Streamable HTTP at `/mcp`.

use oxmcp::config::Config;
use oxmcp::Server;

/// The options from the environment: `OXMCP_<OPTION>` for every option of the core's schema
/// (`OXMCP_PAGE_SIZE`, `OXMCP_MAX_BODY_BYTES`, `OXMCP_RATE_LIMIT`, ...) and the auth variables
/// (`OXMCP_TOKENS` / `OXMCP_TOKENS_FILE`, `OXMCP_JWKS_URL` with `OXMCP_JWT_ISSUER` and
/// `OXMCP_RESOURCE`, ...); see `oxmcp::config::Config::from_env`. Auth is off unless set.
pub(crate) fn config() -> Result<Config, Box<dyn std::error::Error>> {
    Ok(Config::from_env()?)
}

pub(crate) async fn run(server: Server) -> Result<(), Box<dyn std::error::Error>> {
    // stdout is the stdio transport: logs go to stderr only. The core's set-up, as the Python
    // and Node servers install it: `OXMCP_LOG`, `OXMCP_LOG_FORMAT=json` (the audit record on
    // target `oxmcp::audit`, with the request span), request-derived fields escaped.
    let _telemetry = oxmcp::logging::init_from_env("oxmcp-example");
    let listen = config()?.listen;
    let args: Vec<String> = std::env::args().skip(1).collect();
    let shutdown = async {
        let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
            .expect("SIGTERM handler");
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = term.recv() => {}
        }
    };
    match args.iter().position(|a| a == "--http") {
        Some(i) => {
            let addr = args.get(i + 1).ok_or("--http needs HOST:PORT")?.parse()?;
            let http =
                oxmcp::transport::http_server::HttpServer::bind(server, listen.http_config(addr)?)
                    .await?;
            eprintln!("listening on http://{}/mcp", http.local_addr());
            http.serve(shutdown).await?;
        }
        None => {
            // The line limit (4 MiB by default); the tests set a small one (OXMCP_MAX_LINE_BYTES).
            let config = listen.stdio_config();
            use oxmcp::transport::stdio;
            stdio::serve_io(server, stdio::stdin()?, stdio::stdout()?, config, shutdown).await?
        }
    }
    Ok(())
}
