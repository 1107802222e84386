//! The calls that run user handlers: `tools/call`, `resources/read`, `prompts/get`,
//! `completion/complete` — validation, MRTR, limits, and mapping each outcome to the wire.

use super::dispatch::*;
use super::Server;
use crate::context::{Context, InputState};
use crate::error::{ErrorCode, HandlerError, McpError};
use crate::protocol::*;
use crate::schema::{coerce_scalars, violations_json};
use crate::server::options::ValidationMode;
use serde_json::{json, Map, Value};

impl Server {
    /// `tools/call`, audited whatever the outcome (refusals included).
    pub(super) async fn call_tool(
        &self,
        rq: &Rq,
        params: Map<String, Value>,
        env: &Env,
    ) -> Outcome {
        let name = audit_name(&params, "name");
        self.audited(rq, env, &name, self.call_tool_inner(rq, params, env))
            .await
    }

    pub(super) async fn call_tool_inner(
        &self,
        rq: &Rq,
        mut params: Map<String, Value>,
        env: &Env,
    ) -> Outcome {
        let name = match str_param(&params, "name") {
            Ok(n) => n.to_string(),
            Err(e) => return e.into(),
        };
        let Some(tool) = self.snapshot().tools.get(&name).cloned() else {
            return McpError::invalid_params(format!("Unknown tool: {name}")).into();
        };
        if !self.may_use(env, "tool", &name) {
            env.note("denied");
            return McpError::invalid_params(format!("Unknown tool: {name}")).into();
        }
        if let Some(c) = &env.caller {
            if !crate::auth::missing_scopes(&c.scopes, &tool.required_scopes).is_empty() {
                env.note("insufficient_scope");
                return crate::auth::insufficient_scope_error(&name, &tool.required_scopes).into();
            }
        }
        let mut args = match params.remove("arguments") {
            None | Some(Value::Null) => Value::Object(Map::new()),
            Some(v @ Value::Object(_)) => v,
            Some(_) => return McpError::invalid_params("arguments must be an object").into(),
        };
        if !tool.input.is_valid(&args) {
            let coerced = self.inner.options.lenient_coercion
                && coerce_scalars(tool.input.source(), &mut args)
                && tool.input.is_valid(&args);
            if !coerced {
                let v = tool.input.violations(&args);
                return match self.inner.options.validation {
                    ValidationMode::JsonRpcError => {
                        McpError::invalid_params(format!("Invalid arguments for tool {name}"))
                            .with_data(json!({"violations": violations_json(&v)}))
                            .into()
                    }
                    ValidationMode::ToolError => {
                        let lines: Vec<String> = v
                            .iter()
                            .map(|x| {
                                format!(
                                    "{}: {}",
                                    if x.pointer.is_empty() {
                                        "/"
                                    } else {
                                        &x.pointer
                                    },
                                    x.message
                                )
                            })
                            .collect();
                        let mut r = ToolResult::error(format!(
                            "Invalid arguments for tool {name}:\n{}",
                            lines.join("\n")
                        ));
                        r.structured_content = None;
                        self.tool_outcome(rq, r)
                    }
                };
            }
        }
        let input = match self.mrtr_input(rq, &name, &params, env) {
            Ok(i) => i,
            Err(e) => return e.into(),
        };
        let cancel = env.cancel.child_token();
        let ctx = self.context(rq, env, input, cancel.clone());
        let Value::Object(args) = args else {
            unreachable!("checked above")
        };
        let _permit = match self.in_flight_permit(env) {
            Ok(p) => p,
            Err(o) => return o,
        };
        let _slot = match &tool.slots {
            None => None,
            Some(s) => match s.clone().try_acquire_owned() {
                Ok(p) => Some(p),
                Err(_) => {
                    env.note("busy");
                    return self.tool_outcome(
                        rq,
                        ToolResult::error(format!(
                            "Tool {name} is busy (too many calls at once); retry shortly"
                        )),
                    );
                }
            },
        };
        let timeout = tool.timeout.or(self.inner.options.tool_timeout);
        let r = self
            .run_tracked(
                rq,
                env,
                tool.handler.call(args, ctx.clone()),
                &cancel,
                timeout,
            )
            .await;
        let outcome = match r {
            Ok(mut res) => {
                if rq.era == Era::Legacy
                    && res
                        .structured_content
                        .as_ref()
                        .is_some_and(|s| !s.is_object())
                {
                    res.structured_content = None;
                }
                match (&tool.output, res.is_error) {
                    (Some(schema), false) if rq.era == Era::Modern || tool.legacy_output => {
                        match &res.structured_content {
                            None => {
                                tracing::error!(tool = %name, "tool declared an outputSchema but returned no structuredContent");
                                McpError::internal(format!(
                                    "Tool {name} returned no structured content"
                                ))
                                .into()
                            }
                            Some(sc) if !schema.is_valid(sc) => {
                                tracing::error!(tool = %name, violations = ?schema.violations(sc), "structuredContent does not match outputSchema");
                                McpError::internal(format!("Tool {name} returned structured content that does not match its output schema")).into()
                            }
                            Some(_) => self.tool_outcome(rq, res),
                        }
                    }
                    _ => self.tool_outcome(rq, res),
                }
            }
            Err(RunError::Handler(HandlerError::Tool(e))) => {
                let mut r = ToolResult::error(e.message);
                r.structured_content = e.structured;
                self.tool_outcome(rq, r)
            }
            Err(RunError::Handler(HandlerError::Mcp(e))) => e.into(),
            Err(RunError::Handler(HandlerError::InputRequired(_))) => {
                self.input_required(rq, &name, &ctx, env)
            }
            Err(RunError::Handler(HandlerError::Cancelled)) => Outcome::Nothing,
            Err(RunError::Panic(msg)) => {
                env.note("panic");
                tracing::error!(tool = %name, panic = %msg, "tool handler panicked");
                let text = if self.inner.options.expose_internal_errors {
                    format!("Tool {name} failed: {msg}")
                } else {
                    format!("Tool {name} failed with an internal error")
                };
                self.tool_outcome(rq, ToolResult::error(text))
            }
            Err(RunError::Timeout) => {
                env.note("timeout");
                self.tool_outcome(rq, ToolResult::error(format!("Tool {name} timed out")))
            }
        };
        outcome
    }

