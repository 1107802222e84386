//! Named bearer tokens: each caller has a name, one or more tokens (several at once, so a token
//! can be rotated without downtime), optional scopes and an optional allow-list. Only SHA-256
//! hashes are kept; a presented token is hashed and compared against every stored hash in
//! constant time, so neither timing nor an early exit tells which (or whether one) matched.

use crate::identity::Allow;
use crate::identity::Caller;
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::sync::Arc;
use subtle::{ConditionallySelectable, ConstantTimeEq};

/// A bad token configuration (named after what is wrong; never contains a token).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenConfigError(pub String);

impl std::fmt::Display for TokenConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "token configuration: {}", self.0)
    }
}
impl std::error::Error for TokenConfigError {}

#[derive(Clone, Debug)]
struct Profile {
    name: String,
    scopes: Vec<String>,
    allow: Option<Arc<Allow>>,
}

/// The named-token table.
#[derive(Clone, Debug, Default)]
pub struct NamedTokens {
    hashes: Vec<[u8; 32]>,
    owner: Vec<u32>,
    profiles: Vec<Profile>,
}

/// SHA-256 of a token, hex-encoded (what a token file may hold instead of the token).
pub fn token_hash_hex(token: &str) -> String {
    Sha256::digest(token.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn parse_hex32(s: &str) -> Option<[u8; 32]> {
    if s.len() != 64 {
        return None;
    }
    let mut out = [0u8; 32];
    for (i, o) in out.iter_mut().enumerate() {
        *o = u8::from_str_radix(s.get(2 * i..2 * i + 2)?, 16).ok()?;
    }
    Some(out)
}

impl NamedTokens {
    pub fn new() -> Self {
        Self::default()
    }
    pub fn is_empty(&self) -> bool {
        self.hashes.is_empty()
    }
    /// Number of callers.
    pub fn callers(&self) -> usize {
        self.profiles.len()
    }

    fn profile(&mut self, name: &str) -> u32 {
        if let Some(i) = self.profiles.iter().position(|p| p.name == name) {
            return i as u32;
        }
        self.profiles.push(Profile {
            name: name.to_string(),
            scopes: Vec::new(),
            allow: None,
        });
        (self.profiles.len() - 1) as u32
    }

    /// Add a token for `caller` (a second token for the same caller is how rotation works).
    /// `sha256:<64 hex>` adds a pre-hashed token.
    pub fn token(mut self, caller: &str, token: &str) -> Self {
        self.add_token(caller, token);
        self
    }
    pub fn add_token(&mut self, caller: &str, token: &str) {
        let hash = match token.strip_prefix("sha256:").and_then(parse_hex32) {
            Some(h) => h,
            None => Sha256::digest(token.as_bytes()).into(),
        };
        let owner = self.profile(caller);
        self.hashes.push(hash);
        self.owner.push(owner);
    }
    /// Stop accepting a token (the other half of a rotation).
    pub fn revoke(&mut self, token: &str) {
        let h: [u8; 32] = Sha256::digest(token.as_bytes()).into();
        let keep: Vec<bool> = self.hashes.iter().map(|x| *x != h).collect();
        let mut i = 0;
        self.hashes.retain(|_| {
            i += 1;
            keep[i - 1]
        });
        let mut j = 0;
        self.owner.retain(|_| {
            j += 1;
            keep[j - 1]
        });
    }
    /// Scopes the caller holds (checked against tools' required scopes).
    pub fn scopes<S: Into<String>>(
        mut self,
        caller: &str,
        scopes: impl IntoIterator<Item = S>,
    ) -> Self {
        let i = self.profile(caller) as usize;
        self.profiles[i].scopes = scopes.into_iter().map(Into::into).collect();
        self
    }
    /// Limit what the caller sees and may use.
    pub fn allow(mut self, caller: &str, allow: Allow) -> Self {
        let i = self.profile(caller) as usize;
        self.profiles[i].allow = Some(Arc::new(allow));
        self
    }

    /// The caller a presented token belongs to. Every stored hash is compared, in constant time.
    pub fn lookup(&self, token: &str) -> Option<Caller> {
        let presented: [u8; 32] = Sha256::digest(token.as_bytes()).into();
        let mut found = subtle::Choice::from(0u8);
        let mut owner = 0u32;
        for (h, o) in self.hashes.iter().zip(&self.owner) {
            let eq = h.ct_eq(&presented);
            owner.conditional_assign(o, eq);
            found |= eq;
        }
        if !bool::from(found) {
            return None;
        }
        let p = &self.profiles[owner as usize];
        Some(Caller {
            name: p.name.clone(),
            scopes: p.scopes.clone(),
            claims: None,
            allow: p.allow.clone(),
        })
    }

    /// Parse a configuration. JSON (an object keyed by caller name):
    ///
    /// ```json
    /// {"alice": {"tokens": ["s3cret", "sha256:9f86d0…"], "scopes": ["files:read"],
    ///            "tools": ["echo"], "resources": ["file:///docs/*"], "prompts": []},
    ///  "ci":    {"token": "other-secret"}}
    /// ```
    ///
    /// or the compact form `alice=s3cret,alice=new-s3cret,bob=t0ken` (no scopes or lists).
    pub fn parse(text: &str) -> Result<Self, TokenConfigError> {
        let t = text.trim();
        if t.starts_with('{') {
            let v: Value = serde_json::from_str(t)
                .map_err(|e| TokenConfigError(format!("invalid JSON: {e}")))?;
            return Self::from_json(&v);
        }
        let mut out = Self::new();
        for item in t
            .split([',', '\n', ';'])
            .map(str::trim)
            .filter(|s| !s.is_empty())
        {
            let (name, token) = item
                .split_once('=')
                .ok_or_else(|| TokenConfigError("expected NAME=TOKEN entries".into()))?;
            let (name, token) = (name.trim(), token.trim());
            if name.is_empty() || token.is_empty() {
                return Err(TokenConfigError("empty caller name or token".into()));
            }
            out.add_token(name, token);
        }
        if out.is_empty() {
            return Err(TokenConfigError("no tokens".into()));
        }
        Ok(out)
    }

    pub fn from_json(v: &Value) -> Result<Self, TokenConfigError> {
        let obj = v
            .as_object()
            .ok_or_else(|| TokenConfigError("expected an object keyed by caller name".into()))?;
        let strings =
            |c: &Value, k: &str, who: &str| -> Result<Option<Vec<String>>, TokenConfigError> {
                match c.get(k) {
                    None | Some(Value::Null) => Ok(None),
                    Some(Value::Array(a)) => a
                        .iter()
                        .map(|s| {
                            s.as_str().map(str::to_string).ok_or_else(|| {
                                TokenConfigError(format!("{who}.{k}: strings expected"))
                            })
                        })
                        .collect::<Result<Vec<_>, _>>()
                        .map(Some),
                    Some(Value::String(s)) => Ok(Some(vec![s.clone()])),
                    Some(_) => Err(TokenConfigError(format!(
                        "{who}.{k}: a list of strings expected"
                    ))),
                }
            };
        let mut out = Self::new();
        for (name, c) in obj {
            let c = match c {
                Value::String(_) | Value::Array(_) => &serde_json::json!({ "tokens": c }),
                Value::Object(_) => c,
                _ => return Err(TokenConfigError(format!("{name}: an object expected"))),
            };
            let mut tokens = strings(c, "tokens", name)?.unwrap_or_default();
            tokens.extend(strings(c, "token", name)?.unwrap_or_default());
            if tokens.is_empty() {
                return Err(TokenConfigError(format!("{name}: no tokens")));
            }
            for t in &tokens {
                out.add_token(name, t);
            }
            if let Some(s) = strings(c, "scopes", name)? {
                out = out.scopes(name, s);
            }
            let (tools, resources, prompts) = (
                strings(c, "tools", name)?,
                strings(c, "resources", name)?,
                strings(c, "prompts", name)?,
            );
            if tools.is_some() || resources.is_some() || prompts.is_some() {
                let allow = Allow {
                    tools,
                    resources,
                    prompts,
                };
                out = out.allow(name, allow);
            }
        }
        if out.is_empty() {
            return Err(TokenConfigError("no callers".into()));
        }
        Ok(out)
    }

    /// Read `path` (JSON or compact form).
    pub fn from_file(path: impl AsRef<std::path::Path>) -> Result<Self, TokenConfigError> {
        let p = path.as_ref();
        let text = std::fs::read_to_string(p)
            .map_err(|e| TokenConfigError(format!("{}: {e}", p.display())))?;
        Self::parse(&text)
    }

    /// From the environment: `{var}` holds the configuration, or `{var}_FILE` names a file with
    /// it. `Ok(None)` when neither is set.
    pub fn from_env(var: &str) -> Result<Option<Self>, TokenConfigError> {
        if let Ok(v) = std::env::var(var) {
            if !v.trim().is_empty() {
                return Self::parse(&v).map(Some);
            }
        }
        match std::env::var(format!("{var}_FILE")) {
            Ok(p) if !p.trim().is_empty() => Self::from_file(p.trim()).map(Some),
            _ => Ok(None),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn lookup_rotation_and_revocation() {
        let mut t = NamedTokens::new()
            .token("alice", "old")
            .token("alice", "new")
            .token("bob", "b")
            .scopes("bob", ["x"]);
        assert_eq!(t.lookup("old").unwrap().name, "alice");
        assert_eq!(t.lookup("new").unwrap().name, "alice");
        assert_eq!(t.lookup("b").unwrap().scopes, vec!["x"]);
        assert!(t.lookup("nope").is_none());
        assert!(t.lookup("").is_none());
        t.revoke("old");
        assert!(t.lookup("old").is_none());
        assert_eq!(t.lookup("new").unwrap().name, "alice");
    }

    #[test]
    fn parse_forms() {
        let t = NamedTokens::parse("alice=a1, alice=a2;bob=b1").unwrap();
        assert_eq!(t.callers(), 2);
        assert_eq!(t.lookup("a2").unwrap().name, "alice");
        let hashed = format!("sha256:{}", token_hash_hex("hidden"));
        let j =
            json!({"alice": {"tokens": [hashed], "tools": ["echo"], "scopes": "s"}, "ci": "plain"})
                .to_string();
        let t = NamedTokens::parse(&j).unwrap();
        let a = t.lookup("hidden").unwrap();
        assert!(a.may_use("tool", "echo") && !a.may_use("tool", "add") && a.may_use("prompt", "p"));
        assert_eq!(a.scopes, vec!["s"]);
        assert_eq!(t.lookup("plain").unwrap().name, "ci");
        assert!(NamedTokens::parse("").is_err());
        assert!(NamedTokens::parse("novalue").is_err());
        assert!(NamedTokens::parse(r#"{"a": {}}"#).is_err());
    }
}
