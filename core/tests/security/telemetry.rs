//! Tracing: `_meta.traceparent` continues the trace; auth forces private cache hints.

use super::common::*;

#[tokio::test]
async fn traceparent_from_meta_continues_the_trace() {
    let _serial = serial().await;
    let cap = Capture::default();
    let _g = tracing::subscriber::set_default(cap.subscriber());
    let s = serve(
        demo_server(ServerOptions::default()),
        HttpConfig::new(loopback()),
    )
    .await;
    let tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    let r = call(
        s.addr,
        None,
        "tools/call",
        json!({"name":"echo","arguments":{},"_meta":{"traceparent": tp, "tracestate": "vendor=x"}}),
    )
    .await;
    assert_eq!(r.status, 200);
    let audit = cap
        .lines()
        .into_iter()
        .find(|l| l["fields"]["name"] == "echo")
        .expect("audit record");
    let span = audit["spans"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "mcp.request")
        .expect("inside the request span")
        .clone();
    assert_eq!(span["trace_id"], "4bf92f3577b34da6a3ce929d0e0e4736");
    assert_eq!(span["parent_span_id"], "00f067aa0ba902b7");
    assert_eq!(span["tracestate"], "vendor=x");
    assert_eq!(span["method"], "tools/call");
    assert_eq!(span["span_id"].as_str().unwrap().len(), 16);
    assert_ne!(span["span_id"], "00f067aa0ba902b7");
}

#[tokio::test]
async fn auth_forces_private_cache_hints() {
    let _serial = serial().await;
    let mut o = ServerOptions::default();
    o.cache_default = oxmcp::CacheHint {
        ttl_ms: 1000,
        scope: oxmcp::CacheScope::Public,
    };
    let open = serve(demo_server(o.clone()), HttpConfig::new(loopback())).await;
    assert_eq!(
        call(open.addr, None, "tools/list", json!({})).await.json()["result"]["cacheScope"],
        "public"
    );
    let s = serve(
        demo_server(o),
        HttpConfig::new(loopback()).auth(Arc::new(Auth::new().tokens(tokens()))),
    )
    .await;
    assert_eq!(
        call(s.addr, Some("bob-token"), "tools/list", json!({}))
            .await
            .json()["result"]["cacheScope"],
        "private"
    );
}
