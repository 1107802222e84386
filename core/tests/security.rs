//! Security over real HTTP on 127.0.0.1: named tokens, allow-lists, OAuth (RFC 9728, JWT
//! against a JWKS the test serves itself on loopback), challenges, limits, audit, tracing.

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use jsonwebtoken::{EncodingKey, Header};
use oxmcp::auth::{Allow, Auth, JwtValidator, NamedTokens, ProtectedResource};
use oxmcp::limits::RateLimit;
use oxmcp::transport::http::HttpConfig;
use oxmcp::transport::http_server::HttpServer;
use oxmcp::{
    Context, Prompt, PromptResult, Resource, Server, ServerOptions, Tool, ToolError, ToolResult,
};
use serde_json::{json, Map, Value};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

const MODERN: &str = "2026-07-28";

/// The tests run one at a time: several capture the audit record with a thread-scoped
/// subscriber, and tracing's callsite-interest cache can miss an event when another thread
/// registers the same callsite at that moment.
fn serial() -> std::sync::MutexGuard<'static, ()> {
    static SERIAL: Mutex<()> = Mutex::new(());
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

// ---- a tiny client ---------------------------------------------------------------------

struct Resp {
    status: u16,
    headers: http::HeaderMap,
    body: String,
}

impl Resp {
    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body))
    }
    fn header(&self, k: &str) -> &str {
        self.headers
            .get(k)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
    }
}

async fn request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Vec<u8>,
) -> Resp {
    let stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let (mut sender, conn) =
        hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream))
            .await
            .unwrap();
    tokio::spawn(conn);
    let mut b = hyper::Request::builder()
        .method(method)
        .uri(path)
        .header("host", addr.to_string());
    for (k, v) in headers {
        b = b.header(*k, *v);
    }
    let resp = sender
        .send_request(b.body(Full::new(Bytes::from(body))).unwrap())
        .await
        .unwrap();
    let status = resp.status().as_u16();
    let headers = resp.headers().clone();
    let body = resp.into_body().collect().await.unwrap().to_bytes();
    Resp {
        status,
        headers,
        body: String::from_utf8_lossy(&body).into_owned(),
    }
}

/// A modern request with correct headers, and a bearer token when given.
async fn call(addr: SocketAddr, token: Option<&str>, method: &str, mut params: Value) -> Resp {
    let meta = params
        .as_object_mut()
        .unwrap()
        .entry("_meta")
        .or_insert_with(|| json!({}));
    meta["io.modelcontextprotocol/protocolVersion"] = json!(MODERN);
    meta["io.modelcontextprotocol/clientCapabilities"] = json!({});
    let name = params
        .get("name")
        .or_else(|| params.get("uri"))
        .and_then(Value::as_str)
        .map(str::to_string);
    let body = json!({"jsonrpc":"2.0","id":1,"method":method,"params":params}).to_string();
    let auth = token.map(|t| format!("Bearer {t}"));
    let mut h = vec![
        ("content-type", "application/json"),
        ("accept", "application/json, text/event-stream"),
        ("mcp-protocol-version", MODERN),
        ("mcp-method", method),
    ];
    if let Some(n) = name.as_deref() {
        h.push(("mcp-name", n));
    }
    if let Some(a) = auth.as_deref() {
        h.push(("authorization", a));
    }
    request(addr, "POST", "/mcp", &h, body.into_bytes()).await
}

async fn tool_call(addr: SocketAddr, token: Option<&str>, name: &str) -> Resp {
    call(
        addr,
        token,
        "tools/call",
        json!({"name": name, "arguments": {}}),
    )
    .await
}

fn tool_names(r: &Resp) -> Vec<String> {
    let v = r.json();
    v["result"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("no tools in {v}"))
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect()
}

// ---- servers -------------------------------------------------------------------------------

