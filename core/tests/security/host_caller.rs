//! A caller the host framework authenticated (`HttpHandler::admit_as`): taken where the endpoint
//! has no auth of its own, never over the core's; the sessions it opens are its own.

use super::common::*;
use http::HeaderValue;
use oxmcp::transport::http::{HttpHandler, HttpRequest};
use oxmcp::Caller;

fn head(session: Option<&str>) -> http::HeaderMap {
    let mut h = http::HeaderMap::new();
    h.insert("content-type", HeaderValue::from_static("application/json"));
    h.insert(
        "accept",
        HeaderValue::from_static("application/json, text/event-stream"),
    );
    h.insert("host", HeaderValue::from_static("127.0.0.1"));
    if let Some(s) = session {
        h.insert("mcp-session-id", HeaderValue::from_str(s).unwrap());
    }
    h
}

/// One POST admitted as `host`: its status and `Mcp-Session-Id`.
async fn post(
    h: &HttpHandler,
    host: Option<&str>,
    session: Option<&str>,
    body: Value,
) -> (u16, Option<String>) {
    post_raw(h, host, session, serde_json::to_vec(&body).unwrap()).await
}

async fn post_raw(
    h: &HttpHandler,
    host: Option<&str>,
    session: Option<&str>,
    body: Vec<u8>,
) -> (u16, Option<String>) {
    let headers = head(session);
    let method = http::Method::POST;
    let caller = match h
        .admit_as(&method, "/mcp", &headers, None, host.map(Caller::new))
        .await
    {
        Ok(c) => c,
        Err(r) => return (r.status.as_u16(), None),
    };
    let req = HttpRequest {
        method,
        path: "/mcp".into(),
        headers,
        body: body.into(),
    };
    let r = h.serve(req, caller, None, "").await;
    let sid = r
        .headers
        .get("mcp-session-id")
        .map(|v| v.to_str().unwrap().to_string());
    (r.status.as_u16(), sid)
}

fn init() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
}

fn ping() -> Value {
    json!({"jsonrpc": "2.0", "id": 2, "method": "ping"})
}

#[tokio::test]
async fn a_host_caller_owns_the_sessions_it_opens() {
    let h = HttpHandler::new(demo_server(ServerOptions::default()), HttpConfig::mount());
    let (status, sid) = post(&h, Some("alice"), None, init()).await;
    assert_eq!(status, 200);
    let sid = sid.unwrap();
    assert_eq!(post(&h, Some("alice"), Some(&sid), ping()).await.0, 200);
    assert_eq!(post(&h, Some("bob"), Some(&sid), ping()).await.0, 404);
    assert_eq!(post(&h, None, Some(&sid), ping()).await.0, 404);
    // Another caller's session is not found whatever the body: its owner gets the body's 400.
    assert_eq!(post_raw(&h, Some("bob"), Some(&sid), vec![]).await.0, 404);
    assert_eq!(post_raw(&h, Some("alice"), Some(&sid), vec![]).await.0, 400);

    // An anonymous session is not an authenticated caller's to take either.
    let (_, anon) = post(&h, None, None, init()).await;
    let anon = anon.unwrap();
    assert_eq!(post(&h, Some("alice"), Some(&anon), ping()).await.0, 404);
    assert_eq!(post(&h, None, Some(&anon), ping()).await.0, 200);
}

#[tokio::test]
async fn the_core_auth_stands_over_a_host_caller() {
    let auth = Arc::new(Auth::new().tokens(tokens()));
    let h = HttpHandler::new(
        demo_server(ServerOptions::default()),
        HttpConfig::mount().auth(auth),
    );
    // No token: the core's 401, whatever the host says.
    assert_eq!(post(&h, Some("alice"), None, init()).await.0, 401);
}
