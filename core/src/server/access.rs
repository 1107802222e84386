//! Who may see and use which primitive: the one place where a caller's allow-list and a
//! primitive's required scopes are applied, whoever answers the request. A missing scope is not
//! hidden: the call gets the step-up refusal ([`Server::check_scopes`]), and lists show the
//! primitive unless `hide_out_of_scope` is set ([`Server::in_scope_listing`]).
//!
//! The registry answers most requests, and asks [`Server::may_use`] and [`Server::may_read`] as
//! it finds a primitive. A request that a middleware may answer (a host's low-level server, a
//! compatibility layer's own store, a user's interceptor) is checked twice more around the
//! chain: before it, the primitive the request names must be one the caller may use
//! ([`Server::admit`]); after it, a list keeps only what the caller may see
//! ([`Server::only_visible`]). So a middleware can neither reach a hidden primitive nor show
//! one, whatever it does.
//!
//! A hidden primitive is answered exactly as an unknown one, so a caller cannot learn that it
//! exists.

use super::dispatch::{Outcome, RequestInfo};
use super::env::{Env, Transport};
use super::Server;
use crate::error::McpError;
use crate::jsonrpc::Params;
use crate::protocol::Method;
use serde_json::Value;

/// Who owns what a request makes (a task) and may later read it: the authenticated caller's
/// `Caller::key()` (issuer + name for JWT callers, so the same `sub` from two issuers, or a JWT
/// subject named like a named-token caller, are two owners), or "" without auth (then the
/// unguessable id is the only bearer of access, as in the spec's security section). Every
/// ownership check compares this one key: the task methods and `subscriptions/listen` alike.
pub(crate) fn owner_key(env: &Env) -> String {
    env.caller
        .as_ref()
        .map(|c| c.key().into_owned())
        .unwrap_or_default()
}

/// Who a per-caller bound counts against (sessions, tasks, running tasks): the authenticated
/// caller's `Caller::key()`; without auth, the client's address (an IPv6 address by its /64,
/// which one client usually holds whole), so anonymous clients do not share one budget.
/// `None` when an anonymous request comes with no address (stdio, whose one client owns the
/// process; a mount that passes none): one budget for every such client would let one of them
/// exhaust it for all, so only the global bounds apply. Address keys start with a NUL, which
/// no caller name has, so they never meet a caller's key.
pub(crate) fn budget_key(env: &Env) -> Option<String> {
    if let Some(c) = &env.caller {
        return Some(c.key().into_owned());
    }
    let ip = env.http.as_ref()?.peer?.ip().to_canonical();
    Some(match ip {
        std::net::IpAddr::V6(ip) => {
            let s = ip.segments();
            format!("\0{:x}:{:x}:{:x}:{:x}::/64", s[0], s[1], s[2], s[3])
        }
        ip => format!("\0{ip}"),
    })
}

/// The list results that carry primitives: the member holding them, the primitive kind an
/// allow-list names, and the member of each entry that the allow-list matches.
fn listed(method: &Method) -> Option<(&'static str, &'static str, &'static str)> {
    Some(match method {
        Method::ToolsList => ("tools", "tool", "name"),
        Method::PromptsList => ("prompts", "prompt", "name"),
        Method::ResourcesList => ("resources", "resource", "uri"),
        Method::ResourcesTemplatesList => ("resourceTemplates", "resource", "uriTemplate"),
        _ => return None,
    })
}

/// The registered prompt, template or resource a `completion/complete` names, and the scopes
/// it requires: completing its arguments is using it, so it needs what a `prompts/get` or a
/// `resources/read` of it needs.
pub(super) fn completed_scopes<'r>(
    reg: &'r super::registry::Registry,
    params: &'r Params,
) -> Option<(&'r str, &'r [String])> {
    let r = params.get("ref")?;
    let field = |k: &str| r.get(k).and_then(Value::as_str);
    match field("type")? {
        "ref/prompt" => {
            let name = field("name")?;
            reg.prompts
                .get(name)
                .map(|p| (name, p.required_scopes.as_slice()))
        }
        "ref/resource" => {
            let uri = field("uri")?;
            match reg.templates.get(uri) {
                Some(t) => Some((uri, t.required_scopes.as_slice())),
                None => reg
                    .resources
                    .get(uri)
                    .map(|r| (uri, r.required_scopes.as_slice())),
            }
        }
        _ => None,
    }
}