fn echo(name: &str) -> Tool {
    let n = name.to_string();
    Tool::new(name, json!({"type":"object"})).handler(
        move |_a: Map<String, Value>, ctx: Context| {
            let text = format!("{n} for {}", ctx.caller().map_or("-", |c| c.name.as_str()));
            async move { Ok::<_, ToolError>(ToolResult::text(text)) }
        },
    )
}

fn demo_server(options: ServerOptions) -> Server {
    Server::builder("sec", "1.0.0")
        .options(options)
        .tool(echo("echo"))
        .tool(echo("whoami"))
        .tool(echo("secret"))
        .tool(echo("write_file").required_scopes(["files:write"]))
        .resource(Resource::text("file:///docs/a.md", "a", "text/plain", "A"))
        .resource(Resource::text(
            "file:///etc/passwd",
            "p",
            "text/plain",
            "root",
        ))
        .prompt(
            Prompt::new("greet").handler(|_a: Map<String, Value>, _c: Context| async {
                Ok::<_, ToolError>(PromptResult::new(vec![]))
            }),
        )
        .prompt(
            Prompt::new("admin").handler(|_a: Map<String, Value>, _c: Context| async {
                Ok::<_, ToolError>(PromptResult::new(vec![]))
            }),
        )
        .build()
        .unwrap()
}

struct Running {
    addr: SocketAddr,
    _stop: tokio::sync::oneshot::Sender<()>,
}

async fn serve(server: Server, config: HttpConfig) -> Running {
    let http = HttpServer::bind(server, config).await.unwrap();
    let addr = http.local_addr();
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(http.serve(async move {
        let _ = rx.await;
    }));
    Running { addr, _stop: tx }
}

fn loopback() -> SocketAddr {
    "127.0.0.1:0".parse().unwrap()
}

fn tokens() -> NamedTokens {
    NamedTokens::new()
        .token("alice", "alice-old")
        .token("alice", "alice-new")
        .allow(
            "alice",
            Allow::none()
                .tools(["echo", "whoami", "write_file"])
                .resources(["file:///docs/*"])
                .prompts(["greet"]),
        )
        .token("bob", "bob-token")
        .scopes("bob", ["files"])
}

// ---- audit capture -------------------------------------------------------------------------

