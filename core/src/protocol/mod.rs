//! Spec types and constants, for both eras. Descriptors (tools, resources, prompts) are kept as
//! JSON objects built once at registration; results that handlers produce are typed.

mod content;
mod input;
pub(crate) mod json_text;
mod meta;
mod method;
pub use content::*;
pub use input::{tool_use_results_problem, wants_sampling_tools, InputRequest};
pub(crate) use meta::{MetaVersion, RequestMeta};
pub(crate) use method::Method;

use serde_json::Value;

/// The stateless revision: per-request `_meta`, no `initialize`.
pub const MODERN_VERSION: &str = "2026-07-28";
/// Revisions negotiated through `initialize`, newest first.
pub const LEGACY_VERSIONS: [&str; 4] = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];
/// Every revision served, newest first (what `server/discover` and -32022 list).
pub const SUPPORTED_VERSIONS: [&str; 5] = [
    MODERN_VERSION,
    "2025-11-25",
    "2025-06-18",
    "2025-03-26",
    "2024-11-05",
];

pub const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
pub const META_CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
pub const META_CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
pub const META_LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
pub const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
pub const META_SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

/// Which wire a request is served under.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Era {
    /// 2026-07-28: stateless, per-request `_meta`, MRTR.
    Modern,
    /// ≤ 2025-11-25: `initialize`, sessions, server→client requests.
    Legacy,
}

pub fn is_legacy_version(v: &str) -> bool {
    LEGACY_VERSIONS.contains(&v)
}

/// A protocol version as a request keeps it: every revision we serve is a `'static` string,
/// so only an unknown one (which is refused) is copied.
pub(crate) fn version_cow(v: &str) -> std::borrow::Cow<'static, str> {
    match SUPPORTED_VERSIONS.iter().find(|s| **s == v) {
        Some(s) => std::borrow::Cow::Borrowed(s),
        None => std::borrow::Cow::Owned(v.to_owned()),
    }
}

/// JSON-RPC batches (arrays) exist in 2025-03-26 only: 2025-06-18 removed them again, and
/// neither 2024-11-05 nor 2026-07-28 has them.
pub fn allows_batches(version: &str) -> bool {
    version == "2025-03-26"
}

/// RFC 5424 levels, ordered by severity. Serialised by their wire names (`"warning"`).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum LogLevel {
    Debug,
    Info,
    Notice,
    Warning,
    Error,
    Critical,
    Alert,
    Emergency,
}

impl LogLevel {
    pub const ALL: [LogLevel; 8] = [
        Self::Debug,
        Self::Info,
        Self::Notice,
        Self::Warning,
        Self::Error,
        Self::Critical,
        Self::Alert,
        Self::Emergency,
    ];
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Debug => "debug",
            Self::Info => "info",
            Self::Notice => "notice",
            Self::Warning => "warning",
            Self::Error => "error",
            Self::Critical => "critical",
            Self::Alert => "alert",
            Self::Emergency => "emergency",
        }
    }
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|l| l.as_str() == s)
    }
}

/// The client capabilities an input request needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ClientCapability {
    /// Form-mode elicitation (`elicitation: {}` or `{form:{}}`).
    Elicitation,
    /// URL-mode elicitation (`elicitation: {url:{}}`).
    ElicitationUrl,
    Sampling,
    /// Tool-enabled sampling (`sampling: {tools:{}}`).
    SamplingTools,
    Roots,
}

impl ClientCapability {
    /// Whether `caps` (a `ClientCapabilities` object) declares this capability.
    pub fn declared_in(self, caps: &Value) -> bool {
        match self {
            Self::Elicitation => match caps.get("elicitation") {
                Some(Value::Object(m)) => m.is_empty() || m.contains_key("form"),
                _ => false,
            },
            Self::ElicitationUrl => caps.get("elicitation").and_then(|e| e.get("url")).is_some(),
            Self::Sampling => caps.get("sampling").is_some_and(Value::is_object),
            Self::SamplingTools => caps.get("sampling").and_then(|s| s.get("tools")).is_some(),
            Self::Roots => caps.get("roots").is_some_and(Value::is_object),
        }
    }
    /// The `requiredCapabilities` object for a -32021 error.
    pub fn required_json(self) -> Value {
        use serde_json::json;
        match self {
            Self::Elicitation => json!({"elicitation": {}}),
            Self::ElicitationUrl => json!({"elicitation": {"url": {}}}),
            Self::Sampling => json!({"sampling": {}}),
            Self::SamplingTools => json!({"sampling": {"tools": {}}}),
            Self::Roots => json!({"roots": {}}),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::borrow::Cow;

    /// Known revisions are kept as `'static` strings (no copy per request, none for the
    /// handler's `Context`); anything else is kept as it came.
    #[test]
    fn known_versions_are_borrowed_others_kept() {
        for v in SUPPORTED_VERSIONS {
            assert!(matches!(version_cow(v), Cow::Borrowed(b) if b == v));
        }
        assert!(matches!(version_cow("2099-01-01"), Cow::Owned(o) if o == "2099-01-01"));
    }
}
