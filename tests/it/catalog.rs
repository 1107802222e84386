//! The content-addressed catalog through the example server: the same digests from two starts
//! (and with lists paged), the short "unchanged" answer over legacy HTTP and over stdio.

use crate::harness::*;
use serde_json::{json, Value};
use std::time::Duration;

fn catalog(result: &Value) -> String {
    result["_meta"]["io.oxmcp/catalogDigest"]
        .as_str()
        .unwrap_or_else(|| panic!("no catalog digest: {result}"))
        .to_string()
}

fn digests(result: &Value, key: &str) -> Vec<(String, String)> {
    result[key]
        .as_array()
        .unwrap_or_else(|| panic!("no {key}: {result}"))
        .iter()
        .map(|t| {
            let name = t.get("name").or_else(|| t.get("uri")).unwrap();
            let d = t["_meta"]["io.oxmcp/digest"].as_str().unwrap();
            (name.as_str().unwrap().to_string(), d.to_string())
        })
        .collect()
}

/// Every page of `method` (modern), and the catalog digest each page carried.
async fn all_pages(
    s: &HttpServer,
    method: &str,
    key: &str,
) -> (Vec<(String, String)>, Vec<String>) {
    let (mut items, mut stamps, mut cursor) = (Vec::new(), Vec::new(), None::<String>);
    loop {
        let params = match &cursor {
            Some(c) => json!({"cursor": c}),
            None => json!({}),
        };
        let r = s.modern(json!(1), method, params).await.result();
        items.extend(digests(&r, key));
        stamps.push(catalog(&r));
        match r["nextCursor"].as_str() {
            Some(c) => cursor = Some(c.to_string()),
            None => return (items, stamps),
        }
    }
}

#[tokio::test]
async fn the_same_digests_from_two_starts_and_from_every_page() {
    let mut runs = Vec::new();
    for page_size in ["100", "3"] {
        let s = HttpServer::start_with("everything", &[("OXMCP_PAGE_SIZE", page_size)]).await;
        let mut run = Vec::new();
        for (method, key) in [
            ("tools/list", "tools"),
            ("resources/list", "resources"),
            ("prompts/list", "prompts"),
        ] {
            let (items, stamps) = all_pages(&s, method, key).await;
            assert!(!items.is_empty(), "{method}");
            // Every page carries the digest of the whole list.
            assert!(
                stamps.iter().all(|d| d == &stamps[0]),
                "{method}: {stamps:?}"
            );
            run.push((items, stamps[0].clone()));
        }
        runs.push(run);
    }
    assert_eq!(runs[0], runs[1]);
}

#[tokio::test]
async fn unchanged_over_legacy_http() {
    let s = HttpServer::start("everything").await;
    let l = s.initialize("2025-11-25", json!({})).await;
    let r = l.call(json!(1), "tools/list", json!({})).await;
    let digest = catalog(&r.result());
    let etag = r.headers.get("etag").unwrap().to_str().unwrap();
    assert_eq!(etag, format!("\"{digest}\""));
    let r = l
        .call(
            json!(2),
            "tools/list",
            json!({"_meta": {"io.oxmcp/ifNoneMatch": digest}}),
        )
        .await
        .result();
    assert_eq!(r["tools"], json!([]));
    assert_eq!(r["_meta"]["io.oxmcp/unchanged"], true);
    assert_eq!(catalog(&r), digest);
}

#[tokio::test]
async fn unchanged_over_stdio() {
    let mut s = StdioServer::start("everything");
    let list = |id: i64, held: Option<&str>| {
        let mut p = modern_params(json!({}), json!({}));
        if let Some(d) = held {
            p["_meta"]["io.oxmcp/ifNoneMatch"] = json!(d);
        }
        json!({"jsonrpc": "2.0", "id": id, "method": "prompts/list", "params": p})
    };
    s.send(&list(1, None)).await;
    let (r, _) = s.recv_response(&json!(1)).await;
    let full = r["result"].clone();
    let digest = catalog(&full);
    assert!(!digests(&full, "prompts").is_empty());
    s.send(&list(2, Some(&digest))).await;
    let (r, _) = s.recv_response(&json!(2)).await;
    assert_eq!(r["result"]["prompts"], json!([]), "{r}");
    assert_eq!(r["result"]["_meta"]["io.oxmcp/unchanged"], true);
    assert_eq!(catalog(&r["result"]), digest);
    s.send(&list(3, Some("sha256:00"))).await;
    let (r, _) = s.recv_response(&json!(3)).await;
    assert_eq!(r["result"], full);
    let status = s.eof_exit(Duration::from_secs(10)).await;
    assert_eq!(status.code(), Some(0));
}
