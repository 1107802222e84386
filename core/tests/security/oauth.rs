//! OAuth resource server: RFC 9728 metadata, 401/403 challenges, JWTs against a JWKS served on loopback, inline JWKS, opaque verifiers.

use super::common::*;

pub(crate) const RESOURCE: &str = "https://mcp.example.com/mcp";
pub(crate) const ISSUER: &str = "https://auth.example.com";
pub(crate) const META_URL: &str =
    "https://mcp.example.com/.well-known/oauth-protected-resource/mcp";

pub(crate) fn protected() -> ProtectedResource {
    ProtectedResource::new(RESOURCE, [ISSUER])
        .scopes(["mcp:tools"])
        .name("sec test")
}

#[tokio::test]
async fn rfc9728_document_and_challenges() {
    let _serial = serial().await;
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
            r#"Bearer error="insufficient_scope", error_description="Insufficient scope", scope="files:write", resource_metadata="{META_URL}""#
        )
    );
    assert_eq!(
        r.body,
        r#"{"error":"insufficient_scope","error_description":"Insufficient scope"}"#
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
pub(crate) const K1_DER: &str = "MC4CAQAwBQYDK2VwBCIEINQCNTY+Xma589AswchsU8heQpShw7deOgGHPWEAmSNa";
pub(crate) const K1_X: &str = "PS76keOT5raJUsf6dbuptXkEbCQMhuj4y52GvxZXYd4";
pub(crate) const K2_DER: &str = "MC4CAQAwBQYDK2VwBCIEIOEsNTcR98nPN1iYfrO5B6Vm+sCXjgzUPhGaV1RUuBfI";
pub(crate) const K2_X: &str = "VlHtyDHODCHzyDVogIIKxZJ1HQ6hgfmUcw9zIL6QPps";

pub(crate) fn jwk(kid: &str, x: &str) -> Value {
    json!({"kty":"OKP","crv":"Ed25519","use":"sig","alg":"EdDSA","kid":kid,"x":x})
}

fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

pub(crate) fn sign(der_b64: &str, kid: &str, claims: Value) -> String {
    use base64::Engine;
    let der = base64::engine::general_purpose::STANDARD
        .decode(der_b64)
        .unwrap();
    let mut h = Header::new(jsonwebtoken::Algorithm::EdDSA);
    h.kid = Some(kid.into());
    jsonwebtoken::encode(&h, &claims, &EncodingKey::from_ed_der(&der)).unwrap()
}

pub(crate) fn claims(extra: Value) -> Value {
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
        while let Ok((stream, _)) = listener.accept().await {
            tokio::spawn(serve_jwks(stream, keys.clone(), fetches.clone()));
        }
    });
    addr
}

/// Answer every request on one connection with the current key set.
pub(crate) async fn serve_jwks<I>(io: I, keys: Arc<Mutex<Value>>, fetches: Arc<AtomicUsize>)
where
    I: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let svc = hyper::service::service_fn(move |_req: hyper::Request<hyper::body::Incoming>| {
        fetches.fetch_add(1, Ordering::SeqCst);
        let body = keys.lock().unwrap().to_string();
        async move {
            Ok::<_, std::convert::Infallible>(hyper::Response::new(Full::new(Bytes::from(body))))
        }
    });
    let _ = hyper::server::conn::http1::Builder::new()
        .serve_connection(hyper_util::rt::TokioIo::new(io), svc)
        .await;
}