#[derive(Clone, Default)]
struct Capture(Arc<Mutex<Vec<u8>>>);
impl std::io::Write for Capture {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
impl Capture {
    fn lines(&self) -> Vec<Value> {
        String::from_utf8_lossy(&self.0.lock().unwrap())
            .lines()
            .map(|l| serde_json::from_str(l).expect("a JSON line"))
            .collect()
    }
    /// JSON lines, as the example servers write them with `OXMCP_LOG_FORMAT=json`.
    fn subscriber(&self) -> impl tracing::Subscriber + Send + Sync {
        let c = self.clone();
        tracing_subscriber::fmt()
            .json()
            .with_span_list(true)
            .with_current_span(false)
            .with_env_filter("oxmcp::audit=info,oxmcp::request=info")
            .with_writer(move || c.clone())
            .finish()
    }
}

// ---- named tokens --------------------------------------------------------------------------

#[tokio::test]
async fn tokens_accepted_refused_and_rotated() {
    let _serial = serial();
    let auth = Arc::new(Auth::new().tokens(tokens()));
    let s = serve(
        demo_server(ServerOptions::default()),
        HttpConfig::new(loopback()).auth(auth.clone()),
    )
    .await;

    let r = call(s.addr, None, "tools/list", json!({})).await;
    assert_eq!(r.status, 401);
    assert_eq!(r.header("www-authenticate"), "Bearer");
    assert_eq!(r.json()["error"], "unauthorized");

    let r = call(s.addr, Some("wrong"), "tools/list", json!({})).await;
    assert_eq!(r.status, 401);
    assert_eq!(
        r.header("www-authenticate"),
        r#"Bearer error="invalid_token""#
    );
    assert_eq!(r.json()["error"], "invalid_token");

    let r = request(
        s.addr,
        "POST",
        "/mcp",
        &[("authorization", "Basic YWxpY2U6eA==")],
        b"{}".to_vec(),
    )
    .await;
    assert_eq!(r.status, 401, "another scheme is no bearer token");

    for t in ["alice-old", "alice-new", "bob-token"] {
        assert_eq!(
            call(s.addr, Some(t), "tools/list", json!({})).await.status,
            200,
            "{t}"
        );
    }
    // Rotation: drop the old token while serving; the new one keeps working.
    auth.replace_tokens(
        NamedTokens::new()
            .token("alice", "alice-new")
            .token("bob", "bob-token"),
    );
    assert_eq!(
        call(s.addr, Some("alice-old"), "tools/list", json!({}))
            .await
            .status,
        401
    );
    assert_eq!(
        call(s.addr, Some("alice-new"), "tools/list", json!({}))
            .await
            .status,
        200
    );
    // Health stays open.
    assert_eq!(
        request(s.addr, "GET", "/healthz", &[], vec![]).await.status,
        200
    );
}

#[tokio::test]
async fn allow_lists_filter_lists_and_refuse_like_unknown() {
    let _serial = serial();
    let s = serve(
        demo_server(ServerOptions::default()),
        HttpConfig::new(loopback()).auth(Arc::new(Auth::new().tokens(tokens()))),
    )
    .await;
    let alice = Some("alice-new");
    let bob = Some("bob-token");

    let r = call(s.addr, alice, "tools/list", json!({})).await;
    assert_eq!(tool_names(&r), vec!["echo", "whoami", "write_file"]);
    assert_eq!(
        r.json()["result"]["cacheScope"],
        "private",
        "lists differ per caller"
    );
    assert_eq!(
        tool_names(&call(s.addr, bob, "tools/list", json!({})).await),
        vec!["echo", "whoami", "secret", "write_file"]
    );

    // A refused tool answers exactly as an unknown one does.
    let refused = tool_call(s.addr, alice, "secret").await;
    let unknown = tool_call(s.addr, alice, "nope").await;
    assert_eq!(refused.status, unknown.status);
    assert_eq!(
        refused.json()["error"]["code"],
        unknown.json()["error"]["code"]
    );
    assert_eq!(refused.json()["error"]["message"], "Unknown tool: secret");
    assert_eq!(unknown.json()["error"]["message"], "Unknown tool: nope");
    assert_eq!(
        tool_call(s.addr, bob, "secret").await.json()["result"]["content"][0]["text"],
        "secret for bob"
    );

    let r = call(s.addr, alice, "resources/list", json!({})).await;
    let v = r.json();
    let uris: Vec<&str> = v["result"]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["uri"].as_str().unwrap())
        .collect();
    assert_eq!(uris, vec!["file:///docs/a.md"]);
    let refused = call(
        s.addr,
        alice,
        "resources/read",
        json!({"uri": "file:///etc/passwd"}),
    )
    .await
    .json();
    let unknown = call(
        s.addr,
        alice,
        "resources/read",
        json!({"uri": "file:///nope"}),
    )
    .await
    .json();
    assert_eq!(refused["error"]["code"], unknown["error"]["code"]);
    assert_eq!(refused["error"]["message"], unknown["error"]["message"]);
    assert_eq!(
        call(
            s.addr,
            alice,
            "resources/read",
            json!({"uri": "file:///docs/a.md"})
        )
        .await
        .json()["result"]["contents"][0]["text"],
        "A"
    );

    let r = call(s.addr, alice, "prompts/list", json!({})).await.json();
    assert_eq!(r["result"]["prompts"].as_array().unwrap().len(), 1);
    let refused = call(s.addr, alice, "prompts/get", json!({"name": "admin"}))
        .await
        .json();
    assert_eq!(refused["error"]["message"], "Unknown prompt: admin");
}

