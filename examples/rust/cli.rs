//! The command line every example server shares: no argument serves stdio;
//! `--http HOST:PORT` serves Streamable HTTP at `/mcp`.

use oxmcp::transport::http::HttpConfig;
use oxmcp::Server;

pub(crate) async fn run(server: Server) -> Result<(), Box<dyn std::error::Error>> {
    // stdout is the stdio transport: logs go to stderr only.
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(tracing_subscriber::EnvFilter::try_from_env("OXMCP_LOG").unwrap_or_else(|_| "warn".into()))
        .init();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let shutdown = async {
        let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).expect("SIGTERM handler");
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = term.recv() => {}
        }
    };
    match args.iter().position(|a| a == "--http") {
        Some(i) => {
            let addr = args.get(i + 1).ok_or("--http needs HOST:PORT")?.parse()?;
            let http = oxmcp::transport::http_server::HttpServer::bind(server, HttpConfig::new(addr)).await?;
            eprintln!("listening on http://{}/mcp", http.local_addr());
            http.serve(shutdown).await?;
        }
        None => oxmcp::transport::stdio::serve(server, shutdown).await?,
    }
    Ok(())
}
