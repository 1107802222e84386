//! The command line every example server shares: no argument serves stdio;
//! `--http HOST:PORT` serves Streamable HTTP at `/mcp`.

use oxmcp::transport::http::HttpConfig;
use oxmcp::Server;

pub(crate) async fn run(server: Server) -> Result<(), Box<dyn std::error::Error>> {
    // stdout is the stdio transport: logs go to stderr only. The core's set-up, as the Python
    // and Node servers install it: `OXMCP_LOG`, `OXMCP_LOG_FORMAT=json` (the audit record on
    // target `oxmcp::audit`, with the request span), request-derived fields escaped.
    let _telemetry = oxmcp::logging::init_from_env("oxmcp-example");
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
                oxmcp::transport::http_server::HttpServer::bind(server, http_config(addr)?).await?;
            eprintln!("listening on http://{}/mcp", http.local_addr());
            http.serve(shutdown).await?;
        }
        None => {
            let mut config = oxmcp::transport::stdio::StdioConfig::default();
            // The line limit (4 MiB by default); the tests set a small one.
            if let Some(n) = std::env::var("OXMCP_MAX_LINE")
                .ok()
                .and_then(|v| v.trim().parse().ok())
            {
                config.max_line = n;
            }
            oxmcp::transport::stdio::serve_io(
                server,
                std::io::stdin(),
                std::io::stdout(),
                config,
                shutdown,
            )
            .await?
        }
    }
    Ok(())
}

/// Security settings from the environment (auth is off unless one of these is set):
/// `OXMCP_TOKENS` / `OXMCP_TOKENS_FILE` (named bearer tokens), `OXMCP_JWKS_URL` with
/// `OXMCP_JWT_ISSUER` and `OXMCP_RESOURCE` (OAuth JWTs; `OXMCP_AUTH_SERVERS`, `OXMCP_SCOPES`
/// for the RFC 9728 document), `OXMCP_RATE_LIMIT` (requests per second per caller),
/// `OXMCP_ALLOWED_HOSTS` / `OXMCP_ALLOW_ANY_HOST` (the DNS-rebinding guard off loopback).
fn http_config(addr: std::net::SocketAddr) -> Result<HttpConfig, Box<dyn std::error::Error>> {
    let mut config = HttpConfig::new(addr);
    // `OXMCP_ALLOWED_HOSTS` (comma-separated Host names): needed to bind a non-loopback address;
    // `OXMCP_ALLOW_ANY_HOST=1` opts out of the Host check instead (a proxy checks it).
    if let Ok(h) = std::env::var("OXMCP_ALLOWED_HOSTS") {
        config = config.allowed_hosts(
            h.split(',')
                .map(str::trim)
                .filter(|h| !h.is_empty())
                .map(String::from)
                .collect(),
        );
    }
    if std::env::var("OXMCP_ALLOW_ANY_HOST").is_ok_and(|v| v == "1" || v == "true") {
        config = config.allow_any_host(true);
    }
    if let Some(auth) = oxmcp::auth::Auth::from_env()? {
        config = config.auth(std::sync::Arc::new(auth));
    }
    if let Some(rate) = std::env::var("OXMCP_RATE_LIMIT")
        .ok()
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|r| *r > 0.0)
    {
        config = config.rate_limit(oxmcp::limits::RateLimit::per_second(
            rate,
            rate.ceil() as u32,
        ));
    }
    Ok(config)
}
