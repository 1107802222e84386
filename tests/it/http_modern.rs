//! 2026-07-28 over Streamable HTTP.

use crate::harness::*;
use serde_json::json;

#[tokio::test]
async fn discover_lists_every_version_and_carries_cache_hints() {
    let s = HttpServer::start("everything").await;
    let r = s.modern(json!(1), "server/discover", json!({})).await;
    assert_eq!(r.status, 200);
    let res = r.result();
    assert_eq!(res["resultType"], "complete");
    assert_eq!(res["supportedVersions"], json!(["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]));
    assert_eq!(res["ttlMs"], 0);
    assert_eq!(res["cacheScope"], "private");
    assert_eq!(res["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "oxmcp-everything");
    assert!(res["capabilities"]["tools"]["listChanged"].as_bool().unwrap());
}