#[tokio::test]
async fn jwt_validation_against_a_served_jwks() {
    let _serial = serial().await;
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
    let _serial = serial().await;
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

/// While the JWKS cannot be refetched the cached keys keep working (a revoked key cannot be
/// learned of then), but
/// only up to `max_stale` after the last good fetch; then no token verifies until a fetch works.
#[tokio::test]
async fn stale_jwks_keys_have_a_hard_limit() {
    let _serial = serial().await;
    let keys = Arc::new(Mutex::new(json!({"keys": [jwk("k1", K1_X)]})));
    let fetches = Arc::new(AtomicUsize::new(0));
    let jwks = jwks_server(keys.clone(), fetches.clone()).await;
    let validator =
        JwtValidator::with_jwks_url(ISSUER, RESOURCE, format!("http://{jwks}/jwks.json"))
            .cache(Duration::ZERO, Duration::ZERO)
            .max_stale(Duration::from_millis(1500));
    let auth = Auth::new().jwt(validator).resource(protected());
    let s = serve(
        demo_server(ServerOptions::default()),
        HttpConfig::new(loopback())
            .auth(Arc::new(auth))
            .auth_failure_limit(None),
    )
    .await;
    let good = sign(K1_DER, "k1", claims(json!({})));
    assert_eq!(tool_call(s.addr, Some(&good), "whoami").await.status, 200);
    // The JWKS endpoint breaks: the keys fetched a moment ago are still used.
    *keys.lock().unwrap() = json!("not a JWKS");
    let r = tool_call(s.addr, Some(&good), "whoami").await;
    assert_eq!(r.status, 200, "stale but within max_stale: {}", r.body);
    assert!(fetches.load(Ordering::SeqCst) >= 2, "a refetch was tried");
    tokio::time::sleep(Duration::from_millis(1700)).await;
    assert_eq!(
        tool_call(s.addr, Some(&good), "whoami").await.status,
        401,
        "keys older than max_stale are dropped"
    );
    // The endpoint recovers: tokens verify again.
    *keys.lock().unwrap() = json!({"keys": [jwk("k1", K1_X)]});
    assert_eq!(tool_call(s.addr, Some(&good), "whoami").await.status, 200);
}

/// JWT callers are told apart by issuer as well as subject, so the same
/// `sub` from two accepted issuers does not share a rate bucket (nor MRTR state).
#[tokio::test]
async fn the_same_subject_from_two_issuers_is_two_callers() {
    let _serial = serial().await;
    const OTHER: &str = "https://other-idp.example.com";
    let jwks = json!({"keys": [jwk("k1", K1_X)]});
    let validator = JwtValidator::with_jwks(ISSUER, RESOURCE, &jwks)
        .unwrap()
        .issuers([OTHER]);
    let auth = Auth::new().jwt(validator);
    let s = serve(
        demo_server(ServerOptions::default()),
        HttpConfig::new(loopback())
            .auth(Arc::new(auth))
            .rate_limit(RateLimit::per_second(0.01, 1)),
    )
    .await;
    let ours = sign(K1_DER, "k1", claims(json!({})));
    let theirs = sign(K1_DER, "k1", claims(json!({"iss": OTHER})));
    assert_eq!(tool_call(s.addr, Some(&ours), "whoami").await.status, 200);
    let r = tool_call(s.addr, Some(&theirs), "whoami").await;
    assert_eq!(
        r.status, 200,
        "another issuer's carol has her own bucket: {}",
        r.body
    );
    assert_eq!(tool_call(s.addr, Some(&ours), "whoami").await.status, 429);
}

/// A valid JWT with none of the claims that name a caller is refused with a description that says
/// so, rather than sharing one anonymous name (and its tasks, sessions and limits) with every other
/// such token. The claims are configurable: through the host options, `oauth.name_claims`.
#[tokio::test]
async fn a_token_that_names_no_caller_is_refused() {
    let _serial = serial().await;
    let jwks = json!({"keys": [jwk("k1", K1_X)]});
    let config = oxmcp::config::Config::from_json(json!({
        "oauth": {"resource": RESOURCE, "issuer": ISSUER, "jwks": jwks, "name_claims": ["email", "sub"]},
    }))
    .unwrap();
    let http = config.listen.http_config(loopback()).unwrap();
    let s = serve(demo_server(ServerOptions::default()), http).await;
    let mut nameless = claims(json!({}));
    nameless.as_object_mut().unwrap().remove("sub");
    let r = tool_call(s.addr, Some(&sign(K1_DER, "k1", nameless)), "whoami").await;
    assert_eq!(r.status, 401);
    assert_eq!(
        r.json()["error_description"],
        "The access token names no caller (no email, sub claim)"
    );
    assert!(r.header("www-authenticate").contains("invalid_token"));
    let named = sign(K1_DER, "k1", claims(json!({"email": "dana@example.com"})));
    assert_eq!(
        tool_call(s.addr, Some(&named), "whoami").await.json()["result"]["content"][0]["text"],
        "whoami for dana@example.com",
        "the first configured claim names the caller"
    );
    let bad = oxmcp::config::Config::from_json(json!({
        "oauth": {"resource": RESOURCE, "issuer": ISSUER, "jwks": {"keys": []}, "name_claims": []},
    }))
    .and_then(|c| c.listen.http_config(loopback()).map(|_| ()));
    assert!(bad
        .unwrap_err()
        .message
        .contains("name_claims must name at least one claim"));
}

/// A test identity provider and a test authorization server, on loopback, speaking the
/// enterprise-managed authorization flow (the MCP auth extension): the IdP's token endpoint
/// exchanges its ID token for an ID-JAG (RFC 8693 token exchange, `typ` `oauth-id-jag+jwt`, for
/// the authorization server's audience); the authorization server's token endpoint takes the
/// ID-JAG as a JWT-bearer grant (RFC 7523) and issues an access token for the resource. Keys: the
/// IdP signs with K2, the authorization server with K1.
async fn enterprise_idp_and_as() -> SocketAddr {
    const IDP: &str = "https://idp.example.com";
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    fn form(body: &[u8]) -> std::collections::HashMap<String, String> {
        let text = String::from_utf8_lossy(body);
        let unescape = |s: &str| {
            let b = s.replace('+', " ").into_bytes();
            let mut out = Vec::new();
            let mut i = 0;
            while i < b.len() {
                if b[i] == b'%' && i + 2 < b.len() {
                    let hex = std::str::from_utf8(&b[i + 1..i + 3]).unwrap();
                    out.push(u8::from_str_radix(hex, 16).unwrap());
                    i += 3;
                } else {
                    out.push(b[i]);
                    i += 1;
                }
            }
            String::from_utf8(out).unwrap()
        };
        text.split('&')
            .filter_map(|kv| kv.split_once('='))
            .map(|(k, v)| (unescape(k), unescape(v)))
            .collect()
    }
    let verify = |token: &str, x: &str, aud: &str| -> Option<(String, Value)> {
        let header = jsonwebtoken::decode_header(token).ok()?;
        let key = jsonwebtoken::DecodingKey::from_ed_components(x).ok()?;
        let mut v = jsonwebtoken::Validation::new(jsonwebtoken::Algorithm::EdDSA);
        v.set_audience(&[aud]);
        let c = jsonwebtoken::decode::<Value>(token, &key, &v).ok()?.claims;
        Some((header.typ.unwrap_or_default(), c))
    };
    let answer = move |path: String, body: Bytes| -> (u16, Value) {
        let f = form(&body);
        let grant = f.get("grant_type").map(String::as_str);
        match (path.as_str(), grant) {
            ("/idp/token", Some("urn:ietf:params:oauth:grant-type:token-exchange")) => {
                // The user's ID token (issued by this IdP at sign-on, for the client).
                let Some((_, id)) = verify(&f["subject_token"], K2_X, "mcp-client") else {
                    return (400, json!({"error": "invalid_grant"}));
                };
                if f.get("requested_token_type").map(String::as_str)
                    != Some("urn:ietf:params:oauth:token-type:id-jag")
                {
                    return (400, json!({"error": "invalid_request"}));
                }
                let mut h = Header::new(jsonwebtoken::Algorithm::EdDSA);
                h.typ = Some("oauth-id-jag+jwt".into());
                let jag = json!({"iss": IDP, "sub": id["sub"], "aud": f["audience"],
                                 "resource": f["resource"], "client_id": "mcp-client",
                                 "scope": f["scope"], "jti": "jag-1", "iat": now(), "exp": now() + 300});
                let der =
                    base64::Engine::decode(&base64::engine::general_purpose::STANDARD, K2_DER)
                        .unwrap();
                let jag = jsonwebtoken::encode(&h, &jag, &EncodingKey::from_ed_der(&der)).unwrap();
                (
                    200,
                    json!({"access_token": jag, "issued_token_type": "urn:ietf:params:oauth:token-type:id-jag", "token_type": "N_A"}),
                )
            }
            ("/as/token", Some("urn:ietf:params:oauth:grant-type:jwt-bearer")) => {
                match verify(&f["assertion"], K2_X, ISSUER) {
                    Some((typ, jag))
                        if typ == "oauth-id-jag+jwt" && jag["resource"] == RESOURCE =>
                    {
                        let token = sign(
                            K1_DER,
                            "k1",
                            claims(
                                json!({"sub": jag["sub"], "client_id": jag["client_id"], "scope": jag["scope"]}),
                            ),
                        );
                        (
                            200,
                            json!({"access_token": token, "token_type": "Bearer", "expires_in": 300}),
                        )
                    }
                    _ => (400, json!({"error": "invalid_grant"})),
                }
            }
            _ => (400, json!({"error": "unsupported_grant_type"})),
        }
    };
    let answer = Arc::new(answer);
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let answer = answer.clone();
            let svc =
                hyper::service::service_fn(move |req: hyper::Request<hyper::body::Incoming>| {
                    let answer = answer.clone();
                    async move {
                        let path = req.uri().path().to_string();
                        let body = req.into_body().collect().await.unwrap().to_bytes();
                        let (status, v) = answer(path, body);
                        let mut r = hyper::Response::new(Full::new(Bytes::from(v.to_string())));
                        *r.status_mut() = hyper::StatusCode::from_u16(status).unwrap();
                        Ok::<_, std::convert::Infallible>(r)
                    }
                });
            tokio::spawn(
                hyper::server::conn::http1::Builder::new()
                    .serve_connection(hyper_util::rt::TokioIo::new(stream), svc),
            );
        }
    });
    addr
}

