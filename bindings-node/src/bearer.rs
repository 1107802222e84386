//! The TS SDK's `requireBearerAuth({ verifier })` on the core: a [`NativeBearerAuth`] is the
//! core's authenticator built from `oauth` options with the app's `OAuthTokenVerifier` as its
//! verifier hook. The JS middleware hands it each request's head and writes back what the core
//! decided (the refusal, or the caller); it decides nothing itself.

use crate::errors::{self, coded, Code, Result};
use napi::bindgen_prelude::*;
use napi::threadsafe_function::ThreadsafeFunction;
use napi_derive::napi;
use oxmcp::auth::{AuthFuture, AuthRequest, Authenticator, HostVerifier};
use oxmcp::config::{ListenOptions, VerifierHook};
use oxmcp::transport::http::HttpConfig;
use serde_json::{json, Value};
use std::sync::Arc;

/// `(token) => Promise<string>`: the grant as JSON text (`"null"`: not a token the verifier knows).
type VerifyFn<'a> = Function<'a, String, Promise<String>>;
type VerifyTsfn = ThreadsafeFunction<String, Promise<String>, String, Status, false, true>;

struct JsVerifier(VerifyTsfn);

impl HostVerifier for JsVerifier {
    fn verify<'a>(
        &'a self,
        token: &'a str,
    ) -> AuthFuture<'a, std::result::Result<Option<Value>, String>> {
        Box::pin(async move {
            let text = self
                .0
                .call_async(token.to_string())
                .await
                .map_err(|e| e.reason.clone())?
                .await
                .map_err(|e| e.reason.clone())?;
            let v: Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
            Ok((!v.is_null()).then_some(v))
        })
    }
}

/// What the core decided for one request: the refusal to send (`status`, `headers`, `body`),
/// or the `caller` (`{name, scopes, claims}`).
#[napi(object)]
pub struct NativeBearerDecision {
    pub status: Option<u32>,
    pub headers: Option<Vec<Vec<String>>>,
    pub body: Option<String>,
    pub caller: Option<Value>,
}

#[napi]
pub struct NativeBearerAuth {
    auth: Arc<dyn Authenticator>,
}

#[napi]
impl NativeBearerAuth {
    /// `oauth`: the core's `oauth` options (`verifier: true` and the rest); `verify`: the app's
    /// verifier, answering a grant as JSON text.
    #[napi(
        constructor,
        ts_args_type = "oauth: Record<string, unknown>, verify: (token: string) => Promise<string>"
    )]
    pub fn new(oauth: Value, verify: VerifyFn<'_>) -> Result<Self> {
        let tsfn: VerifyTsfn = verify
            .build_threadsafe_function::<String>()
            .weak::<true>()
            .callee_handled::<false>()
            .build()?;
        let mut listen =
            ListenOptions::from_json(json!({ "oauth": oauth })).map_err(crate::options::error)?;
        listen.token_verifier = Some(VerifierHook(Arc::new(JsVerifier(tsfn))));
        let auth = listen
            .apply(HttpConfig::mount())
            .map_err(crate::options::error)?
            .auth
            .ok_or_else(|| coded(Code::InvalidOption, "oauth: no authentication configured"))?;
        Ok(Self { auth })
    }

    /// Decide the request whose head is `method`, `path` and `headers` (`[name, value]` pairs).
    #[napi(ts_return_type = "Promise<NativeBearerDecision>")]
    pub fn check<'env>(
        &self,
        env: &'env Env,
        method: String,
        path: String,
        headers: Vec<Vec<String>>,
    ) -> Result<PromiseRaw<'env, NativeBearerDecision>> {
        let auth = self.auth.clone();
        let method = http::Method::from_bytes(method.as_bytes())
            .map_err(|_| coded(Code::Napi(Status::InvalidArg), "bad HTTP method"))?;
        let mut map = http::HeaderMap::new();
        for pair in headers {
            if let [name, value] = pair.as_slice() {
                if let (Ok(n), Ok(v)) = (
                    http::HeaderName::from_bytes(name.as_bytes()),
                    http::HeaderValue::from_str(value),
                ) {
                    map.append(n, v);
                }
            }
        }
        errors::spawn(env, async move {
            let req = AuthRequest::new(&method, &path, &map, &path);
            Ok(match auth.authenticate_request(req).await {
                Ok(caller) => NativeBearerDecision {
                    status: None,
                    headers: None,
                    body: None,
                    caller: caller
                        .map(|c| json!({"name": c.name, "scopes": c.scopes, "claims": c.claims})),
                },
                Err(r) => {
                    let mut headers = vec![vec!["content-type".into(), "application/json".into()]];
                    for c in r.challenge.iter().chain(&r.more_challenges) {
                        headers.push(vec!["www-authenticate".into(), c.clone()]);
                    }
                    NativeBearerDecision {
                        status: Some(u32::from(r.status)),
                        headers: Some(headers),
                        body: Some(r.body().to_string()),
                        caller: None,
                    }
                }
            })
        })
    }
}
