//! DPoP-bound access tokens (RFC 9449) over real HTTP: the proof is checked against the
//! request's method and public URL, the access token and the token's `cnf.jkt`; each flaw is
//! refused with 401 and a `DPoP` challenge naming the error and the algorithms taken.

use super::common::*;
use super::oauth::{claims, jwk, sign, ISSUER, K1_DER, K1_X, K2_DER, K2_X, RESOURCE};
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use base64::Engine;
use sha2::{Digest, Sha256};

/// The client's DPoP key (K2, Ed25519) as its public JWK.
fn client_jwk() -> Value {
    json!({"kty": "OKP", "crv": "Ed25519", "x": K2_X})
}

/// The RFC 7638 thumbprint of the client key, computed here from the RFC's rule.
fn client_jkt() -> String {
    let canon = format!(r#"{{"crv":"Ed25519","kty":"OKP","x":"{K2_X}"}}"#);
    URL_SAFE_NO_PAD.encode(Sha256::digest(canon.as_bytes()))
}

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

fn ath(token: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(token.as_bytes()))
}

/// A proof JWT with this header and these claims, signed with `der` (Ed25519) as `EdDSA`, or
/// with an HMAC secret when the header says `HS256`, or unsigned for `none`.
pub(crate) fn proof_with(header: Value, claims: Value, der: &str) -> String {
    let b64 = |v: &Value| URL_SAFE_NO_PAD.encode(serde_json::to_vec(v).unwrap());
    let msg = format!("{}.{}", b64(&header), b64(&claims));
    let sig = match header["alg"].as_str().unwrap() {
        "none" => String::new(),
        "HS256" => jsonwebtoken::crypto::sign(
            msg.as_bytes(),
            &EncodingKey::from_secret(b"shared"),
            jsonwebtoken::Algorithm::HS256,
        )
        .unwrap(),
        _ => jsonwebtoken::crypto::sign(
            msg.as_bytes(),
            &EncodingKey::from_ed_der(&STANDARD.decode(der).unwrap()),
            jsonwebtoken::Algorithm::EdDSA,
        )
        .unwrap(),
    };
    format!("{msg}.{sig}")
}

pub(crate) fn header() -> Value {
    json!({"typ": "dpop+jwt", "alg": "EdDSA", "jwk": client_jwk()})
}

/// Claims of a good proof for `POST RESOURCE` with `token`; `jti` unique per call.
pub(crate) fn proof_claims(token: &str) -> Value {
    static N: AtomicUsize = AtomicUsize::new(0);
    json!({"htm": "POST", "htu": RESOURCE, "iat": now(), "ath": ath(token),
           "jti": format!("jti-{}-{}", now(), N.fetch_add(1, Ordering::Relaxed))})
}

fn proof(token: &str) -> String {
    proof_with(header(), proof_claims(token), K2_DER)
}

/// An access token bound to the client key.
pub(crate) fn bound_token() -> String {
    sign(K1_DER, "k1", claims(json!({"cnf": {"jkt": client_jkt()}})))
}

/// `tools/call whoami` with `Authorization: <scheme> <token>` and the proofs given.
async fn dpop_call(addr: SocketAddr, scheme: &str, token: &str, proofs: &[&str]) -> Resp {
    dpop_call_tool(addr, "whoami", scheme, token, proofs).await
}

async fn dpop_call_tool(
    addr: SocketAddr,
    tool: &str,
    scheme: &str,
    token: &str,
    proofs: &[&str],
) -> Resp {
    dpop_call_over(false, addr, tool, scheme, token, proofs).await
}

/// [`dpop_call_tool`] over HTTP/1.1 or HTTP/2 (`h2`).
async fn dpop_call_over(
    h2: bool,
    addr: SocketAddr,
    tool: &str,
    scheme: &str,
    token: &str,
    proofs: &[&str],
) -> Resp {
    let (body, h) = modern_request(None, "tools/call", json!({"name": tool, "arguments": {}}));
    let auth = format!("{scheme} {token}");
    let mut h: Vec<(&str, &str)> = h.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    h.push(("authorization", &auth));
    for p in proofs {
        h.push(("dpop", p));
    }
    request_over(h2, addr, "POST", "/mcp", &h, body.into_bytes()).await
}

const ALGS: &str = "ES256 ES384 EdDSA RS256 RS384 RS512 PS256 PS384 PS512";

fn refused(r: &Resp, error: &str, what: &str) {
    assert_eq!(r.status, 401, "{what}: {}", r.body);
    let c = r.header("www-authenticate");
    assert!(
        c.starts_with(&format!("DPoP error=\"{error}\""))
            && c.ends_with(&format!("algs=\"{ALGS}\"")),
        "{what}: {c}"
    );
    assert_eq!(r.json()["error"], error, "{what}");
}

