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
            Self::Sample(p) if wants_sampling_tools(p) => ClientCapability::SamplingTools,
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

/// Whether a `sampling/createMessage` request uses tools (`tools` or `toolChoice`), which needs
/// the client's `sampling.tools` capability.
pub fn wants_sampling_tools(params: &Value) -> bool {
    params.get("tools").is_some() || params.get("toolChoice").is_some()
}

/// The rule for the tool-use turns of a sampling request's `messages` (the spec's
/// `SamplingMessage`): a last message holding `tool_result` content holds nothing else, follows
/// a message holding `tool_use` content, and answers exactly that message's tool-use ids. The
/// problem's text, or `None`.
pub fn tool_use_results_problem(messages: &[Value]) -> Option<&'static str> {
    fn blocks(m: &Value) -> Vec<&Value> {
        match m.get("content") {
            Some(Value::Array(a)) => a.iter().collect(),
            Some(c) => vec![c],
            None => Vec::new(),
        }
    }
    fn kind(b: &Value) -> Option<&str> {
        b.get("type").and_then(Value::as_str)
    }
    let last = blocks(messages.last()?);
    let previous = (messages.len() >= 2).then(|| blocks(&messages[messages.len() - 2]));
    let has_results = last.iter().any(|b| kind(b) == Some("tool_result"));
    let uses_before = previous
        .as_ref()
        .is_some_and(|p| p.iter().any(|b| kind(b) == Some("tool_use")));
    if has_results {
        if last.iter().any(|b| kind(b) != Some("tool_result")) {
            return Some(
                "The last message must contain only tool_result content if any is present",
            );
        }
        if previous.is_none() {
            return Some("tool_result requires a previous message containing tool_use");
        }
        if !uses_before {
            return Some("tool_result blocks do not match any tool_use in the previous message");
        }
    }
    if let (true, Some(p)) = (uses_before, previous) {
        let ids = |bs: &[&Value], k: &str, f: &str| -> std::collections::BTreeSet<String> {
            bs.iter()
                .filter(|b| kind(b) == Some(k))
                .filter_map(|b| b.get(f).map(Value::to_string))
                .collect()
        };
        if ids(&p, "tool_use", "id") != ids(&last, "tool_result", "toolUseId") {
            return Some(
                "ids of tool_result blocks and tool_use blocks from previous message do not match",
            );
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_use_turns() {
        let use_ = json!({"role": "assistant", "content": [{"type": "tool_use", "id": "a", "name": "t", "input": {}}]});
        let result = |id: &str| json!({"role": "user", "content": [{"type": "tool_result", "toolUseId": id, "content": []}]});
        let text = json!({"role": "user", "content": {"type": "text", "text": "hi"}});
        assert_eq!(tool_use_results_problem(&[]), None);
        assert_eq!(tool_use_results_problem(std::slice::from_ref(&text)), None);
        assert_eq!(tool_use_results_problem(&[use_.clone(), result("a")]), None);
        assert!(tool_use_results_problem(&[result("a")]).is_some());
        assert!(tool_use_results_problem(&[text.clone(), result("a")]).is_some());
        assert!(tool_use_results_problem(&[use_.clone(), result("b")]).is_some());
        let mixed = json!({"role": "user", "content": [{"type": "tool_result", "toolUseId": "a", "content": []}, {"type": "text", "text": "x"}]});
        assert!(tool_use_results_problem(&[use_.clone(), mixed]).is_some());
        assert!(tool_use_results_problem(&[use_, text]).is_some());
        assert!(wants_sampling_tools(
            &json!({"toolChoice": {"mode": "auto"}})
        ));
        assert!(!wants_sampling_tools(&json!({"messages": []})));
    }
}