#[tokio::test]
async fn caller_reaches_handler_and_audit_record() {
    let _serial = serial();
    let cap = Capture::default();
    let _g = tracing::subscriber::set_default(cap.subscriber());
    let s = serve(
        demo_server(ServerOptions::default()),
        HttpConfig::new(loopback()).auth(Arc::new(Auth::new().tokens(tokens()))),
    )
    .await;
    let r = tool_call(s.addr, Some("alice-old"), "whoami").await;
    assert_eq!(r.json()["result"]["content"][0]["text"], "whoami for alice");
    let _ = tool_call(s.addr, Some("alice-old"), "secret").await;
    let _ = call(s.addr, None, "tools/list", json!({})).await;

    let lines = cap.lines();
    let calls: Vec<&Value> = lines
        .iter()
        .filter(|l| l["target"] == "oxmcp::audit" && l["fields"]["message"] == "call")
        .collect();
    let ok = calls
        .iter()
        .find(|l| l["fields"]["name"] == "whoami")
        .expect("an audit record for whoami");
    let f = &ok["fields"];
    assert_eq!(f["caller"], "alice");
    assert_eq!(f["method"], "tools/call");
    assert_eq!(f["outcome"], "ok");
    assert_eq!(f["transport"], "Http");
    assert!(f["duration_us"].as_u64().is_some());
    assert!(f["result_bytes"].as_u64().unwrap() > 20);
    assert_eq!(ok["level"], "INFO");

    let denied = &calls
        .iter()
        .find(|l| l["fields"]["name"] == "secret")
        .expect("refusals are audited")["fields"];
    assert_eq!(denied["outcome"], "error");
    assert_eq!(denied["error_class"], "denied");
    assert_eq!(denied["error_code"], -32602);

    assert!(lines
        .iter()
        .any(|l| l["target"] == "oxmcp::audit" && l["fields"]["outcome"] == "unauthorized"));
}

// ---- OAuth resource server ---------------------------------------------------------------

const RESOURCE: &str = "https://mcp.example.com/mcp";
const ISSUER: &str = "https://auth.example.com";
const META_URL: &str = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp";

fn protected() -> ProtectedResource {
    ProtectedResource::new(RESOURCE, [ISSUER])
        .scopes(["mcp:tools"])
        .name("sec test")
}