/// Enterprise-managed authorization from the resource server's side: the access token the
/// authorization server issues for an ID-JAG is taken like any other (the caller is the IdP's
/// subject); the ID-JAG itself is a grant for the authorization server and is refused even when
/// it is signed by a trusted key for this very resource, as is a DPoP proof sent as a token.
#[tokio::test]
async fn an_id_jag_is_exchanged_at_the_authorization_server_and_never_taken_itself() {
    let _serial = serial().await;
    let config = oxmcp::config::Config::from_json(json!({
        "oauth": {"resource": RESOURCE, "issuer": ISSUER, "jwks": {"keys": [jwk("k1", K1_X)]}},
    }))
    .unwrap();
    let s = serve(
        demo_server(ServerOptions::default()),
        config.listen.http_config(loopback()).unwrap(),
    )
    .await;
    let idp = enterprise_idp_and_as().await;
    let post = |path: &'static str, form: String| async move {
        let h = [("content-type", "application/x-www-form-urlencoded")];
        request(idp, "POST", path, &h, form.into_bytes())
            .await
            .json()
    };
    // Sign-on gave the client an ID token from the IdP.
    let id_token = sign(
        K2_DER,
        "idp",
        json!({"iss": "https://idp.example.com", "aud": "mcp-client", "sub": "erin@corp.example", "exp": now() + 300}),
    );
    let enc = |s: &str| s.replace(':', "%3A").replace('/', "%2F");
    let jag = post("/idp/token", format!(
        "grant_type={}&requested_token_type={}&subject_token={id_token}&audience={}&resource={}&scope=mcp%3Atools",
        enc("urn:ietf:params:oauth:grant-type:token-exchange"),
        enc("urn:ietf:params:oauth:token-type:id-jag"),
        enc(ISSUER),
        enc(RESOURCE),
    )).await;
    let jag = jag["access_token"]
        .as_str()
        .unwrap_or_else(|| panic!("{jag}"))
        .to_string();
    let token = post(
        "/as/token",
        format!(
            "grant_type={}&assertion={jag}",
            enc("urn:ietf:params:oauth:grant-type:jwt-bearer")
        ),
    )
    .await;
    let token = token["access_token"]
        .as_str()
        .unwrap_or_else(|| panic!("{token}"));
    let r = tool_call(s.addr, Some(token), "whoami").await;
    assert_eq!(
        r.json()["result"]["content"][0]["text"],
        "whoami for erin@corp.example",
        "{}",
        r.body
    );

    // An ID-JAG that a confused or compromised issuer signed with the resource's own trusted key,
    // for this resource: still a grant, not an access token.
    let mut h = Header::new(jsonwebtoken::Algorithm::EdDSA);
    h.kid = Some("k1".into());
    for typ in [
        "oauth-id-jag+jwt",
        "application/OAuth-ID-JAG+JWT",
        "dpop+jwt",
    ] {
        h.typ = Some(typ.into());
        let der =
            base64::Engine::decode(&base64::engine::general_purpose::STANDARD, K1_DER).unwrap();
        let confused =
            jsonwebtoken::encode(&h, &claims(json!({})), &EncodingKey::from_ed_der(&der)).unwrap();
        let r = tool_call(s.addr, Some(&confused), "whoami").await;
        assert_eq!(r.status, 401, "{typ}: {}", r.body);
        assert!(
            r.header("www-authenticate").contains("invalid_token"),
            "{typ}"
        );
    }
}
