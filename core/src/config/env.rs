//! The `OXMCP_*` environment (the Rust examples and any host that wants it) as one [`Config`].

use super::names::names;
use super::{invalid, Config, ConfigError, ListenOptions, Result, ServerConfig};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

impl Config {
    /// `OXMCP_<OPTION>` (upper snake case: `OXMCP_PAGE_SIZE`, `OXMCP_MAX_BODY_BYTES`,
    /// `OXMCP_RATE_LIMIT`, ...) for every option but the identity ones; a value is JSON when it
    /// parses as the option's type, else a string. The auth variables of docs/SECURITY.md fill
    /// `tokens` and `oauth`: `OXMCP_TOKENS` / `OXMCP_TOKENS_FILE`, `OXMCP_RESOURCE`,
    /// `OXMCP_AUTH_SERVERS`, `OXMCP_SCOPES`, `OXMCP_JWKS_URL`, `OXMCP_JWT_ISSUER`,
    /// `OXMCP_JWT_AUDIENCE`.
    pub fn from_env() -> Result<Self> {
        Self::from_vars(std::env::vars())
    }

    /// [`Config::from_env`] over given variables (tests, or a host's own environment).
    pub fn from_vars(vars: impl IntoIterator<Item = (String, String)>) -> Result<Self> {
        let vars: BTreeMap<String, String> = vars
            .into_iter()
            .filter(|(k, v)| k.starts_with("OXMCP_") && !v.trim().is_empty())
            .collect();
        let identity = [
            "name",
            "version",
            "title",
            "description",
            "website_url",
            "icons",
        ];
        let mut raw = Map::new();
        let names = names::<ServerConfig>()
            .chain(names::<ListenOptions>())
            .filter(|f| !identity.contains(f) && *f != "instructions");
        for f in names {
            let Some(text) = vars.get(&format!("OXMCP_{}", f.to_ascii_uppercase())) else {
                continue;
            };
            let text = text.trim();
            // A mode in the environment is octal text, as chmod takes it (660 is not 0o1224).
            if f == "uds_mode" {
                raw.insert(f.to_string(), Value::String(text.to_string()));
                continue;
            }
            // JSON when it is a valid value of the option, else the first of: the text, a
            // comma-separated list (`OXMCP_ALLOWED_HOSTS=a,b`), 1/0 as a boolean. When none is,
            // the JSON's (or the text's) error is the clearer one (`page_size must be at least 1`).
            let json = serde_json::from_str::<Value>(text).ok();
            let as_text = Value::String(text.to_string());
            let list: Value = text
                .split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(|s| Value::String(s.into()))
                .collect();
            let flag = match text {
                "1" => Some(Value::Bool(true)),
                "0" => Some(Value::Bool(false)),
                _ => None,
            };
            let found = json
                .iter()
                .chain([&as_text, &list])
                .chain(flag.iter())
                .find(|v| Self::accepts(f, v))
                .cloned();
            let v = found.unwrap_or_else(|| json.unwrap_or(as_text));
            raw.insert(f.to_string(), v);
        }
        if !raw.contains_key("tokens") {
            if let Some(p) = vars.get("OXMCP_TOKENS_FILE") {
                let text = std::fs::read_to_string(p.trim())
                    .map_err(|e| invalid(format!("OXMCP_TOKENS_FILE {}: {e}", p.trim())))?;
                raw.insert("tokens".into(), Value::String(text));
            }
        }
        if !raw.contains_key("oauth") {
            let mut o = Map::new();
            let list = |k: &str| -> Option<Value> {
                vars.get(k).map(|v| {
                    v.split([',', ' '])
                        .filter(|s| !s.is_empty())
                        .map(|s| Value::String(s.into()))
                        .collect()
                })
            };
            for (var, key) in [
                ("OXMCP_RESOURCE", "resource"),
                ("OXMCP_JWKS_URL", "jwks_url"),
                ("OXMCP_JWT_ISSUER", "issuer"),
                ("OXMCP_JWT_AUDIENCE", "audience"),
            ] {
                if let Some(v) = vars.get(var) {
                    o.insert(key.into(), Value::String(v.trim().into()));
                }
            }
            if let Some(s) = list("OXMCP_AUTH_SERVERS").or_else(|| {
                vars.get("OXMCP_JWT_ISSUER")
                    .map(|i| Value::Array(vec![Value::String(i.trim().into())]))
            }) {
                o.insert("authorization_servers".into(), s);
            }
            if let Some(s) = list("OXMCP_SCOPES") {
                o.insert("scopes".into(), s);
            }
            // Metadata alone (no JWKS) documents the server but checks nothing: only with tokens.
            let checks = o.contains_key("jwks_url") || raw.contains_key("tokens");
            if o.contains_key("resource") && checks || o.contains_key("jwks_url") {
                raw.insert("oauth".into(), Value::Object(o));
            }
        }
        Self::from_json(Value::Object(raw)).map_err(|e| ConfigError {
            kind: e.kind,
            message: format!("in the OXMCP_* environment: {}", e.message),
        })
    }

    /// Whether `v` is a valid value of option `field` (for the environment's JSON-or-text rule).
    fn accepts(field: &str, v: &Value) -> bool {
        let mut m = Map::new();
        m.insert(field.into(), v.clone());
        Self::from_json(Value::Object(m)).is_ok()
    }
}