    /// A slot under `ServerOptions::max_in_flight`, or the 503 refusal.
    pub(super) fn in_flight_permit(
        &self,
        env: &Env,
    ) -> Result<Option<tokio::sync::OwnedSemaphorePermit>, Outcome> {
        match &self.inner.in_flight {
            None => Ok(None),
            Some(s) => s.clone().try_acquire_owned().map(Some).map_err(|_| {
                env.note("busy");
                McpError::new(
                    ErrorCode::SERVER_BUSY,
                    "Server busy: too many requests in flight; retry shortly",
                )
                .with_status(503)
                .into()
            }),
        }
    }

    pub(super) fn tool_outcome(&self, rq: &Rq, res: ToolResult) -> Outcome {
        match serde_json::to_value(res) {
            Ok(Value::Object(m)) => Outcome::Result(self.finish(rq, m, false)),
            _ => McpError::internal("could not serialize the tool result").into(),
        }
    }

    pub(super) fn not_found(&self, rq: &Rq, uri: &str) -> Outcome {
        let code = if rq.era == Era::Modern {
            ErrorCode::INVALID_PARAMS
        } else {
            ErrorCode::RESOURCE_NOT_FOUND_LEGACY
        };
        McpError::new(code, "Resource not found")
            .with_data(json!({"uri": uri}))
            .into()
    }

    /// The URI length cap (issue 11, finding 2): -32602 before any per-template work.
    pub(super) fn check_uri_len(&self, uri: &str) -> Result<(), McpError> {
        let max = self.inner.options.max_uri_len;
        if uri.len() > max {
            return Err(McpError::invalid_params(format!(
                "URI too long: {} bytes (the limit is {max})",
                uri.len()
            )));
        }
        Ok(())
    }

    /// `resources/read`, audited whatever the outcome (refusals included).
    pub(super) async fn read_resource(
        &self,
        rq: &Rq,
        params: Map<String, Value>,
        env: &Env,
    ) -> Outcome {
        let name = audit_name(&params, "uri");
        self.audited(rq, env, &name, self.read_resource_inner(rq, params, env))
            .await
    }

