//! Change events to clients, decided here once for every transport: `subscriptions/listen`
//! (modern), the legacy HTTP GET stream and legacy stdio all turn an [`Event`] into its
//! notification with [`EventFilter::notification`], and hold a [`ListenerSlot`] under
//! `ServerOptions::max_listeners`.

use super::dispatch::*;
use super::env::Env;
use super::Server;
use crate::bus::Event;
use crate::error::McpError;
use crate::jsonrpc::Params;
use crate::protocol::*;
use crate::session::{covers, LegacySession};
use futures::stream::BoxStream;
use futures::StreamExt;
use serde_json::{json, Map, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// Which change events one listener gets.
pub(crate) struct EventFilter {
    tools: bool,
    prompts: bool,
    resources: bool,
    updates: Updates,
    /// Modern: `{subscriptionId}` put in every notification's `_meta`.
    meta: Option<Value>,
    /// `taskIds` (the Tasks extension): the caller's own tasks whose status changes it gets.
    tasks: Option<(String, Vec<String>)>,
    /// Whose allow-list every resource update goes through: an exact
    /// URI or a prefix subscription never delivers a resource the caller may not read.
    caller: Option<crate::identity::Caller>,
}

enum Updates {
    /// `subscriptions/listen`'s `resourceSubscriptions`.
    Uris(Vec<String>),
    /// A legacy session's `resources/subscribe` set (it changes while the stream is open).
    Session(Arc<LegacySession>),
}

impl EventFilter {
    /// A legacy session: every list change, and updates of the resources it subscribed to.
    pub(crate) fn legacy(session: Arc<LegacySession>) -> Self {
        Self {
            tools: true,
            prompts: true,
            resources: true,
            caller: session.owner.clone(),
            updates: Updates::Session(session),
            meta: None,
            tasks: None,
        }
    }

    /// The notification for `e`, or `None` when this listener does not get it.
    pub(crate) fn notification(&self, e: Event) -> Option<Value> {
        if let Event::TaskStatus { owner, task } = &e {
            let (me, ids) = self.tasks.as_ref()?;
            let id = task.get("taskId").and_then(Value::as_str)?;
            if owner != me || !ids.iter().any(|t| t == id) {
                return None;
            }
            let mut params = task.clone();
            if let Some(m) = &self.meta {
                params["_meta"] = m.clone();
            }
            return Some(
                json!({"jsonrpc": "2.0", "method": "notifications/tasks", "params": params}),
            );
        }
        let (method, uri) = match e {
            Event::ToolsListChanged if self.tools => ("notifications/tools/list_changed", None),
            Event::PromptsListChanged if self.prompts => {
                ("notifications/prompts/list_changed", None)
            }
            Event::ResourcesListChanged if self.resources => {
                ("notifications/resources/list_changed", None)
            }
            Event::ResourceUpdated(u) if self.wants(&u) => {
                ("notifications/resources/updated", Some(u))
            }
            _ => return None,
        };
        let mut params = Map::new();
        if let Some(m) = &self.meta {
            params.insert("_meta".into(), m.clone());
        }
        if let Some(u) = uri {
            params.insert("uri".into(), Value::String(u));
        }
        let mut msg = json!({"jsonrpc": "2.0", "method": method});
        if !params.is_empty() {
            msg["params"] = Value::Object(params);
        }
        Some(msg)
    }

    fn wants(&self, uri: &str) -> bool {
        if !self
            .caller
            .as_ref()
            .is_none_or(|c| c.may_use("resource", uri))
        {
            return false;
        }
        match &self.updates {
            Updates::Uris(subs) => subs.iter().any(|s| covers(s, uri)),
            Updates::Session(s) => s.is_subscribed(uri),
        }
    }
}

/// One open listener (a listen stream, a legacy GET stream); frees its place when dropped.
pub(crate) struct ListenerSlot(Arc<super::Inner>, Option<String>);

impl Drop for ListenerSlot {
    fn drop(&mut self) {
        self.0.listeners.fetch_sub(1, Ordering::SeqCst);
        if let Some(k) = &self.1 {
            let mut m = self
                .0
                .listeners_by_caller
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            if let Some(n) = m.get_mut(k) {
                *n -= 1;
                if *n == 0 {
                    m.remove(k);
                }
            }
        }
    }
}

/// A place under the global cap and, for an authenticated caller, under the per-caller cap
/// (one caller cannot take every slot).
fn take_slot(
    inner: &Arc<super::Inner>,
    caller: Option<&crate::identity::Caller>,
) -> Option<ListenerSlot> {
    let n: &AtomicUsize = &inner.listeners;
    let global = ListenerSlot(inner.clone(), None);
    if n.fetch_add(1, Ordering::SeqCst) >= inner.options.max_listeners {
        return None;
    }
    let Some(c) = caller else {
        return Some(global);
    };
    let key = c.key().into_owned();
    let mut m = inner
        .listeners_by_caller
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    let mine = m.entry(key.clone()).or_insert(0);
    if *mine >= inner.options.max_listeners_per_caller {
        return None;
    }
    *mine += 1;
    drop(m);
    let mut slot = global;
    slot.1 = Some(key);
    Some(slot)
}

impl Server {
    /// A place among `ServerOptions::max_listeners` open streams (and the caller's own
    /// `max_listeners_per_caller`), or `None` at a cap.
    pub(crate) fn listener_slot(
        &self,
        caller: Option<&crate::identity::Caller>,
    ) -> Option<ListenerSlot> {
        let slot = take_slot(&self.inner, caller);
        if slot.is_none() {
            self.count_rejection(503, "max_listeners");
        }
        slot
    }

    /// A legacy session's notifications (list changes, subscribed updates), as JSON-RPC
    /// messages, until the session ends or the server shuts down.
    pub(crate) fn legacy_events(&self, session: Arc<LegacySession>) -> BoxStream<'static, Value> {
        let stop = {
            let (closed, shutdown) = (session.closed.clone(), self.inner.shutdown.clone());
            async move {
                tokio::select! {
                    _ = closed.cancelled() => {}
                    _ = shutdown.cancelled() => {}
                }
            }
        };
        let filter = EventFilter::legacy(session);
        self.inner
            .bus
            .subscribe()
            .take_until(Box::pin(stop))
            .filter_map(move |e| std::future::ready(filter.notification(e)))
            .boxed()
    }

    /// `subscriptions/listen`: acknowledge, then forward the opted-in change events, tagged with
    /// the subscription id, until the client goes away or the server shuts down.
    pub(super) async fn listen(
        &self,
        rq: &RequestInfo,
        params: &Params,
        env: &Env,
        caps: &Value,
    ) -> Outcome {
        let Some(sink) = env.sink.clone() else {
            return McpError::internal("this transport cannot stream").into();
        };
        let ask = match ListenAsk::parse(params, caps, self.inner.options.max_listen_task_ids) {
            Ok(a) => a,
            Err(e) => return e.into(),
        };
        let ListenAsk {
            tools,
            prompts,
            resources,
            uris,
            task_ids,
        } = ask;
        if !task_ids.is_empty() && !crate::tasks::declared_in(rq.caps()) {
            return McpError::missing_capability(crate::tasks::required_json()).into();
        }
        // Only the caller's own tasks: another caller's look unknown, and are left out.
        let owner = super::access::owner_key(env);
        let own_tasks = match self.inner.tasks.own(task_ids, &owner).await {
            Ok(t) => t,
            Err(e) => return e.into(),
        };
        let Some(_slot) = self.listener_slot(env.caller.as_ref()) else {
            return McpError::internal("Too many open subscriptions")
                .with_status(503)
                .into();
        };
        let sub_meta = json!({ META_SUBSCRIPTION_ID: rq.id });
        let honoured = honoured(tools, prompts, resources, &uris, &own_tasks);
        let filter = EventFilter {
            tools,
            prompts,
            resources,
            updates: Updates::Uris(uris),
            meta: Some(sub_meta.clone()),
            tasks: (!own_tasks.is_empty()).then_some((owner, own_tasks)),
            caller: env.caller.clone(),
        };
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
                    let Some(msg) = filter.notification(e) else { continue };
                    if sink.send(msg).is_err() {
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

/// What a `subscriptions/listen` asks for, each kind only where the server has the capability.
struct ListenAsk {
    tools: bool,
    prompts: bool,
    resources: bool,
    uris: Vec<String>,
    task_ids: Vec<String>,
}

impl ListenAsk {
    /// Reads `params.notifications`; a malformed list or more than `max_task_ids` task ids is
    /// -32602.
    fn parse(params: &Params, caps: &Value, max_task_ids: usize) -> Result<Self, McpError> {
        let filter = params
            .get("notifications")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        let flag = |k: &str| filter.get(k).and_then(Value::as_bool) == Some(true);
        let strings = |a: &[Value]| -> Vec<String> {
            a.iter()
                .filter_map(|u| u.as_str().map(str::to_string))
                .collect()
        };
        let uris = match filter.get("resourceSubscriptions") {
            Some(Value::Array(a)) if caps.get("resources").is_some() => strings(a),
            Some(Value::Array(_)) | None => Vec::new(),
            Some(_) => {
                return Err(McpError::invalid_params(
                    "resourceSubscriptions must be an array of URIs",
                ))
            }
        };
        let task_ids = match filter.get("taskIds") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(a)) => strings(a),
            Some(_) => {
                return Err(McpError::invalid_params(
                    "taskIds must be an array of task ids",
                ))
            }
        };
        if task_ids.len() > max_task_ids {
            return Err(McpError::invalid_params(format!(
                "Too many taskIds: a listen may name {max_task_ids} tasks"
            )));
        }
        Ok(Self {
            tools: flag("toolsListChanged") && caps.get("tools").is_some(),
            prompts: flag("promptsListChanged") && caps.get("prompts").is_some(),
            resources: flag("resourcesListChanged") && caps.get("resources").is_some(),
            uris,
            task_ids,
        })
    }
}

/// The acknowledgement's `notifications`: what the listen will get, as the request spelled it.
fn honoured(
    tools: bool,
    prompts: bool,
    resources: bool,
    uris: &[String],
    own_tasks: &[String],
) -> Map<String, Value> {
    let mut m = Map::new();
    for (key, on) in [
        ("toolsListChanged", tools),
        ("promptsListChanged", prompts),
        ("resourcesListChanged", resources),
    ] {
        if on {
            m.insert(key.into(), Value::Bool(true));
        }
    }
    if !uris.is_empty() {
        m.insert("resourceSubscriptions".into(), json!(uris));
    }
    if !own_tasks.is_empty() {
        m.insert("taskIds".into(), json!(own_tasks));
    }
    m
}