impl Server {
    /// May this caller see and use this primitive? Without auth (no caller) everything is
    /// visible; with it, the caller's allow-list decides. Refused ones look unknown.
    ///
    /// The tool-search tools are every caller's: they show and reach only what that caller may
    /// (the index asks this function of each tool before ranking it, and the call proxy's
    /// target is checked here as a direct call is).
    pub(crate) fn may_use(&self, env: &Env, kind: &str, name: &str) -> bool {
        if kind == "tool" && self.is_search_tool(name) {
            return true;
        }
        env.caller.as_ref().is_none_or(|c| c.may_use(kind, name))
    }

    /// Does the caller hold `required`? Without a caller (no auth: stdio, or HTTP without
    /// auth) there is no token to hold scopes, and nothing to step up: a scope is a check on a
    /// token, as in the TS SDK and FastMCP, and the endpoint's auth decides who gets in.
    pub(crate) fn has_scopes(env: &Env, required: &[String]) -> bool {
        required.is_empty()
            || env
                .caller
                .as_ref()
                .is_none_or(|c| crate::auth::missing_scopes(&c.scopes, required).is_empty())
    }

    /// Whether `tools/list` (and tool search) shows this tool to this caller: its allow-list,
    /// then its scopes under `hide_out_of_scope`.
    pub(crate) fn lists_tool(&self, env: &Env, t: &crate::tool::ToolEntry) -> bool {
        self.may_use(env, "tool", &t.name) && self.in_scope_listing(env, &t.required_scopes)
    }

    /// Whether [`Server::lists_tool`] admits every tool for this caller, without asking it of
    /// each: no allow-list on tools (or one of `*`), and no scope hides a tool. Tool search
    /// ranks such a caller's queries from precomputed scores.
    pub(crate) fn sees_every_tool(&self, env: &Env) -> bool {
        let Some(c) = &env.caller else {
            return true;
        };
        let tools = c.allow.as_ref().and_then(|a| a.tools.as_ref());
        tools.is_none_or(|l| l.iter().any(|p| p == "*")) && !self.inner.options.hide_out_of_scope
    }

    /// Whether a list shows a primitive that needs `required`: always, unless
    /// `hide_out_of_scope` leaves out what the caller's scopes do not cover.
    pub(crate) fn in_scope_listing(&self, env: &Env, required: &[String]) -> bool {
        !self.inner.options.hide_out_of_scope || Self::has_scopes(env, required)
    }

    /// The refusal of a call on a primitive that needs scopes the caller lacks: JSON-RPC
    /// -31403 with the scopes in `data`, which the HTTP layer answers as a 403 step-up
    /// challenge naming every scope the primitive needs (as the TS SDK's `requireScopes`).
    pub(crate) fn check_scopes(
        &self,
        env: &Env,
        name: &str,
        required: &[String],
    ) -> Result<(), Outcome> {
        if Self::has_scopes(env, required) {
            return Ok(());
        }
        env.note("insufficient_scope");
        Err(crate::auth::insufficient_scope_error(name, required).into())
    }

    /// May this caller read `uri`? Allowed the URI itself, or a registered template that matches
    /// it: an allow-list may name either.
    pub(crate) fn may_read(&self, env: &Env, uri: &str) -> bool {
        self.may_use(env, "resource", uri)
            || self
                .snapshot()
                .resolve_template(uri, |k| self.may_use(env, "resource", k))
                .is_some()
    }

