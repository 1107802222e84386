//! The inputs a handler may ask its client for (elicitation, sampling, roots): the request's
//! wire shape, the capability it needs, and whether an answer has its result's shape. The
//! `Context` asks them (MRTR or a server→client request) and the tasks keep them while a task
//! waits; both read them from here.

use super::ClientCapability;
use serde_json::{json, Map, Value};

/// One input a handler asks the client for.
#[derive(Clone, Debug, PartialEq)]
pub enum InputRequest {
    /// `elicitation/create` with these params (`mode`, `message`, `requestedSchema` or `url`).
    Elicit(Value),
    /// `sampling/createMessage` with these params.
    Sample(Value),
    /// `roots/list`.
    ListRoots,
}

impl InputRequest {
    pub fn method(&self) -> &'static str {
        match self {
            Self::Elicit(_) => "elicitation/create",
            Self::Sample(_) => "sampling/createMessage",
            Self::ListRoots => "roots/list",
        }
    }
    pub(crate) fn capability(&self) -> ClientCapability {
        match self {
            Self::Elicit(p) if p.get("mode").and_then(Value::as_str) == Some("url") => {
                ClientCapability::ElicitationUrl
            }
            Self::Elicit(_) => ClientCapability::Elicitation,
            Self::Sample(p) if p.get("tools").is_some() => ClientCapability::SamplingTools,
            Self::Sample(_) => ClientCapability::Sampling,
            Self::ListRoots => ClientCapability::Roots,
        }
    }
    pub(crate) fn params(&self) -> Option<Value> {
        match self {
            Self::Elicit(p) => {
                let mut p = p.clone();
                if p.get("mode").is_none() && p.get("url").is_none() {
                    p["mode"] = json!("form");
                }
                Some(p)
            }
            Self::Sample(p) => Some(p.clone()),
            Self::ListRoots => None,
        }
    }
    /// The `{method, params}` object of an `inputRequests` entry (no `jsonrpc`/`id`).
    pub(crate) fn to_json(&self) -> Value {
        let mut m = Map::new();
        m.insert("method".into(), json!(self.method()));
        if let Some(p) = self.params() {
            m.insert("params".into(), p);
        }
        Value::Object(m)
    }
    /// The request an `inputRequests` entry (`to_json`'s shape) stands for.
    pub(crate) fn from_json(v: &Value) -> Option<Self> {
        let params = || v.get("params").cloned().unwrap_or_else(|| json!({}));
        match v.get("method")?.as_str()? {
            "elicitation/create" => Some(Self::Elicit(params())),
            "sampling/createMessage" => Some(Self::Sample(params())),
            "roots/list" => Some(Self::ListRoots),
            _ => None,
        }
    }
    /// Whether `answer` has the shape of this request's result.
    pub(crate) fn accepts(&self, answer: &Value) -> bool {
        match self {
            Self::Elicit(_) => {
                matches!(
                    answer.get("action").and_then(Value::as_str),
                    Some("accept" | "decline" | "cancel")
                ) && answer.get("content").is_none_or(Value::is_object)
            }
            Self::Sample(_) => answer.get("role").is_some() && answer.get("content").is_some(),
            Self::ListRoots => answer.get("roots").is_some_and(Value::is_array),
        }
    }
}