pub(crate) fn dpop_server(mode: &str) -> HttpConfig {
    dpop_server_with(json!({"dpop": mode}))
}

/// A DPoP server with these `oauth` settings added.
fn dpop_server_with(extra: Value) -> HttpConfig {
    let mut oauth = json!({"resource": RESOURCE, "issuer": ISSUER, "jwks": {"keys": [jwk("k1", K1_X)]},
                           "dpop_window_ms": 30_000, "dpop_replay_cache": 1000});
    for (k, v) in extra.as_object().unwrap() {
        oauth[k] = v.clone();
    }
    let config = oxmcp::config::Config::from_json(json!({
        "oauth": oauth,
        // Each refusal here is a failed authentication from one address.
        "auth_failure_limit": false,
    }))
    .unwrap();
    config.listen.http_config(loopback()).unwrap()
}

#[tokio::test]
async fn a_bound_token_needs_a_proof_of_this_request_with_its_key() {
    let _serial = serial().await;
    let s = serve(
        demo_server(ServerOptions::default()),
        dpop_server("allowed"),
    )
    .await;
    let token = bound_token();

    // A good proof: the caller is the token's subject. The Host the request came with is the
    // loopback address; htu is the resource URL the client reached (as through a proxy).
    let r = dpop_call(s.addr, "DPoP", &token, &[&proof(&token)]).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["result"]["content"][0]["text"], "whoami for carol");

    // Each flaw of a proof, and each token-proof mismatch: the shared table, below.
    let unbound = sign(K1_DER, "k1", claims(json!({})));

    // The bound token as Bearer: refused, the Bearer challenge naming the error, the DPoP one
    // offered beside it.
    let r = dpop_call(s.addr, "Bearer", &token, &[]).await;
    assert_eq!(r.status, 401);
    let challenges: Vec<&str> = r
        .headers
        .get_all("www-authenticate")
        .iter()
        .map(|v| v.to_str().unwrap())
        .collect();
    assert_eq!(challenges.len(), 2, "{challenges:?}");
    assert!(challenges[0].starts_with("Bearer error=\"invalid_token\""));
    assert!(challenges[1].starts_with("DPoP resource_metadata="));
    // An unbound Bearer token is still taken under `allowed`.
    assert_eq!(dpop_call(s.addr, "Bearer", &unbound, &[]).await.status, 200);

    // The resource metadata says DPoP is taken, not required.
    let m = request(
        s.addr,
        "GET",
        "/.well-known/oauth-protected-resource/mcp",
        &[],
        vec![],
    )
    .await
    .json();
    assert_eq!(m["dpop_bound_access_tokens_required"], false);
    assert_eq!(
        m["dpop_signing_alg_values_supported"],
        json!(ALGS.split(' ').collect::<Vec<_>>())
    );
}

#[tokio::test]
async fn required_refuses_bearer_and_a_missing_proof() {
    let _serial = serial().await;
    let s = serve(
        demo_server(ServerOptions::default()),
        dpop_server("required"),
    )
    .await;
    let token = bound_token();
    let unbound = sign(K1_DER, "k1", claims(json!({})));
    refused(
        &dpop_call(s.addr, "Bearer", &unbound, &[]).await,
        "invalid_token",
        "Bearer under required",
    );
    refused(
        &dpop_call(s.addr, "DPoP", &token, &[]).await,
        "invalid_dpop_proof",
        "missing proof under required",
    );
    // No credentials: only the DPoP challenge, pointing at the metadata.
    let r = call(s.addr, None, "tools/list", json!({})).await;
    assert_eq!(r.status, 401);
    assert_eq!(r.headers.get_all("www-authenticate").iter().count(), 1);
    assert_eq!(
        r.header("www-authenticate"),
        format!(
            r#"DPoP resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", algs="{ALGS}""#
        )
    );
    assert_eq!(
        dpop_call(s.addr, "DPoP", &token, &[&proof(&token)])
            .await
            .status,
        200
    );
    let m = request(
        s.addr,
        "GET",
        "/.well-known/oauth-protected-resource",
        &[],
        vec![],
    )
    .await
    .json();
    assert_eq!(m["dpop_bound_access_tokens_required"], true);

    let bad = oxmcp::config::Config::from_json(json!({
        "oauth": {"resource": RESOURCE, "issuer": ISSUER, "jwks": {"keys": [jwk("k1", K1_X)]}, "dpop": "on"},
    }))
    .and_then(|c| c.listen.http_config(loopback()).map(|_| ()));
    assert!(bad.unwrap_err().message.contains("oauth.dpop"));
}