#[tokio::test]
async fn rfc9728_document_and_challenges() {
    let _serial = serial();
    let auth = Auth::new().tokens(tokens()).resource(protected());
    let s = serve(
        demo_server(ServerOptions::default()),
        HttpConfig::new(loopback()).auth(Arc::new(auth)),
    )
    .await;

    for path in [
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-protected-resource",
    ] {
        let r = request(s.addr, "GET", path, &[], vec![]).await;
        assert_eq!(r.status, 200, "{path}");
        assert_eq!(r.header("content-type"), "application/json");
        assert_eq!(r.header("access-control-allow-origin"), "*");
        assert_eq!(
            r.json(),
            json!({"resource": RESOURCE, "authorization_servers": [ISSUER], "scopes_supported": ["mcp:tools"],
                   "bearer_methods_supported": ["header"], "resource_name": "sec test"})
        );
    }
    assert_eq!(
        request(
            s.addr,
            "GET",
            "/.well-known/oauth-protected-resource/other",
            &[],
            vec![]
        )
        .await
        .status,
        404
    );

    let r = call(s.addr, None, "tools/list", json!({})).await;
    assert_eq!(r.status, 401);
    assert_eq!(
        r.header("www-authenticate"),
        format!(r#"Bearer resource_metadata="{META_URL}", scope="mcp:tools""#)
    );
    let r = call(s.addr, Some("expired-or-garbage"), "tools/list", json!({})).await;
    assert_eq!(
        r.header("www-authenticate"),
        format!(
            r#"Bearer error="invalid_token", resource_metadata="{META_URL}", scope="mcp:tools""#
        )
    );

    // alice holds no scope: step-up 403 naming what the tool needs.
    let r = tool_call(s.addr, Some("alice-new"), "write_file").await;
    assert_eq!(r.status, 403);
    assert_eq!(
        r.header("www-authenticate"),
        format!(
            r#"Bearer error="insufficient_scope", scope="files:write", resource_metadata="{META_URL}", error_description="This operation needs the scope files:write""#
        )
    );
    assert_eq!(r.json()["error"]["code"], oxmcp::auth::INSUFFICIENT_SCOPE.0);
    assert_eq!(
        r.json()["error"]["data"]["requiredScopes"],
        json!(["files:write"])
    );
    // bob holds `files`, which covers `files:write` (scope hierarchy).
    let r = tool_call(s.addr, Some("bob-token"), "write_file").await;
    assert_eq!(r.status, 200);
    assert_eq!(
        r.json()["result"]["content"][0]["text"],
        "write_file for bob"
    );
}

// Two Ed25519 keys (PKCS#8 DER) and their public `x`, made with openssl for this test.
const K1_DER: &str = "MC4CAQAwBQYDK2VwBCIEINQCNTY+Xma589AswchsU8heQpShw7deOgGHPWEAmSNa";
const K1_X: &str = "PS76keOT5raJUsf6dbuptXkEbCQMhuj4y52GvxZXYd4";
const K2_DER: &str = "MC4CAQAwBQYDK2VwBCIEIOEsNTcR98nPN1iYfrO5B6Vm+sCXjgzUPhGaV1RUuBfI";
const K2_X: &str = "VlHtyDHODCHzyDVogIIKxZJ1HQ6hgfmUcw9zIL6QPps";

fn jwk(kid: &str, x: &str) -> Value {
    json!({"kty":"OKP","crv":"Ed25519","use":"sig","alg":"EdDSA","kid":kid,"x":x})
}

fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

fn sign(der_b64: &str, kid: &str, claims: Value) -> String {
    use base64::Engine;
    let der = base64::engine::general_purpose::STANDARD
        .decode(der_b64)
        .unwrap();
    let mut h = Header::new(jsonwebtoken::Algorithm::EdDSA);
    h.kid = Some(kid.into());
    jsonwebtoken::encode(&h, &claims, &EncodingKey::from_ed_der(&der)).unwrap()
}

fn claims(extra: Value) -> Value {
    let mut c = json!({"iss": ISSUER, "aud": RESOURCE, "sub": "carol", "exp": now() + 300, "iat": now(), "scope": "mcp:tools files:write"});
    for (k, v) in extra.as_object().unwrap() {
        c[k] = v.clone();
    }
    c
}

/// A JWKS endpoint on loopback whose key set the test can swap (rotation), counting fetches.
async fn jwks_server(keys: Arc<Mutex<Value>>, fetches: Arc<AtomicUsize>) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                return;
            };
            let (keys, fetches) = (keys.clone(), fetches.clone());
            tokio::spawn(async move {
                let svc = hyper::service::service_fn(
                    move |_req: hyper::Request<hyper::body::Incoming>| {
                        fetches.fetch_add(1, Ordering::SeqCst);
                        let body = keys.lock().unwrap().to_string();
                        async move {
                            Ok::<_, std::convert::Infallible>(hyper::Response::new(Full::new(
                                Bytes::from(body),
                            )))
                        }
                    },
                );
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(hyper_util::rt::TokioIo::new(stream), svc)
                    .await;
            });
        }
    });
    addr
}

