//! JS options object → core `ServerOptions`. Every core knob is reachable; unknown keys are an
//! error (a typo must not silently fall back to a default).

use napi::{Error, Result, Status};
use oxmcp::{CacheHint, CacheScope, ServerOptions, ValidationMode};
use serde_json::{Map, Value};
use std::time::Duration;

/// Server identity and instructions, split off the same JS object.
pub(crate) struct Identity {
    pub(crate) name: String,
    pub(crate) version: String,
    pub(crate) title: Option<String>,
    pub(crate) description: Option<String>,
    pub(crate) website_url: Option<String>,
    pub(crate) icons: Option<Value>,
    pub(crate) instructions: Option<String>,
}

fn bad(msg: impl Into<String>) -> Error {
    Error::new(
        Status::InvalidArg,
        format!("INVALID_OPTION: {}", msg.into()),
    )
}

fn string(m: &Map<String, Value>, k: &str) -> Result<Option<String>> {
    match m.get(k) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(bad(format!("{k} must be a string"))),
    }
}
fn boolean(m: &Map<String, Value>, k: &str) -> Result<Option<bool>> {
    match m.get(k) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(_) => Err(bad(format!("{k} must be a boolean"))),
    }
}
fn uint(m: &Map<String, Value>, k: &str) -> Result<Option<u64>> {
    match m.get(k) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_u64()
            .or_else(|| {
                v.as_f64()
                    .filter(|f| *f >= 0.0 && f.fract() == 0.0)
                    .map(|f| f as u64)
            })
            .map(Some)
            .ok_or_else(|| bad(format!("{k} must be a non-negative integer"))),
    }
}
fn millis(m: &Map<String, Value>, k: &str) -> Result<Option<Duration>> {
    Ok(uint(m, k)?.map(Duration::from_millis))
}

fn scope(v: &str) -> Result<CacheScope> {
    match v {
        "public" => Ok(CacheScope::Public),
        "private" => Ok(CacheScope::Private),
        _ => Err(bad(format!(
            "cache scope must be \"public\" or \"private\", got {v:?}"
        ))),
    }
}

fn hint(v: &Value, base: CacheHint, what: &str) -> Result<CacheHint> {
    let Value::Object(m) = v else {
        return Err(bad(format!("{what} must be {{ ttlMs, scope }}")));
    };
    let mut h = base;
    if let Some(t) = uint(m, "ttlMs")? {
        h.ttl_ms = t;
    }
    if let Some(s) = string(m, "scope")?.or(string(m, "cacheScope")?) {
        h.scope = scope(&s)?;
    }
    Ok(h)
}

pub(crate) fn parse(v: Value) -> Result<(Identity, ServerOptions)> {
    let Value::Object(m) = v else {
        return Err(bad("options must be an object"));
    };
    let identity = Identity {
        name: string(&m, "name")?.ok_or_else(|| bad("name is required"))?,
        version: string(&m, "version")?.ok_or_else(|| bad("version is required"))?,
        title: string(&m, "title")?,
        description: string(&m, "description")?,
        website_url: string(&m, "websiteUrl")?,
        icons: m.get("icons").cloned().filter(|v| !v.is_null()),
        instructions: string(&m, "instructions")?,
    };
    let mut o = ServerOptions::default();
    for (k, v) in &m {
        match k.as_str() {
            "name" | "version" | "title" | "description" | "websiteUrl" | "icons"
            | "instructions" => {}
            "validation" => {
                o.validation = match v.as_str() {
                    Some("toolError") | Some("tool-error") => ValidationMode::ToolError,
                    Some("jsonRpcError") | Some("json-rpc-error") => ValidationMode::JsonRpcError,
                    _ => return Err(bad("validation must be \"toolError\" or \"jsonRpcError\"")),
                }
            }
            "lenientCoercion" => o.lenient_coercion = boolean(&m, k)?.unwrap_or(false),
            "cacheTtlMs" => o.cache_default.ttl_ms = uint(&m, k)?.unwrap_or(0),
            "cacheScope" => {
                o.cache_default.scope = scope(
                    v.as_str()
                        .ok_or_else(|| bad("cacheScope must be a string"))?,
                )?
            }
            "cache" => {
                let Value::Object(per) = v else {
                    return Err(bad("cache must be { [method]: { ttlMs, scope } }"));
                };
                for (method, h) in per {
                    if method == "default" {
                        o.cache_default = hint(h, o.cache_default, "cache.default")?;
                    } else {
                        let base = o.cache_default;
                        o.cache.insert(
                            method.clone(),
                            hint(h, base, &format!("cache[{method:?}]"))?,
                        );
                    }
                }
            }
            "pageSize" => {
                let n = uint(&m, k)?.unwrap_or(100);
                if n == 0 {
                    return Err(bad("pageSize must be at least 1"));
                }
                o.page_size = n as usize;
            }
            "stateKey" => {
                o.state_key = match v {
                    Value::Null => None,
                    Value::String(s) if s.len() >= 16 => Some(s.as_bytes().to_vec()),
                    Value::Array(a) if a.len() >= 16 => Some(
                        a.iter()
                            .map(|b| b.as_u64().filter(|b| *b < 256).map(|b| b as u8))
                            .collect::<Option<Vec<u8>>>()
                            .ok_or_else(|| bad("stateKey bytes must be 0..255"))?,
                    ),
                    _ => {
                        return Err(bad(
                            "stateKey must be a string or bytes of at least 16 bytes",
                        ))
                    }
                }
            }
            "stateTtlMs" => o.state_ttl = millis(&m, k)?.unwrap_or(o.state_ttl),
            "includeServerInfo" => o.include_server_info = boolean(&m, k)?.unwrap_or(true),
            "maxListeners" => o.max_listeners = uint(&m, k)?.unwrap_or(1024) as usize,
            "sessionIdleMs" => o.session_idle = millis(&m, k)?.unwrap_or(o.session_idle),
            "maxSessions" => o.max_sessions = uint(&m, k)?.unwrap_or(10_000) as usize,
            "legacyStateless" => o.legacy_stateless = boolean(&m, k)?.unwrap_or(false),
            "exposeInternalErrors" => o.expose_internal_errors = boolean(&m, k)?.unwrap_or(false),
            "toolTimeoutMs" => o.tool_timeout = millis(&m, k)?,
            "forcePrivateCache" => o.force_private_cache = boolean(&m, k)?.unwrap_or(false),
            "maxInFlight" => o.max_in_flight = uint(&m, k)?.map(|n| n as usize),
            other => return Err(bad(format!("unknown server option {other:?}"))),
        }
    }
    Ok((identity, o))
}