/// Off (the default): the DPoP scheme is not taken, and a bound token is still refused as
/// Bearer, since taking it would undo the binding its issuer asked for.
#[tokio::test]
async fn off_takes_no_dpop_and_still_refuses_a_bound_bearer_token() {
    let _serial = serial().await;
    let s = serve(demo_server(ServerOptions::default()), dpop_server("off")).await;
    let token = bound_token();
    let r = dpop_call(s.addr, "DPoP", &token, &[&proof(&token)]).await;
    assert_eq!(r.status, 401);
    assert!(r.header("www-authenticate").starts_with("Bearer "));
    let r = dpop_call(s.addr, "Bearer", &token, &[]).await;
    assert_eq!(r.status, 401);
    assert!(r
        .header("www-authenticate")
        .starts_with("Bearer error=\"invalid_token\""));
}

/// Nonces required (RFC 9449 §9): a proof without one, or with one the server did not issue, is
/// answered 401 `use_dpop_nonce` with a fresh `DPoP-Nonce`; the retry carrying it is taken.
/// Two servers given the same state key (two replicas) take each other's nonces.
#[tokio::test]
async fn a_required_nonce_is_sent_on_refusal_and_taken_by_every_replica() {
    let _serial = serial().await;
    let keyed = || {
        let mut o = ServerOptions::default();
        o.state_key = Some(b"0123456789abcdef-shared".to_vec());
        demo_server(o)
    };
    let nonce_server = || dpop_server_with(json!({"dpop": "required", "dpop_nonce": true}));
    let a = serve(keyed(), nonce_server()).await;
    let b = serve(keyed(), nonce_server()).await;
    let lone = serve(demo_server(ServerOptions::default()), nonce_server()).await;
    let token = bound_token();
    let with_nonce = |n: &str| {
        let mut c = proof_claims(&token);
        c["nonce"] = json!(n);
        proof_with(header(), c, K2_DER)
    };
    let needs_nonce = |r: &Resp, what: &str| -> String {
        refused(r, "use_dpop_nonce", what);
        r.header("dpop-nonce").to_string()
    };

    let r = dpop_call(a.addr, "DPoP", &token, &[&proof(&token)]).await;
    let nonce = needs_nonce(&r, "no nonce");
    assert!(!nonce.is_empty());
    let r = dpop_call(a.addr, "DPoP", &token, &[&with_nonce(&nonce)]).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["result"]["content"][0]["text"], "whoami for carol");
    // Another replica with the same state key takes it.
    let r = dpop_call(b.addr, "DPoP", &token, &[&with_nonce(&nonce)]).await;
    assert_eq!(r.status, 200, "{}", r.body);
    // A server with its own key does not, and hands out its own.
    let r = dpop_call(lone.addr, "DPoP", &token, &[&with_nonce(&nonce)]).await;
    let other = needs_nonce(&r, "another server's nonce");
    assert_ne!(other, nonce);
    assert_eq!(
        dpop_call(lone.addr, "DPoP", &token, &[&with_nonce(&other)])
            .await
            .status,
        200
    );
    needs_nonce(
        &dpop_call(a.addr, "DPoP", &token, &[&with_nonce("forged")]).await,
        "a forged nonce",
    );
    // A flawed proof is refused for its flaw first, nonce or not.
    let mut c = proof_claims(&token);
    c["htm"] = json!("GET");
    c["nonce"] = json!(nonce);
    refused(
        &dpop_call(a.addr, "DPoP", &token, &[&proof_with(header(), c, K2_DER)]).await,
        "invalid_dpop_proof",
        "wrong htm with a nonce",
    );

    // Nonce settings without DPoP would be ignored: refused at start.
    let bad = oxmcp::config::Config::from_json(json!({
        "oauth": {"resource": RESOURCE, "issuer": ISSUER, "jwks": {"keys": [jwk("k1", K1_X)]}, "dpop_nonce": true},
    }))
    .and_then(|c| c.listen.http_config(loopback()).map(|_| ()));
    assert_eq!(
        bad.unwrap_err().message,
        "oauth.dpop_nonce needs oauth.dpop"
    );
}

