//! The content-addressed catalog over real HTTP: a definition's digest follows every change to
//! it, a caller's catalog digest covers only what it may see, the short "unchanged" answer to
//! `If-None-Match` and to `_meta`, and the signature over the catalog digest.

use super::common::*;
use base64::Engine;
use oxmcp::config::ServerConfig;
use oxmcp::server::catalog::{catalog_digest, verify_signature};

fn tool(name: &str, description: &str) -> Tool {
    Tool::new(name, json!({"type": "object"}))
        .description(description)
        .handler(|_a: Map<String, Value>, _c: Context| async {
            Ok::<_, ToolError>(ToolResult::text("ok"))
        })
}

fn digests(list: &Value) -> Vec<(String, String)> {
    list["result"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("no tools: {list}"))
        .iter()
        .map(|t| {
            let d = t["_meta"]["io.oxmcp/digest"].as_str().unwrap();
            assert!(d.starts_with("sha256:") && d.len() == 71, "{d}");
            (t["name"].as_str().unwrap().into(), d.into())
        })
        .collect()
}

fn catalog(list: &Value) -> String {
    list["result"]["_meta"]["io.oxmcp/catalogDigest"]
        .as_str()
        .unwrap_or_else(|| panic!("no catalog digest: {list}"))
        .into()
}

/// Alice may use the `pub_*` tools only.
fn auth() -> Arc<Auth> {
    Arc::new(
        Auth::new().tokens(
            NamedTokens::new()
                .token("alice", "alice-token")
                .allow("alice", Allow::none().tools(["pub_*"]))
                .token("root", "root-token"),
        ),
    )
}

#[tokio::test]
async fn digests_follow_changes_and_callers_see_their_own_catalog() {
    let s = Server::builder("cat", "1.0.0")
        .tool(tool("pub_a", "first"))
        .tool(tool("pub_b", "second"))
        .tool(tool("hidden", "not for alice"))
        .build()
        .unwrap();
    let run = serve(s.clone(), HttpConfig::new(loopback()).auth(auth())).await;
    let list = |t: &'static str| call(run.addr, Some(t), "tools/list", json!({}));

    let root = list("root-token").await.json();
    let all = digests(&root);
    assert_eq!(all.len(), 3);
    let whole = catalog(&root);
    assert_eq!(whole, catalog_digest(all.iter().map(|(_, d)| d.as_str())));

    // Alice's catalog is her two tools: another digest, and the hidden one's nowhere.
    let r = list("alice-token").await;
    let alice = r.json();
    let hidden = &all.iter().find(|(n, _)| n == "hidden").unwrap().1;
    assert!(!r.body.contains(hidden.as_str()), "{}", r.body);
    assert_eq!(digests(&alice), all[..2].to_vec());
    assert_ne!(catalog(&alice), whole);
    assert_eq!(
        catalog(&alice),
        catalog_digest(all[..2].iter().map(|(_, d)| d.as_str()))
    );

    // A changed description: that tool's digest and the catalog's change, the others' do not.
    s.upsert_tool(tool("pub_b", "second, changed")).unwrap();
    let after = list("root-token").await.json();
    let now = digests(&after);
    assert_eq!(now[0], all[0]);
    assert_ne!(now[1].1, all[1].1);
    assert_eq!(now[2], all[2]);
    assert_ne!(catalog(&after), whole);
    // And back: the same definition, the same digests.
    s.upsert_tool(tool("pub_b", "second")).unwrap();
    let back = list("root-token").await.json();
    assert_eq!(digests(&back), all);
    assert_eq!(catalog(&back), whole);
}

#[tokio::test]
async fn unchanged_answers_over_http() {
    let s = Server::builder("cat", "1.0.0")
        .tool(tool("a", "one"))
        .tool(tool("b", "two"))
        .build()
        .unwrap();
    let run = serve(s.clone(), HttpConfig::new(loopback())).await;
    let r = call(run.addr, None, "tools/list", json!({})).await;
    let digest = catalog(&r.json());
    assert_eq!(r.header("etag"), format!("\"{digest}\""));

    let unchanged = |v: &Value| {
        assert_eq!(v["result"]["tools"], json!([]), "{v}");
        assert_eq!(v["result"]["_meta"]["io.oxmcp/unchanged"], true, "{v}");
        assert_eq!(
            v["result"]["_meta"]["io.oxmcp/catalogDigest"],
            digest.as_str()
        );
        assert!(v["result"].get("nextCursor").is_none());
    };
    // The header, quoted as the ETag came (and among others, and weak).
    for tag in [
        format!("\"{digest}\""),
        format!("\"sha256:00\", W/\"{digest}\""),
    ] {
        let r = call_with(
            run.addr,
            None,
            "tools/list",
            json!({}),
            &[("if-none-match", &tag)],
        )
        .await;
        assert_eq!(r.status, 200);
        assert_eq!(r.header("etag"), format!("\"{digest}\""));
        unchanged(&r.json());
    }
    // `_meta` on the request.
    let p = json!({"_meta": {"io.oxmcp/ifNoneMatch": digest}});
    unchanged(&call(run.addr, None, "tools/list", p).await.json());
    // Another digest: the full list.
    let p = json!({"_meta": {"io.oxmcp/ifNoneMatch": "sha256:00"}});
    assert_eq!(
        digests(&call(run.addr, None, "tools/list", p).await.json()).len(),
        2
    );
    // After a change the old digest gets the list.
    s.add_tool(tool("c", "three")).unwrap();
    let p = json!({"_meta": {"io.oxmcp/ifNoneMatch": digest}});
    let v = call(run.addr, None, "tools/list", p).await.json();
    assert_eq!(digests(&v).len(), 3);
    assert!(v["result"]["_meta"].get("io.oxmcp/unchanged").is_none());

    // The other lists carry theirs too (and a resource's digest).
    s.add_resource(Resource::text("file:///a", "a", "text/plain", "A"))
        .unwrap();
    let v = call(run.addr, None, "resources/list", json!({}))
        .await
        .json();
    let d = v["result"]["resources"][0]["_meta"]["io.oxmcp/digest"]
        .as_str()
        .unwrap();
    assert_eq!(catalog_digest([d]), catalog(&v));
}