    /// A legacy request on a stateful HTTP server belongs to the session that `initialize`
    /// created: without its `Mcp-Session-Id` it has no owner, and anything bound to a session
    /// (tasks, subscriptions, server-to-client requests) would be reachable from outside it. So
    /// it is refused, with 400 as the spec recommends and the SDKs answer.
    pub(super) fn session_required(&self, method: &Method, env: &Env) -> Option<McpError> {
        if *method == Method::Initialize {
            return None;
        }
        self.missing_session(env)
    }

    /// The refusal of a legacy message that should belong to a session of a stateful HTTP server
    /// and names none: any request but `initialize`, and a client's notification, which a session
    /// would receive (its handlers see the session), answered as the request would be.
    pub(crate) fn missing_session(&self, env: &Env) -> Option<McpError> {
        let stateful = env.transport == Transport::Http
            && !self.inner.options.legacy_stateless
            && !env.sessionless;
        (stateful && env.session.is_none())
            .then(|| McpError::invalid_request("Bad Request: Mcp-Session-Id header is required"))
    }

    /// Whether the caller's requests need checking around a middleware at all: only an
    /// allow-list hides anything.
    fn restricted(env: &Env) -> bool {
        env.caller.as_ref().is_some_and(|c| c.allow.is_some())
    }

    /// Before the middleware chain: a request that names a primitive the caller may not use is
    /// answered as the registry answers an unknown one.
    pub(super) fn admit(
        &self,
        rq: &RequestInfo,
        params: &Params,
        env: &Env,
    ) -> Result<(), Outcome> {
        let text = |key: &str| params.get(key).and_then(Value::as_str).unwrap_or_default();
        if env.caller.is_some() {
            self.admit_scopes(&rq.method, params, text, env)?;
        }
        if !Self::restricted(env) {
            return Ok(());
        }
        let refused: Option<Outcome> = match &rq.method {
            Method::ToolsCall => {
                let name = self.called_tool(params);
                (!self.may_use(env, "tool", name))
                    .then(|| McpError::invalid_params(format!("Unknown tool: {name}")).into())
            }
            Method::PromptsGet => (!self.may_use(env, "prompt", text("name"))).then(|| {
                McpError::invalid_params(format!("Unknown prompt: {}", text("name"))).into()
            }),
            Method::ResourcesRead | Method::ResourcesSubscribe | Method::ResourcesUnsubscribe => {
                (!self.may_read(env, text("uri"))).then(|| self.not_found(rq, text("uri")))
            }
            Method::SkillsGet => (!self.may_read(env, text("uri")))
                .then(|| super::skills::unknown_skill(text("uri")).into()),
            Method::CompletionComplete => {
                let r = params.get("ref");
                let field = |k: &str| r.and_then(|r| r.get(k)).and_then(Value::as_str);
                match field("type") {
                    Some("ref/prompt") => {
                        let name = field("name").unwrap_or_default();
                        (!self.may_use(env, "prompt", name)).then(|| {
                            McpError::invalid_params(format!("Unknown prompt: {name}")).into()
                        })
                    }
                    Some("ref/resource") => {
                        let uri = field("uri").unwrap_or_default();
                        (!self.may_use(env, "resource", uri)).then(|| {
                            McpError::invalid_params(format!("Unknown resource: {uri}")).into()
                        })
                    }
                    _ => None,
                }
            }
            _ => None,
        };
        match refused {
            Some(answer) => {
                env.note("denied");
                Err(answer)
            }
            None => Ok(()),
        }
    }

