//! JS HTTP options → the core's HTTP security settings: `tokens` (named bearer tokens with
//! scopes and tool/resource/prompt allow-lists), `oauth` (RFC 9728 metadata, JWT access tokens
//! against a JWKS) and `rateLimit` (per caller). Thin: the parsing is the core's
//! (`NamedTokens::parse` / `from_json`); this only maps the camelCase names.

use crate::errors::coded;
use napi::Result;
use oxmcp::auth::{Allow, Auth, JwtValidator, NamedTokens, ProtectedResource};
use oxmcp::limits::{RateLimit, RateLimiter};
use serde_json::{Map, Value};

fn bad(msg: impl Into<String>) -> napi::Error {
    coded("INVALID_OPTION", msg.into())
}

fn strings(v: Option<&Value>, what: &str) -> Result<Option<Vec<String>>> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(vec![s.clone()])),
        Some(Value::Array(a)) => a
            .iter()
            .map(|s| s.as_str().map(str::to_string))
            .collect::<Option<Vec<_>>>()
            .map(Some)
            .ok_or_else(|| bad(format!("{what} must be an array of strings"))),
        Some(_) => Err(bad(format!("{what} must be an array of strings"))),
    }
}

fn text(m: &Map<String, Value>, k: &str) -> Result<Option<String>> {
    match m.get(k) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(bad(format!("oauth.{k} must be a string"))),
    }
}

const OAUTH_KEYS: &[&str] = &[
    "resource",
    "authorizationServers",
    "scopes",
    "issuer",
    "audience",
    "jwks",
    "jwksUrl",
    "resourceName",
    "documentation",
    "allow",
];

/// `tokens` (`{ alice: { tokens, scopes?, tools?, resources?, prompts? } | "tok" | ["tok", ...] }`
/// or `"alice=tok,bob=tok"`) and `oauth` (`{ resource, authorizationServers, scopes, issuer,
/// audience, jwks | jwksUrl, resourceName, documentation, allow }`). `None` when neither is set.
pub(crate) fn build(tokens: Option<&Value>, oauth: Option<&Value>) -> Result<Option<Auth>> {
    let mut auth = Auth::new();
    let mut on = false;
    match tokens {
        None | Some(Value::Null) => {}
        Some(t) => {
            let table =
                match t {
                    Value::String(s) => NamedTokens::parse(s),
                    Value::Object(_) => NamedTokens::from_json(t),
                    _ => return Err(bad(
                        "tokens must be an object keyed by caller or a \"name=token,...\" string",
                    )),
                }
                .map_err(|e| bad(format!("tokens: {}", e.0)))?;
            auth = auth.tokens(table);
            on = true;
        }
    }
    match oauth {
        None | Some(Value::Null) => {}
        Some(Value::Object(o)) => {
            if let Some(k) = o.keys().find(|k| !OAUTH_KEYS.contains(&k.as_str())) {
                return Err(bad(format!("unknown oauth option {k:?}")));
            }
            let resource = text(o, "resource")?;
            if let Some(r) = &resource {
                let servers = strings(o.get("authorizationServers"), "oauth.authorizationServers")?
                    .unwrap_or_default();
                let mut pr = ProtectedResource::new(r.clone(), servers)
                    .scopes(strings(o.get("scopes"), "oauth.scopes")?.unwrap_or_default());
                if let Some(n) = text(o, "resourceName")? {
                    pr = pr.name(n);
                }
                if let Some(d) = text(o, "documentation")? {
                    pr = pr.documentation(d);
                }
                auth = auth.resource(pr);
            }
            let jwks = o.get("jwks").filter(|v| !v.is_null());
            let jwks_url = text(o, "jwksUrl")?;
            if jwks.is_some() || jwks_url.is_some() {
                let issuer =
                    text(o, "issuer")?.ok_or_else(|| bad("oauth: jwks/jwksUrl needs issuer"))?;
                let audience = text(o, "audience")?
                    .or(resource)
                    .ok_or_else(|| bad("oauth: jwks/jwksUrl needs audience or resource"))?;
                let v = match (jwks, jwks_url) {
                    (Some(k), _) => JwtValidator::with_jwks(issuer, audience, k)
                        .map_err(|e| bad(format!("oauth.jwks: {}", e.0)))?,
                    (None, Some(url)) => JwtValidator::with_jwks_url(issuer, audience, url),
                    (None, None) => unreachable!(),
                };
                auth = auth.jwt(v);
                on = true;
            }
            match o.get("allow") {
                None | Some(Value::Null) => {}
                // { "caller-name": { tools, resources, prompts } } for callers that come from a JWT.
                Some(Value::Object(per)) => {
                    for (name, a) in per {
                        let what = |k: &str| format!("oauth.allow.{name}.{k}");
                        let mut allow = Allow::default();
                        allow.tools = strings(a.get("tools"), &what("tools"))?;
                        allow.resources = strings(a.get("resources"), &what("resources"))?;
                        allow.prompts = strings(a.get("prompts"), &what("prompts"))?;
                        auth = auth.allow(name.clone(), allow);
                    }
                }
                Some(_) => return Err(bad("oauth.allow must be an object keyed by caller")),
            }
            if !on {
                return Err(bad(
                    "oauth: give jwks or jwksUrl (or tokens) so bearer tokens can be checked",
                ));
            }
        }
        Some(_) => return Err(bad("oauth must be an object")),
    }
    Ok(on.then_some(auth))
}

fn one_limit(v: &Value, what: &str) -> Result<RateLimit> {
    let rate = match v {
        Value::Number(n) => n.as_f64(),
        Value::Object(m) => m.get("rate").and_then(Value::as_f64),
        _ => None,
    }
    .filter(|r| r.is_finite() && *r > 0.0)
    .ok_or_else(|| {
        bad(format!(
            "{what} must be a positive number (per second) or {{ rate, burst }}"
        ))
    })?;
    let burst = match v.get("burst") {
        None | Some(Value::Null) => rate.ceil().max(1.0) as u32,
        Some(b) => b
            .as_u64()
            .filter(|b| *b >= 1 && *b <= u32::MAX as u64)
            .ok_or_else(|| bad(format!("{what}.burst must be a positive integer")))?
            as u32,
    };
    Ok(RateLimit::per_second(rate, burst))
}

/// `rateLimit`: requests per second per caller (a number), or `{ rate, burst?, perCaller? }`
/// (`perCaller`: `{ name: rate | { rate, burst } }`).
pub(crate) fn rate_limiter(v: &Value) -> Result<RateLimiter> {
    if let Value::Object(m) = v {
        if let Some(k) = m
            .keys()
            .find(|k| !matches!(k.as_str(), "rate" | "burst" | "perCaller"))
        {
            return Err(bad(format!("unknown rateLimit option {k:?}")));
        }
    }
    let mut rl = RateLimiter::new(one_limit(v, "rateLimit")?);
    match v.get("perCaller") {
        None | Some(Value::Null) => {}
        Some(Value::Object(per)) => {
            for (name, l) in per {
                rl = rl.caller(
                    name.clone(),
                    one_limit(l, &format!("rateLimit.perCaller.{name}"))?,
                );
            }
        }
        Some(_) => return Err(bad("rateLimit.perCaller must be an object keyed by caller")),
    }
    Ok(rl)
}