/// A PKCS#8 PEM of the Ed25519 key with this seed (what `openssl genpkey -algorithm ed25519`
/// writes: the fixed RFC 8410 prefix, then the 32 bytes).
fn pem(seed: [u8; 32]) -> String {
    let mut der = vec![
        0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04,
        0x20,
    ];
    der.extend_from_slice(&seed);
    let b64 = base64::engine::general_purpose::STANDARD.encode(der);
    format!("-----BEGIN PRIVATE KEY-----\n{b64}\n-----END PRIVATE KEY-----\n")
}

#[tokio::test]
async fn the_catalog_digest_is_signed() {
    let dir = std::env::temp_dir().join(format!("oxmcp-catalog-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let key = dir.join("catalog.pem");
    std::fs::write(&key, pem([9; 32])).unwrap();
    let config = json!({"name": "cat", "version": "1", "catalog_signing_key": key});
    let s = ServerConfig::from_json(config)
        .unwrap()
        .builder()
        .unwrap()
        .tool(tool("a", "one"))
        .build()
        .unwrap();
    let run = serve(s, HttpConfig::new(loopback())).await;
    let v = call(run.addr, None, "tools/list", json!({})).await.json();
    let meta = &v["result"]["_meta"];
    let (digest, sig, public) = (
        meta["io.oxmcp/catalogDigest"].as_str().unwrap(),
        meta["io.oxmcp/catalogSignature"].as_str().unwrap(),
        meta["io.oxmcp/catalogKey"].as_str().unwrap(),
    );
    assert!(public.starts_with("ed25519:") && sig.starts_with("ed25519:"));
    assert!(verify_signature(public, digest, sig));
    // A tampered digest (or another key) does not verify.
    let tampered = catalog_digest(["sha256:00"]);
    assert!(!verify_signature(public, &tampered, sig));
    let other = oxmcp::server::catalog::CatalogKey::from_bytes(&[8; 32]);
    assert!(!verify_signature(other.public_key(), digest, sig));

    // A bad key file stops the start, naming the file.
    let bad = dir.join("bad.pem");
    std::fs::write(&bad, "not a key").unwrap();
    for path in [bad.clone(), dir.join("missing.pem")] {
        let config = json!({"name": "cat", "version": "1", "catalogSigningKey": path});
        let Err(e) = ServerConfig::from_json(config) else {
            panic!("refused")
        };
        let text = e.to_string();
        assert!(
            text.contains("catalogSigningKey") && text.contains(&*path.to_string_lossy()),
            "{text}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

fn config_file(name: &str) -> Value {
    let path = format!("{}/../tests/config/{name}", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The shared fixture gives the digests in catalog-digests.json (Python and Node check the same
/// file). `OXMCP_WRITE_DIGESTS=1` writes the file from this server's answers instead.
#[tokio::test]
async fn the_shared_fixture_has_the_committed_digests() {
    let fixture = config_file("catalog-fixture.json");
    let mut b = Server::builder("fixture", "1.0.0");
    for t in fixture["tools"].as_array().unwrap() {
        let tool = Tool::from_definition(t.as_object().unwrap().clone()).unwrap();
        b = b.tool(tool.handler(|_a: Map<String, Value>, _c: Context| async {
            Ok::<_, ToolError>(ToolResult::text("ok"))
        }));
    }
    for r in fixture["resources"].as_array().unwrap() {
        let res = Resource::from_definition(r.as_object().unwrap().clone()).unwrap();
        b = b.resource(res.handler(
            |uri: String, _v: Map<String, Value>, _c: Context| async move {
                let c = oxmcp::ResourceContents::text(uri, "text/plain", "x");
                Ok::<_, ToolError>(vec![c])
            },
        ));
    }
    let run = serve(b.build().unwrap(), HttpConfig::new(loopback())).await;
    let mut got = Map::new();
    for (method, key) in [("tools/list", "tools"), ("resources/list", "resources")] {
        let v = call(run.addr, None, method, json!({})).await.json();
        let items: Map<String, Value> = v["result"][key]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| {
                let id = d.get("name").filter(|_| key == "tools").or(d.get("uri"));
                (
                    id.unwrap().as_str().unwrap().to_string(),
                    d["_meta"]["io.oxmcp/digest"].clone(),
                )
            })
            .collect();
        got.insert(
            key.into(),
            json!({"catalogDigest": catalog(&v), "items": items}),
        );
    }
    let got = Value::Object(got);
    let path = format!(
        "{}/../tests/config/catalog-digests.json",
        env!("CARGO_MANIFEST_DIR")
    );
    if std::env::var("OXMCP_WRITE_DIGESTS").as_deref() == Ok("1") {
        std::fs::write(&path, serde_json::to_string_pretty(&got).unwrap() + "\n").unwrap();
    }
    assert_eq!(got, config_file("catalog-digests.json"));
}