    pub(super) async fn read_resource_inner(
        &self,
        rq: &Rq,
        params: Map<String, Value>,
        env: &Env,
    ) -> Outcome {
        let uri = match str_param(&params, "uri") {
            Ok(u) => u.to_string(),
            Err(e) => return e.into(),
        };
        if let Err(e) = self.check_uri_len(&uri) {
            return e.into();
        }
        let reg = self.snapshot();
        let (handler, vars) = if let Some(r) = reg.resources.get(&uri) {
            if !self.may_use(env, "resource", &uri) {
                env.note("denied");
                return self.not_found(rq, &uri);
            }
            (r.handler.clone(), Map::new())
        } else if let Some((key, t, vars)) = reg
            .templates
            .iter()
            .find_map(|(k, t)| t.template.matches(&uri).map(|v| (k, t, v)))
        {
            if !self.may_use(env, "resource", &uri) && !self.may_use(env, "resource", key) {
                env.note("denied");
                return self.not_found(rq, &uri);
            }
            (t.handler.clone(), vars)
        } else {
            return self.not_found(rq, &uri);
        };
        let _permit = match self.in_flight_permit(env) {
            Ok(p) => p,
            Err(o) => return o,
        };
        let input = match self.mrtr_input(rq, &uri, &params, env) {
            Ok(i) => i,
            Err(e) => return e.into(),
        };
        let cancel = env.cancel.child_token();
        let ctx = self.context(rq, env, input, cancel.clone());
        let r = self
            .run_tracked(
                rq,
                env,
                handler.read(uri.clone(), vars, ctx.clone()),
                &cancel,
                self.inner.options.tool_timeout,
            )
            .await;
        let outcome = match r {
            Ok(contents) if contents.is_empty() => self.not_found(rq, &uri),
            Ok(contents) => {
                let mut m = Map::new();
                m.insert(
                    "contents".into(),
                    serde_json::to_value(contents).unwrap_or_default(),
                );
                Outcome::Result(self.finish(rq, m, true))
            }
            Err(e) => self.handler_failure(rq, &uri, &ctx, env, e),
        };
        outcome
    }

    /// Map a failed resource/prompt/completion handler to its JSON-RPC outcome.
    pub(super) fn handler_failure(
        &self,
        rq: &Rq,
        name: &str,
        ctx: &Context,
        env: &Env,
        e: RunError,
    ) -> Outcome {
        match &e {
            RunError::Timeout => env.note("timeout"),
            RunError::Panic(_) => env.note("panic"),
            _ => {}
        }
        match e {
            RunError::Handler(HandlerError::Tool(e)) => McpError::internal(e.message).into(),
            RunError::Handler(HandlerError::Mcp(e)) => e.into(),
            RunError::Handler(HandlerError::InputRequired(_)) => {
                self.input_required(rq, name, ctx, env)
            }
            RunError::Handler(HandlerError::Cancelled) => Outcome::Nothing,
            RunError::Panic(msg) => {
                tracing::error!(name = %name, panic = %msg, "handler panicked");
                McpError::internal("Internal error").into()
            }
            RunError::Timeout => McpError::internal("Timed out").into(),
        }
    }

    /// `prompts/get`, audited whatever the outcome (refusals included).
    pub(super) async fn get_prompt(
        &self,
        rq: &Rq,
        params: Map<String, Value>,
        env: &Env,
    ) -> Outcome {
        let name = audit_name(&params, "name");
        self.audited(rq, env, &name, self.get_prompt_inner(rq, params, env))
            .await
    }