#[tokio::test]
async fn jwt_validation_against_a_served_jwks() {
    let _serial = serial();
    let keys = Arc::new(Mutex::new(json!({"keys": [jwk("k1", K1_X)]})));
    let fetches = Arc::new(AtomicUsize::new(0));
    let jwks = jwks_server(keys.clone(), fetches.clone()).await;
    let validator =
        JwtValidator::with_jwks_url(ISSUER, RESOURCE, format!("http://{jwks}/jwks.json"))
            .leeway(Duration::from_secs(5))
            .cache(Duration::from_secs(300), Duration::ZERO);
    let auth = Auth::new().jwt(validator).resource(protected());
    let s = serve(
        demo_server(ServerOptions::default()),
        HttpConfig::new(loopback()).auth(Arc::new(auth)),
    )
    .await;

    let good = sign(K1_DER, "k1", claims(json!({})));
    let r = tool_call(s.addr, Some(&good), "whoami").await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["result"]["content"][0]["text"], "whoami for carol");
    assert_eq!(
        tool_call(s.addr, Some(&good), "write_file").await.status,
        200,
        "scope from the token"
    );
    assert_eq!(fetches.load(Ordering::SeqCst), 1, "keys are cached");

    let invalid = format!(
        r#"Bearer error="invalid_token", resource_metadata="{META_URL}", scope="mcp:tools""#
    );
    let cases = [
        (
            "expired",
            sign(K1_DER, "k1", claims(json!({"exp": now() - 60}))),
        ),
        (
            "not yet valid",
            sign(K1_DER, "k1", claims(json!({"nbf": now() + 120}))),
        ),
        (
            "wrong audience",
            sign(
                K1_DER,
                "k1",
                claims(json!({"aud": "https://other.example.com/mcp"})),
            ),
        ),
        (
            "wrong issuer",
            sign(
                K1_DER,
                "k1",
                claims(json!({"iss": "https://evil.example.com"})),
            ),
        ),
        ("bad signature", sign(K2_DER, "k1", claims(json!({})))),
        ("unknown key", sign(K2_DER, "k2", claims(json!({})))),
        (
            "no exp",
            sign(
                K1_DER,
                "k1",
                json!({"iss": ISSUER, "aud": RESOURCE, "sub": "x"}),
            ),
        ),
    ];
    for (what, token) in &cases {
        let r = tool_call(s.addr, Some(token), "whoami").await;
        assert_eq!(r.status, 401, "{what}");
        assert_eq!(r.header("www-authenticate"), invalid, "{what}");
    }
    // A tampered payload fails the signature.
    let mut parts: Vec<String> = good.split('.').map(str::to_string).collect();
    parts[1] = {
        use base64::Engine;
        let b64 = base64::engine::general_purpose::URL_SAFE_NO_PAD;
        let mut c: Value = serde_json::from_slice(&b64.decode(&parts[1]).unwrap()).unwrap();
        c["sub"] = json!("admin");
        b64.encode(c.to_string())
    };
    assert_eq!(
        tool_call(s.addr, Some(&parts.join(".")), "whoami")
            .await
            .status,
        401,
        "tampered"
    );

    // Rotation: the issuer publishes k2; a token signed with it is accepted after a refetch.
    *keys.lock().unwrap() = json!({"keys": [jwk("k1", K1_X), jwk("k2", K2_X)]});
    let rotated = sign(K2_DER, "k2", claims(json!({"sub": "dave"})));
    let r = tool_call(s.addr, Some(&rotated), "whoami").await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["result"]["content"][0]["text"], "whoami for dave");
    assert!(fetches.load(Ordering::SeqCst) >= 2);
}

#[tokio::test]
async fn inline_jwks_and_opaque_verifier() {
    let _serial = serial();
    let jwks = json!({"keys": [jwk("k1", K1_X)]});
    let auth = Auth::new()
        .jwt(JwtValidator::with_jwks(ISSUER, RESOURCE, &jwks).unwrap())
        .verifier(|t: String| async move {
            Ok((t == "opaque-1").then(|| oxmcp::Caller::new("svc").with_scopes(["files:write"])))
        })
        .allow("carol", Allow::none().tools(["echo"]));
    let s = serve(
        demo_server(ServerOptions::default()),
        HttpConfig::new(loopback()).auth(Arc::new(auth)),
    )
    .await;
    let good = sign(K1_DER, "k1", claims(json!({})));
    assert_eq!(
        tool_names(&call(s.addr, Some(&good), "tools/list", json!({})).await),
        vec!["echo"],
        "allow-list by JWT subject"
    );
    assert_eq!(
        tool_call(s.addr, Some("opaque-1"), "whoami").await.json()["result"]["content"][0]["text"],
        "whoami for svc"
    );
    assert_eq!(
        tool_call(s.addr, Some("opaque-2"), "whoami").await.status,
        401
    );
}