    /// Before the middleware chain: a call on a registered primitive whose scopes the caller
    /// lacks gets the step-up refusal, even when a middleware would answer it without the
    /// registry.
    fn admit_scopes<'p>(
        &self,
        method: &Method,
        params: &'p Params,
        text: impl Fn(&str) -> &'p str,
        env: &Env,
    ) -> Result<(), Outcome> {
        let reg = self.snapshot();
        if !reg.any_required_scopes() {
            return Ok(());
        }
        match method {
            // The tool called, through the search proxy's `call_tool` too.
            Method::ToolsCall => {
                let name = self.called_tool(params);
                match reg.tools.get(name) {
                    Some(t) => self.check_scopes(env, name, &t.required_scopes),
                    None => Ok(()),
                }
            }
            Method::PromptsGet => match reg.prompts.get(text("name")) {
                Some(p) => self.check_scopes(env, text("name"), &p.required_scopes),
                None => Ok(()),
            },
            Method::ResourcesRead => {
                let uri = text("uri");
                if let Some(r) = reg.resources.get(uri) {
                    return self.check_scopes(env, uri, &r.required_scopes);
                }
                match reg.resolve_template(uri, |_| true) {
                    Some((_, t, _)) => self.check_scopes(env, uri, &t.required_scopes),
                    None => Ok(()),
                }
            }
            Method::CompletionComplete => match completed_scopes(&reg, params) {
                Some((name, required)) => self.check_scopes(env, name, required),
                None => Ok(()),
            },
            _ => Ok(()),
        }
    }

    /// After the middleware chain: a list result keeps only the entries the caller may see,
    /// whoever made it, by the rules the registry's own lists follow: the allow-list, and for
    /// a registered primitive its scopes under `hide_out_of_scope` ([`Self::lists_tool`],
    /// [`Self::in_scope_listing`]).
    pub(super) fn only_visible(&self, rq: &RequestInfo, outcome: Outcome, env: &Env) -> Outcome {
        let Some((member, kind, key)) = listed(&rq.method) else {
            return outcome;
        };
        let reg = self.snapshot();
        let by_scope = self.inner.options.hide_out_of_scope
            && env.caller.is_some()
            && reg.any_required_scopes();
        if !Self::restricted(env) && !by_scope {
            return outcome;
        }
        let shown = |name: &str| -> bool {
            let required = match kind {
                "tool" => match reg.tools.get(name) {
                    Some(t) => return self.lists_tool(env, t),
                    None => None,
                },
                "prompt" => reg.prompts.get(name).map(|p| &p.required_scopes),
                _ if member == "resources" => reg.resources.get(name).map(|r| &r.required_scopes),
                _ => reg.templates.get(name).map(|t| &t.required_scopes),
            };
            self.may_use(env, kind, name) && required.is_none_or(|r| self.in_scope_listing(env, r))
        };
        match outcome {
            Outcome::Result(mut v) => {
                if let Some(Value::Array(items)) = v.get_mut(member) {
                    items.retain(|item| item.get(key).and_then(Value::as_str).is_some_and(shown));
                }
                Outcome::Result(v)
            }
            // The registry's own lists (rendered or not) were filtered as they were made.
            other => other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::handler::BoxFuture;
    use crate::identity::{Allow, Caller};
    use crate::server::middleware::{Middleware, MiddlewareRequest, MiddlewareResult, Next};
    use serde_json::json;
    use std::sync::Arc;

    /// A host's low-level server: answers every tool, prompt, resource and completion request
    /// itself, knowing two of each, without the registry.
    struct LowLevel;
    impl Middleware for LowLevel {
        fn hooks(&self, m: &str) -> bool {
            ["tools/", "prompts/", "resources/", "completion/"]
                .iter()
                .any(|p| m.starts_with(p))
        }
        fn handle(&self, req: MiddlewareRequest, _next: Next) -> BoxFuture<MiddlewareResult> {
            Box::pin(async move {
                Ok(match req.method.as_str() {
                    "tools/list" => json!({"tools": [{"name": "open"}, {"name": "secret"}]}),
                    "prompts/list" => json!({"prompts": [{"name": "open"}, {"name": "secret"}]}),
                    "resources/list" => json!({"resources": [
                        {"uri": "mem://open", "name": "o"}, {"uri": "mem://secret", "name": "s"}]}),
                    "resources/templates/list" => json!({"resourceTemplates": [
                        {"uriTemplate": "mem://open/{x}", "name": "o"},
                        {"uriTemplate": "mem://secret/{x}", "name": "s"}]}),
                    "resources/read" => {
                        json!({"contents": [{"uri": req.params["uri"], "text": "x"}]})
                    }
                    "prompts/get" => json!({"messages": []}),
                    _ => json!({"content": [{"type": "text", "text": "ran"}]}),
                })
            })
        }
    }

    fn request(method: &str, params: Value) -> Value {
        let mut p = params;
        p["_meta"] = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                            "io.modelcontextprotocol/clientCapabilities": {}});
        json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": p})
    }

    async fn ask(s: &Server, caller: Option<Caller>, method: &str, params: Value) -> Value {
        let env = Env::new(Transport::Stdio).caller(caller);
        s.dispatch(request(method, params), &env).await.unwrap()
    }

    fn names(r: &Value, member: &str, key: &str) -> Vec<String> {
        r["result"][member]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e[key].as_str().unwrap().to_string())
            .collect()
    }

    #[tokio::test]
    async fn a_middleware_answer_gets_the_callers_allow_list() {
        let s = Server::builder("ll", "1").build().unwrap();
        s.add_middleware(Arc::new(LowLevel));
        let only = Caller::new("one").with_allow(
            Allow::none()
                .tools(["open"])
                .prompts(["open"])
                .resources(["mem://open*"]),
        );
        let c = || Some(only.clone());
        let r = ask(&s, c(), "tools/list", json!({})).await;
        assert_eq!(names(&r, "tools", "name"), ["open"]);
        let r = ask(&s, c(), "prompts/list", json!({})).await;
        assert_eq!(names(&r, "prompts", "name"), ["open"]);
        let r = ask(&s, c(), "resources/list", json!({})).await;
        assert_eq!(names(&r, "resources", "uri"), ["mem://open"]);
        let r = ask(&s, c(), "resources/templates/list", json!({})).await;
        assert_eq!(
            names(&r, "resourceTemplates", "uriTemplate"),
            ["mem://open/{x}"]
        );

        let r = ask(&s, c(), "tools/call", json!({"name": "secret"})).await;
        assert_eq!(r["error"]["code"], -32602, "{r}");
        assert_eq!(r["error"]["message"], "Unknown tool: secret");
        let r = ask(&s, c(), "tools/call", json!({"name": "open"})).await;
        assert_eq!(r["result"]["content"][0]["text"], "ran", "{r}");
        let r = ask(&s, c(), "prompts/get", json!({"name": "secret"})).await;
        assert_eq!(r["error"]["message"], "Unknown prompt: secret");
        let r = ask(&s, c(), "resources/read", json!({"uri": "mem://secret"})).await;
        assert_eq!(r["error"]["message"], "Resource not found", "{r}");
        let r = ask(&s, c(), "resources/read", json!({"uri": "mem://open/1"})).await;
        assert!(r["result"]["contents"].is_array(), "{r}");
        let r = ask(
            &s,
            c(),
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "secret"},
                   "argument": {"name": "a", "value": ""}}),
        )
        .await;
        assert_eq!(r["error"]["message"], "Unknown prompt: secret");

        // No allow-list (no auth, or a caller with every primitive): the middleware's answer
        // goes out as it made it.
        let r = ask(&s, None, "tools/list", json!({})).await;
        assert_eq!(names(&r, "tools", "name"), ["open", "secret"]);
        let r = ask(
            &s,
            Some(Caller::new("all")),
            "tools/call",
            json!({"name": "secret"}),
        )
        .await;
        assert_eq!(r["result"]["content"][0]["text"], "ran", "{r}");
    }

    #[tokio::test]
    async fn a_middleware_answer_does_not_skip_required_scopes() {
        use crate::{Context, Tool, ToolError, ToolResult};
        let s = Server::builder("ll", "1")
            .tool(
                Tool::new("secret", json!({"type": "object"}))
                    .required_scopes(["admin"])
                    .handler(|_a: serde_json::Map<String, Value>, _c: Context| async {
                        Ok::<_, ToolError>(ToolResult::text("registry"))
                    }),
            )
            .build()
            .unwrap();
        s.add_middleware(Arc::new(LowLevel));
        let r = ask(
            &s,
            Some(Caller::new("one")),
            "tools/call",
            json!({"name": "secret"}),
        )
        .await;
        assert_eq!(r["error"]["code"], -31403, "{r}");
        assert_eq!(r["error"]["data"]["requiredScopes"], json!(["admin"]));
        let admin = Caller::new("one").with_scopes(["admin"]);
        let r = ask(&s, Some(admin), "tools/call", json!({"name": "secret"})).await;
        assert_eq!(r["result"]["content"][0]["text"], "ran", "{r}");
    }

    /// `hide_out_of_scope` hides a registered tool the caller's scopes do not cover from the
    /// list a middleware makes as from the registry's own.
    #[tokio::test]
    async fn a_middleware_list_hides_what_the_callers_scopes_do_not_cover() {
        use crate::{Context, Tool, ToolError, ToolResult};
        let s = Server::builder("ll", "1")
            .options(crate::ServerOptions {
                hide_out_of_scope: true,
                ..Default::default()
            })
            .tool(
                Tool::new("secret", json!({"type": "object"}))
                    .required_scopes(["admin"])
                    .handler(|_a: serde_json::Map<String, Value>, _c: Context| async {
                        Ok::<_, ToolError>(ToolResult::text("registry"))
                    }),
            )
            .build()
            .unwrap();
        s.add_middleware(Arc::new(LowLevel));
        let r = ask(&s, Some(Caller::new("one")), "tools/list", json!({})).await;
        assert_eq!(names(&r, "tools", "name"), ["open"]);
        let admin = Caller::new("one").with_scopes(["admin"]);
        let r = ask(&s, Some(admin), "tools/list", json!({})).await;
        assert_eq!(names(&r, "tools", "name"), ["open", "secret"]);
        // Without a caller there is no token to hold scopes: nothing is hidden.
        let r = ask(&s, None, "tools/list", json!({})).await;
        assert_eq!(names(&r, "tools", "name"), ["open", "secret"]);
    }

    /// Completing a prompt's or a template's argument needs the scopes using it needs, through
    /// the registry and through a middleware alike.
    #[tokio::test]
    async fn completion_needs_the_scopes_of_what_it_completes() {
        use crate::protocol::{Completion, PromptResult};
        use crate::{Context, Prompt, ResourceTemplate, ToolError};
        let complete = |_a: String, _v: String, _c: serde_json::Map<String, Value>, _x: Context| async {
            Ok::<_, ToolError>(Completion::default())
        };
        let build = || {
            Server::builder("c", "1")
                .prompt(
                    Prompt::new("review")
                        .required_scopes(["hr:read"])
                        .handler(|_a: serde_json::Map<String, Value>, _c: Context| async {
                            Ok::<_, ToolError>(PromptResult::new(vec![]))
                        })
                        .complete(complete),
                )
                .resource_template(
                    ResourceTemplate::new("mem://hr/{id}", "hr")
                        .required_scopes(["hr:read"])
                        .handler(
                            |_u: String, _v: serde_json::Map<String, Value>, _c: Context| async {
                                Ok::<_, ToolError>(vec![])
                            },
                        )
                        .complete(complete),
                )
                .build()
                .unwrap()
        };
        let plain = build();
        let hooked = build();
        hooked.add_middleware(Arc::new(LowLevel));
        let refs = [
            json!({"type": "ref/prompt", "name": "review"}),
            json!({"type": "ref/resource", "uri": "mem://hr/{id}"}),
        ];
        for s in [&plain, &hooked] {
            for r in &refs {
                let params = json!({"ref": r, "argument": {"name": "id", "value": ""}});
                let got = ask(
                    s,
                    Some(Caller::new("weak")),
                    "completion/complete",
                    params.clone(),
                )
                .await;
                assert_eq!(got["error"]["code"], -31403, "{got}");
                assert_eq!(got["error"]["data"]["requiredScopes"], json!(["hr:read"]));
                let hr = Caller::new("hr").with_scopes(["hr"]);
                let got = ask(s, Some(hr), "completion/complete", params).await;
                assert!(got["result"].is_object(), "{got}");
            }
        }
    }
}