    pub(super) async fn get_prompt_inner(
        &self,
        rq: &Rq,
        params: Map<String, Value>,
        env: &Env,
    ) -> Outcome {
        let name = match str_param(&params, "name") {
            Ok(n) => n.to_string(),
            Err(e) => return e.into(),
        };
        let Some(prompt) = self.snapshot().prompts.get(&name).cloned() else {
            return McpError::invalid_params(format!("Unknown prompt: {name}")).into();
        };
        if !self.may_use(env, "prompt", &name) {
            env.note("denied");
            return McpError::invalid_params(format!("Unknown prompt: {name}")).into();
        }
        let args = match params.get("arguments") {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(m)) if m.values().all(Value::is_string) => m.clone(),
            Some(_) => {
                return McpError::invalid_params("prompt arguments must be an object of strings")
                    .into()
            }
        };
        if let Some(missing) = prompt.required.iter().find(|r| !args.contains_key(*r)) {
            return McpError::invalid_params(format!("Missing required argument: {missing}"))
                .into();
        }
        let input = match self.mrtr_input(rq, &name, &params, env) {
            Ok(i) => i,
            Err(e) => return e.into(),
        };
        let cancel = env.cancel.child_token();
        let ctx = self.context(rq, env, input, cancel.clone());
        let _permit = match self.in_flight_permit(env) {
            Ok(p) => p,
            Err(o) => return o,
        };
        let r = self
            .run_tracked(
                rq,
                env,
                prompt.handler.get(args, ctx.clone()),
                &cancel,
                self.inner.options.tool_timeout,
            )
            .await;
        let outcome = match r {
            Ok(p) => match serde_json::to_value(p) {
                Ok(Value::Object(m)) => Outcome::Result(self.finish(rq, m, false)),
                _ => McpError::internal("could not serialize the prompt").into(),
            },
            Err(e) => self.handler_failure(rq, &name, &ctx, env, e),
        };
        outcome
    }

    pub(super) async fn complete(
        &self,
        rq: &Rq,
        params: &Map<String, Value>,
        env: &Env,
    ) -> Outcome {
        let reg = self.snapshot();
        let Some(r) = params.get("ref").and_then(Value::as_object) else {
            return McpError::invalid_params("Missing ref").into();
        };
        let Some(arg) = params.get("argument").and_then(Value::as_object) else {
            return McpError::invalid_params("Missing argument").into();
        };
        let (Some(arg_name), Some(value)) = (
            arg.get("name").and_then(Value::as_str),
            arg.get("value").and_then(Value::as_str),
        ) else {
            return McpError::invalid_params("argument needs name and value").into();
        };
        let handler = match r.get("type").and_then(Value::as_str) {
            Some("ref/prompt") => {
                let name = r.get("name").and_then(Value::as_str).unwrap_or_default();
                match reg
                    .prompts
                    .get(name)
                    .filter(|_| self.may_use(env, "prompt", name))
                {
                    Some(p) => p.completion.clone(),
                    None => {
                        return McpError::invalid_params(format!("Unknown prompt: {name}")).into()
                    }
                }
            }
            Some("ref/resource") => {
                let uri = r.get("uri").and_then(Value::as_str).unwrap_or_default();
                match reg.templates.get(uri) {
                    Some(t) => t.completion.clone(),
                    None if reg.resources.contains_key(uri) => None,
                    None => {
                        return McpError::invalid_params(format!("Unknown resource: {uri}")).into()
                    }
                }
            }
            _ => return McpError::invalid_params("Invalid ref type").into(),
        };
        let mut completion = match handler {
            None => Completion::default(),
            Some(h) => {
                let ctx_args = params
                    .get("context")
                    .and_then(|c| c.get("arguments"))
                    .and_then(Value::as_object)
                    .cloned()
                    .unwrap_or_default();
                let cancel = env.cancel.child_token();
                let ctx = self.context(rq, env, InputState::default(), cancel.clone());
                match Self::run(
                    h.complete(
                        arg_name.to_string(),
                        value.to_string(),
                        ctx_args,
                        ctx.clone(),
                    ),
                    &cancel,
                    self.inner.options.tool_timeout,
                )
                .await
                {
                    Ok(c) => c,
                    Err(e) => return self.handler_failure(rq, arg_name, &ctx, env, e),
                }
            }
        };
        if completion.values.len() > 100 {
            completion
                .total
                .get_or_insert(completion.values.len() as u64);
            completion.values.truncate(100);
            completion.has_more = Some(true);
        }
        let mut m = Map::new();
        m.insert(
            "completion".into(),
            serde_json::to_value(completion).unwrap_or_default(),
        );
        Outcome::Result(self.finish(rq, m, false))
    }
}
