//! `subscriptions/listen`: acknowledge, then forward opted-in change events tagged with the
//! subscription id until the client goes away or the server shuts down.

use super::dispatch::*;
use super::Server;
use crate::error::McpError;
use crate::protocol::*;
use crate::server::bus::Event;
use futures::StreamExt;
use serde_json::{json, Map, Value};
use std::sync::atomic::Ordering;

impl Server {
    /// `subscriptions/listen`: acknowledge, then forward the opted-in change events, tagged with
    /// the subscription id, until the client goes away or the server shuts down.
    pub(super) async fn listen(
        &self,
        rq: &Rq,
        params: &Map<String, Value>,
        env: &Env,
        caps: &Value,
    ) -> Outcome {
        let Some(sink) = env.sink.clone() else {
            return McpError::internal("this transport cannot stream").into();
        };
        let filter = params
            .get("notifications")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        let flag = |k: &str| filter.get(k).and_then(Value::as_bool) == Some(true);
        let tools = flag("toolsListChanged") && caps.get("tools").is_some();
        let prompts = flag("promptsListChanged") && caps.get("prompts").is_some();
        let resources = flag("resourcesListChanged") && caps.get("resources").is_some();
        let uris: Vec<String> = match filter.get("resourceSubscriptions") {
            Some(Value::Array(a)) if caps.get("resources").is_some() => a
                .iter()
                .filter_map(|u| u.as_str().map(str::to_string))
                .collect(),
            Some(Value::Array(_)) | None => Vec::new(),
            Some(_) => {
                return McpError::invalid_params("resourceSubscriptions must be an array of URIs")
                    .into()
            }
        };
        let n = self.inner.listeners.fetch_add(1, Ordering::SeqCst);
        struct Slot<'a>(&'a std::sync::atomic::AtomicUsize);
        impl Drop for Slot<'_> {
            fn drop(&mut self) {
                self.0.fetch_sub(1, Ordering::SeqCst);
            }
        }
        let _slot = Slot(&self.inner.listeners);
        if n >= self.inner.options.max_listeners {
            return McpError::internal("Too many open subscriptions")
                .with_status(503)
                .into();
        }
        let sub_meta = json!({ META_SUBSCRIPTION_ID: rq.id });
        let mut honoured = Map::new();
        if tools {
            honoured.insert("toolsListChanged".into(), Value::Bool(true));
        }
        if prompts {
            honoured.insert("promptsListChanged".into(), Value::Bool(true));
        }
        if resources {
            honoured.insert("resourcesListChanged".into(), Value::Bool(true));
        }
        if !uris.is_empty() {
            honoured.insert("resourceSubscriptions".into(), json!(uris));
        }
        let mut events = self.inner.bus.subscribe();
        let ack = json!({"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged",
                         "params":{"_meta": sub_meta, "notifications": honoured}});
        if sink.send(ack).is_err() {
            return Outcome::Nothing;
        }
        loop {
            tokio::select! {
                e = events.next() => {
                    let Some(e) = e else { break };
                    let (method, extra) = match e {
                        Event::ToolsListChanged if tools => ("notifications/tools/list_changed", None),
                        Event::PromptsListChanged if prompts => ("notifications/prompts/list_changed", None),
                        Event::ResourcesListChanged if resources => ("notifications/resources/list_changed", None),
                        Event::ResourceUpdated(u) if uris.iter().any(|s| *s == u || (u.starts_with(s.as_str()) && u[s.len()..].starts_with('/'))) => {
                            ("notifications/resources/updated", Some(u))
                        }
                        _ => continue,
                    };
                    let mut p = json!({"_meta": sub_meta});
                    if let Some(u) = extra {
                        p["uri"] = Value::String(u);
                    }
                    if sink.send(json!({"jsonrpc":"2.0","method":method,"params":p})).is_err() {
                        return Outcome::Nothing;
                    }
                }
                _ = env.cancel.cancelled() => return Outcome::Nothing,
                _ = self.inner.shutdown.cancelled() => break,
            }
        }
        let mut r = Map::new();
        r.insert("resultType".into(), Value::String("complete".into()));
        r.insert("_meta".into(), sub_meta);
        Outcome::Result(Value::Object(r))
    }
}