/// A DPoP caller short of a tool's scopes gets the step-up refusal in the scheme it used
/// (RFC 9449 §7.1); a Bearer caller still gets the Bearer one.
#[tokio::test]
async fn a_step_up_refusal_uses_the_scheme_of_the_request() {
    let _serial = serial().await;
    let s = serve(
        demo_server(ServerOptions::default()),
        dpop_server("allowed"),
    )
    .await;
    let token = sign(
        K1_DER,
        "k1",
        claims(json!({"cnf": {"jkt": client_jkt()}, "scope": "mcp:tools"})),
    );
    let r = dpop_call_tool(s.addr, "write_file", "DPoP", &token, &[&proof(&token)]).await;
    assert_eq!(r.status, 403, "{}", r.body);
    assert_eq!(
        r.header("www-authenticate"),
        format!(
            r#"DPoP error="insufficient_scope", error_description="Insufficient scope", scope="files:write", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", algs="{ALGS}""#
        )
    );
    assert_eq!(r.json()["error"], "insufficient_scope");
    let unbound = sign(K1_DER, "k1", claims(json!({"scope": "mcp:tools"})));
    let r = dpop_call_tool(s.addr, "write_file", "Bearer", &unbound, &[]).await;
    assert_eq!(r.status, 403);
    assert!(r
        .header("www-authenticate")
        .starts_with(r#"Bearer error="insufficient_scope""#));
}

/// A proof of `case` (a row of tests/config/dpop-cases.json) for a request carrying `token`.
fn case_proof(case: &Value, token: &str) -> String {
    let mut c = proof_claims(case["ath_of"].as_str().unwrap_or(token));
    c["iat"] = json!(now() + case["iat_offset"].as_i64().unwrap_or(0));
    for (k, v) in case["claims"].as_object().into_iter().flatten() {
        c[k] = v.clone();
    }
    let mut h = header();
    for (k, v) in case["header"].as_object().into_iter().flatten() {
        h[k] = v.clone();
    }
    let mut der = K2_DER;
    match case["key"].as_str() {
        None => {}
        Some("other_key") => der = K1_DER,
        Some("thief") => {
            der = K1_DER;
            h["jwk"] = json!({"kty": "OKP", "crv": "Ed25519", "x": K1_X});
        }
        Some("private_jwk") => h["jwk"]["d"] = json!("AAAA"),
        Some("hmac") => {
            h["alg"] = json!("HS256");
            h["jwk"] = json!({"kty": "oct", "k": "c2hhcmVk"});
        }
        Some("unsigned") => h["alg"] = json!("none"),
        Some(other) => panic!("{}: no key kind {other}", case["name"]),
    }
    proof_with(h, c, der)
}

/// Every row of the table shared with Python's ASGI mount and Node's handler, over HTTP/1.1 and
/// over HTTP/2: the proof rule is applied once, before either framing's request reaches the server.
#[tokio::test]
async fn every_case_of_the_shared_table_over_http1_and_http2() {
    let _serial = serial().await;
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/config/dpop-cases.json"
    );
    let table: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut oauth =
        json!({"resource": RESOURCE, "issuer": ISSUER, "jwks": {"keys": [jwk("k1", K1_X)]}});
    for (k, v) in table["oauth"].as_object().unwrap() {
        oauth[k] = v.clone();
    }
    let mut config = json!({"oauth": oauth});
    for (k, v) in table["server"].as_object().unwrap() {
        config[k] = v.clone();
    }
    let config = oxmcp::config::Config::from_json(config).unwrap();
    let s = serve(
        demo_server(ServerOptions::default()),
        config.listen.http_config(loopback()).unwrap(),
    )
    .await;
    let (bound, unbound) = (bound_token(), sign(K1_DER, "k1", claims(json!({}))));
    let id_jag = {
        let mut h = Header::new(jsonwebtoken::Algorithm::EdDSA);
        h.kid = Some("k1".into());
        h.typ = Some("oauth-id-jag+jwt".into());
        let der = STANDARD.decode(K1_DER).unwrap();
        jsonwebtoken::encode(&h, &claims(json!({})), &EncodingKey::from_ed_der(&der)).unwrap()
    };
    for h2 in [false, true] {
        for case in table["cases"].as_array().unwrap() {
            let name = format!("{} (h2 {h2})", case["name"].as_str().unwrap());
            let token = match case["token"].as_str().unwrap() {
                "bound" => &bound,
                "unbound" => &unbound,
                _ => &id_jag,
            };
            let scheme = case["scheme"].as_str().unwrap();
            let proofs: Vec<String> = match case["proof"].as_str().unwrap() {
                "good" | "replayed" => vec![case_proof(case, token)],
                "two" => vec![case_proof(case, token), case_proof(case, token)],
                _ => vec![],
            };
            let proofs: Vec<&str> = proofs.iter().map(String::as_str).collect();
            let call = || dpop_call_over(h2, s.addr, "whoami", scheme, token, &proofs);
            if case["proof"] == "replayed" {
                assert_eq!(call().await.status, 200, "{name}");
            }
            let r = call().await;
            let want = &case["expect"];
            assert_eq!(u64::from(r.status), want["status"], "{name}: {}", r.body);
            if r.status == 200 {
                assert!(
                    r.json()["result"]["content"][0]["text"]
                        .as_str()
                        .unwrap()
                        .starts_with("whoami for"),
                    "{name}"
                );
                continue;
            }
            let body = r.json();
            assert_eq!(
                (&body["error"], &body["error_description"]),
                (&want["error"], &want["error_description"]),
                "{name}"
            );
            let challenge = r.header("www-authenticate");
            assert!(
                challenge.starts_with(want["challenge"].as_str().unwrap()),
                "{name}: {challenge}"
            );
        }
    }
}
