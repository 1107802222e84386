//! Python keyword options → the core's HTTP security settings: named bearer tokens (per caller,
//! with scopes and tool/resource/prompt allow-lists), OAuth resource-server settings (RFC 9728
//! metadata, JWT access tokens against a JWKS) and the per-caller rate limit.

use crate::convert::from_py;
use oxmcp::auth::{Auth, JwtValidator, NamedTokens, ProtectedResource};
use oxmcp::limits::{RateLimit, RateLimiter};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use serde_json::Value;

fn strings(v: Option<&Value>, what: &str) -> PyResult<Vec<String>> {
    match v {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::String(s)) => Ok(vec![s.clone()]),
        Some(Value::Array(a)) => a
            .iter()
            .map(|s| {
                s.as_str()
                    .map(str::to_string)
                    .ok_or_else(|| PyTypeError::new_err(format!("{what}: strings expected")))
            })
            .collect(),
        Some(_) => Err(PyTypeError::new_err(format!(
            "{what}: a list of strings expected"
        ))),
    }
}

fn text(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(str::to_string)
}

/// `tokens` (the core's `NamedTokens` JSON: `{"alice": {"tokens": [...], "scopes": [...],
/// "tools": [...], "resources": [...], "prompts": [...]}, "ci": "secret"}`, or the compact string
/// `"alice=s3cret,bob=t0ken"`) and `oauth` (`{"resource", "authorization_servers", "scopes",
/// "issuer", "audience", "jwks" | "jwks_url", "resource_name", "documentation"}`).
/// `None` when neither is given (auth off).
pub(crate) fn build(
    tokens: Option<&Bound<'_, PyAny>>,
    oauth: Option<&Bound<'_, PyAny>>,
) -> PyResult<Option<Auth>> {
    let mut auth = Auth::new();
    let mut on = false;
    if let Some(t) = tokens.filter(|t| !t.is_none()) {
        let table = if let Ok(s) = t.extract::<String>() {
            NamedTokens::parse(&s)
        } else {
            NamedTokens::from_json(&from_py(t)?)
        }
        .map_err(|e| PyValueError::new_err(format!("tokens: {e}")))?;
        auth = auth.tokens(table);
        on = true;
    }
    if let Some(o) = oauth.filter(|o| !o.is_none()) {
        let o = from_py(o)?;
        if !o.is_object() {
            return Err(PyTypeError::new_err("oauth must be a dict"));
        }
        let resource = text(&o, "resource");
        if let Some(r) = &resource {
            let servers = strings(
                o.get("authorization_servers"),
                "oauth.authorization_servers",
            )?;
            let mut pr = ProtectedResource::new(r.clone(), servers)
                .scopes(strings(o.get("scopes"), "oauth.scopes")?);
            if let Some(n) = text(&o, "resource_name") {
                pr = pr.name(n);
            }
            if let Some(d) = text(&o, "documentation") {
                pr = pr.documentation(d);
            }
            auth = auth.resource(pr);
        }
        let (jwks, jwks_url) = (o.get("jwks").filter(|v| !v.is_null()), text(&o, "jwks_url"));
        if jwks.is_some() || jwks_url.is_some() {
            let issuer = text(&o, "issuer")
                .ok_or_else(|| PyValueError::new_err("oauth: jwks/jwks_url needs issuer"))?;
            let audience = text(&o, "audience").or(resource).ok_or_else(|| {
                PyValueError::new_err("oauth: jwks/jwks_url needs audience or resource")
            })?;
            let v = match (jwks, jwks_url) {
                (Some(k), _) => JwtValidator::with_jwks(issuer, audience, k)
                    .map_err(|e| PyValueError::new_err(format!("oauth.jwks: {e}")))?,
                (None, Some(url)) => JwtValidator::with_jwks_url(issuer, audience, url),
                (None, None) => unreachable!(),
            };
            auth = auth.jwt(v);
            on = true;
        }
        if let Some(Value::Object(allow)) = o.get("allow") {
            // {"caller-name": {"tools": [...], ...}} for callers that come from a JWT.
            for (name, a) in allow {
                let lists = |k: &str| -> PyResult<Option<Vec<String>>> {
                    Ok(a.get(k)
                        .filter(|v| !v.is_null())
                        .map(|v| strings(Some(v), &format!("oauth.allow.{name}.{k}")))
                        .transpose()?)
                };
                let mut allow = oxmcp::auth::Allow::default();
                allow.tools = lists("tools")?;
                allow.resources = lists("resources")?;
                allow.prompts = lists("prompts")?;
                auth = auth.allow(name.clone(), allow);
            }
        }
        if !on {
            return Err(PyValueError::new_err(
                "oauth: give jwks or jwks_url (or named tokens) so tokens can be checked",
            ));
        }
    }
    Ok(on.then_some(auth))
}

fn one_limit(v: &Value, what: &str) -> PyResult<RateLimit> {
    match v {
        Value::Number(n) => {
            let rate = n.as_f64().unwrap_or(0.0);
            Ok(RateLimit::per_second(rate, rate.ceil().max(1.0) as u32))
        }
        Value::Object(_) => {
            let rate = v.get("rate").and_then(Value::as_f64).ok_or_else(|| {
                PyValueError::new_err(format!("{what}: rate (requests per second) expected"))
            })?;
            let burst = v
                .get("burst")
                .and_then(Value::as_u64)
                .map(|b| b as u32)
                .unwrap_or(rate.ceil().max(1.0) as u32);
            Ok(RateLimit::per_second(rate, burst))
        }
        _ => Err(PyTypeError::new_err(format!(
            "{what}: a number (per second) or {{\"rate\", \"burst\"}} expected"
        ))),
    }
}

/// `rate_limit`: requests per second per caller (a number), or `{"rate": r, "burst": b,
/// "per_caller": {"name": r | {"rate", "burst"}}}`.
pub(crate) fn rate_limiter(v: &Bound<'_, PyAny>) -> PyResult<RateLimiter> {
    let v = from_py(v)?;
    let mut rl = RateLimiter::new(one_limit(&v, "rate_limit")?);
    if let Some(Value::Object(per)) = v.get("per_caller") {
        for (name, l) in per {
            rl = rl.caller(
                name.clone(),
                one_limit(l, &format!("rate_limit.per_caller.{name}"))?,
            );
        }
    }
    Ok(rl)
}