// ---- limits -----------------------------------------------------------------------------------

#[tokio::test]
async fn rate_limit_per_caller() {
    let _serial = serial();
    let cfg = HttpConfig::new(loopback())
        .auth(Arc::new(Auth::new().tokens(tokens())))
        .rate_limit(RateLimit::per_second(0.5, 2));
    let s = serve(demo_server(ServerOptions::default()), cfg).await;
    assert_eq!(
        tool_call(s.addr, Some("alice-new"), "echo").await.status,
        200
    );
    assert_eq!(
        tool_call(s.addr, Some("alice-old"), "echo").await.status,
        200
    );
    let r = tool_call(s.addr, Some("alice-new"), "echo").await;
    assert_eq!(r.status, 429);
    let retry: u64 = r.header("retry-after").parse().unwrap();
    assert!((1..=2).contains(&retry), "{retry}");
    assert_eq!(r.json()["error"]["code"], oxmcp::auth::RATE_LIMITED.0);
    assert_eq!(
        tool_call(s.addr, Some("bob-token"), "echo").await.status,
        200,
        "bob has his own bucket"
    );
}

fn blocking_tool(
    name: &str,
    started: Arc<tokio::sync::Notify>,
    release: Arc<tokio::sync::Notify>,
) -> Tool {
    Tool::new(name, json!({"type":"object"})).handler(move |_a: Map<String, Value>, _c: Context| {
        let (started, release) = (started.clone(), release.clone());
        async move {
            started.notify_one();
            release.notified().await;
            Ok::<_, ToolError>(ToolResult::text("done"))
        }
    })
}

#[tokio::test]
async fn concurrency_caps() {
    let _serial = serial();
    let (started, release) = (
        Arc::new(tokio::sync::Notify::new()),
        Arc::new(tokio::sync::Notify::new()),
    );
    let server = Server::builder("caps", "1")
        .tool(blocking_tool("one_at_a_time", started.clone(), release.clone()).max_concurrency(1))
        .build()
        .unwrap();
    let s = serve(server, HttpConfig::new(loopback())).await;
    let addr = s.addr;
    let first = tokio::spawn(async move { tool_call(addr, None, "one_at_a_time").await });
    started.notified().await;
    let r = tool_call(s.addr, None, "one_at_a_time").await.json();
    assert_eq!(r["result"]["isError"], true);
    assert!(r["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .contains("busy"));
    release.notify_one();
    assert_eq!(
        first.await.unwrap().json()["result"]["content"][0]["text"],
        "done"
    );

    // Global cap: one handler in flight, the next request is refused with 503 + Retry-After.
    let (started, release) = (
        Arc::new(tokio::sync::Notify::new()),
        Arc::new(tokio::sync::Notify::new()),
    );
    let mut o = ServerOptions::default();
    o.max_in_flight = Some(1);
    let server = Server::builder("caps", "1")
        .options(o)
        .tool(blocking_tool("slow", started.clone(), release.clone()))
        .tool(echo("echo"))
        .build()
        .unwrap();
    let s = serve(server, HttpConfig::new(loopback())).await;
    let addr = s.addr;
    let first = tokio::spawn(async move { tool_call(addr, None, "slow").await });
    started.notified().await;
    let r = tool_call(s.addr, None, "echo").await;
    assert_eq!(r.status, 503);
    assert_eq!(r.header("retry-after"), "1");
    assert_eq!(r.json()["error"]["code"], oxmcp::auth::SERVER_BUSY.0);
    release.notify_one();
    assert_eq!(first.await.unwrap().status, 200);
    assert_eq!(
        tool_call(s.addr, None, "echo").await.status,
        200,
        "the slot is free again"
    );
}

struct SetOnDrop(Arc<AtomicBool>);
impl Drop for SetOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

#[tokio::test]
async fn timed_out_call_answers_is_error_and_cancels_the_handler() {
    let _serial = serial();
    let cap = Capture::default();
    let _g = tracing::subscriber::set_default(cap.subscriber());
    let dropped = Arc::new(AtomicBool::new(false));
    let token_fired = Arc::new(AtomicBool::new(false));
    let (d, f) = (dropped.clone(), token_fired.clone());
    let tool = Tool::new("hang", json!({"type":"object"}))
        .timeout(Duration::from_millis(150))
        .handler(move |_a: Map<String, Value>, ctx: Context| {
            let guard = SetOnDrop(d.clone());
            let fired = f.clone();
            let token = ctx.cancellation().clone();
            tokio::spawn(async move {
                token.cancelled().await;
                fired.store(true, Ordering::SeqCst);
            });
            async move {
                let _g = guard;
                std::future::pending::<()>().await;
                Ok::<_, ToolError>(ToolResult::text("never"))
            }
        });
    let s = serve(
        Server::builder("t", "1").tool(tool).build().unwrap(),
        HttpConfig::new(loopback()),
    )
    .await;
    let r = tool_call(s.addr, None, "hang").await.json();
    assert_eq!(r["result"]["isError"], true);
    assert_eq!(r["result"]["content"][0]["text"], "Tool hang timed out");
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert!(
        dropped.load(Ordering::SeqCst),
        "the handler future was dropped"
    );
    assert!(
        token_fired.load(Ordering::SeqCst),
        "the handler's cancellation token fired"
    );
    let audit = cap
        .lines()
        .into_iter()
        .find(|l| l["fields"]["name"] == "hang")
        .expect("audit record");
    assert_eq!(audit["fields"]["outcome"], "timeout");
    assert_eq!(audit["fields"]["error_class"], "timeout");
}

#[tokio::test]
async fn header_caps_and_slow_requests() {
    let _serial = serial();
    let cfg = HttpConfig::new(loopback())
        .max_headers(20)
        .header_timeout(Duration::from_millis(300))
        .body_timeout(Duration::from_millis(300));
    let s = serve(demo_server(ServerOptions::default()), cfg).await;
    let many: Vec<(String, String)> = (0..40)
        .map(|i| (format!("x-h{i}"), "v".to_string()))
        .collect();
    let h: Vec<(&str, &str)> = many.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    assert_eq!(
        request(s.addr, "POST", "/mcp", &h, b"{}".to_vec())
            .await
            .status,
        431
    );
    let big = "a".repeat(40 * 1024);
    assert_eq!(
        request(s.addr, "POST", "/mcp", &[("x-big", &big)], b"{}".to_vec())
            .await
            .status,
        431
    );
    assert_eq!(
        request(s.addr, "GET", "/healthz", &[], vec![]).await.status,
        200,
        "still serving"
    );

    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    // Slowloris: a head that never completes is cut off.
    let mut c = tokio::net::TcpStream::connect(s.addr).await.unwrap();
    c.write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        .await
        .unwrap();
    let mut buf = Vec::new();
    let n = tokio::time::timeout(Duration::from_secs(5), c.read_to_end(&mut buf))
        .await
        .expect("closed by the server");
    assert!(n.is_ok());
    // An idle connection is closed too.
    let mut c = tokio::net::TcpStream::connect(s.addr).await.unwrap();
    let n = tokio::time::timeout(Duration::from_secs(5), c.read_to_end(&mut buf))
        .await
        .expect("idle connection closed");
    assert!(n.is_ok());
    // A body that trickles in: 408.
    let mut c = tokio::net::TcpStream::connect(s.addr).await.unwrap();
    c.write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 100\r\n\r\n{").await.unwrap();
    let mut out = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(5), c.read_to_end(&mut out))
        .await
        .expect("answered");
    assert!(
        String::from_utf8_lossy(&out).starts_with("HTTP/1.1 408"),
        "{}",
        String::from_utf8_lossy(&out)
    );
}

// ---- tracing -------------------------------------------------------------------------------------

#[tokio::test]
async fn traceparent_from_meta_continues_the_trace() {
    let _serial = serial();
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
    let _serial = serial();
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
