//! The per-method stages of the call pipeline (`pipeline.rs`): how `tools/call`,
//! `resources/read`, `prompts/get` and `completion/complete` are prepared (params, lookup,
//! access, validation, MRTR state) and how each one's outcome is mapped to the wire.

use super::dispatch::*;
use super::env::Env;
use super::mrtr::ArgsDigest;
use super::pipeline::{Done, Invoke, Kind, Prepared, RunError};
use super::refusal::{Refused, WordedRefusal};
use super::Server;
use crate::context::Context;
use crate::error::{ErrorCode, HandlerError, McpError};
use crate::jsonrpc::Params;
use crate::protocol::*;
use crate::schema::{coerce_scalars, violations_json};
use crate::server::options::ValidationMode;
use futures::FutureExt;
use serde_json::{json, Map, Value};

/// A completion's handler (`None`: answered empty) and its own timeout.
type Completer = (
    Option<std::sync::Arc<dyn crate::handler::CompletionHandler>>,
    Option<std::time::Duration>,
);

/// Most completion values sent; more are cut and flagged `hasMore` (the spec's maximum).
pub(crate) const MAX_COMPLETION_VALUES: usize = 100;

impl Server {
    /// Stage 1 for the request's method. `Err`: the answer, without running anything.
    /// `digest`: of the arguments the client sent, which an MRTR state is bound to.
    pub(super) fn prepare(
        &self,
        rq: &RequestInfo,
        params: Params,
        env: &Env,
        digest: &ArgsDigest,
    ) -> Result<Prepared, Refused> {
        let (mut p, rest) = match &rq.method {
            Method::ToolsCall => self.prepare_tool(rq, params, env)?,
            Method::ResourcesRead => self.prepare_resource(rq, params, env)?,
            Method::PromptsGet => self.prepare_prompt(params, env)?,
            Method::CompletionComplete => return Ok(self.prepare_completion(params, env)?),
            m => return Err(Outcome::from(McpError::method_not_found(m.as_str())).into()),
        };
        // Last: the sealed MRTR state is bound to the primitive, known only now.
        p.input = Some(
            self.mrtr_input(rq, &p.name, &rest, env, digest.clone())
                .map_err(Outcome::from)?,
        );
        Ok(p)
    }

    fn prepare_tool(
        &self,
        rq: &RequestInfo,
        mut params: Params,
        env: &Env,
    ) -> Result<(Prepared, Params), Refused> {
        let name = take_str_param(&mut params, "name").map_err(Outcome::from)?;
        let unknown = |name: &str| {
            Refused::from(Outcome::from(McpError::invalid_params(format!(
                "Unknown tool: {name}"
            ))))
        };
        let Some(tool) = self.snapshot().tools.get(&name).cloned() else {
            return Err(unknown(&name));
        };
        if !self.may_use(env, "tool", &name) {
            env.note("denied");
            return Err(unknown(&name));
        }
        self.check_scopes(env, &name, &tool.required_scopes)?;
        let mut args = match params.remove("arguments") {
            None | Some(Value::Null) => Value::Object(Map::new()),
            Some(v @ Value::Object(_)) => v,
            Some(_) => {
                let e = McpError::invalid_params("arguments must be an object");
                return Err(Outcome::from(e).into());
            }
        };
        if !tool.input.is_valid(&args) {
            // The arguments as sent, for a wording (coercion below may change them).
            let sent = tool.wording.is_some().then(|| args.clone());
            let coerced = self.inner.options.lenient_coercion
                && coerce_scalars(tool.input.source(), &mut args)
                && tool.input.is_valid(&args);
            if !coerced {
                let violations = tool.input.violations(&args);
                return Err(match (sent, tool.wording.clone()) {
                    (Some(Value::Object(arguments)), Some(wording)) => {
                        Refused::Worded(Box::new(WordedRefusal {
                            name,
                            arguments,
                            violations,
                            wording,
                        }))
                    }
                    _ => self.invalid_arguments(rq, &name, &violations).into(),
                });
            }
        }
        let Value::Object(args) = args else {
            unreachable!("checked above")
        };
        let p = Prepared {
            name,
            input: None,
            slots: tool.slots.clone(),
            timeout: tool.timeout.or(self.inner.options.tool_timeout),
            invoke: Invoke::Tool(tool.handler.clone(), args),
            kind: Kind::Tool(tool),
        };
        Ok((p, params))
    }

    /// Arguments that fail the input schema, or the host's own validation after it
    /// (`HandlerError::InvalidArguments`): the one text for every language. A tool answers a
    /// JSON-RPC error or an `isError` result, as `ServerOptions::validation` says; a prompt,
    /// resource or completion always -32602. The error's `data.violations` holds
    /// `{pointer, message}` for each.
    pub(super) fn invalid_arguments(
        &self,
        rq: &RequestInfo,
        name: &str,
        v: &[crate::schema::Violation],
    ) -> Outcome {
        self.invalid_arguments_of(rq, "tool", name, v, None)
    }

    /// `text`: a wording's, in place of the core's message.
    pub(super) fn invalid_arguments_of(
        &self,
        rq: &RequestInfo,
        what: &str,
        name: &str,
        v: &[crate::schema::Violation],
        text: Option<String>,
    ) -> Outcome {
        let mode = match what {
            "tool" => self.inner.options.validation,
            _ => ValidationMode::JsonRpcError,
        };
        match mode {
            ValidationMode::JsonRpcError => McpError::invalid_params(
                text.unwrap_or_else(|| format!("Invalid arguments for {what} {name}")),
            )
            .with_data(json!({"violations": violations_json(v)}))
            .into(),
            ValidationMode::ToolError if text.is_some() => {
                let mut r = ToolResult::error(text.unwrap_or_default());
                r.structured_content = None;
                self.tool_outcome(rq, r)
            }
            ValidationMode::ToolError => {
                let lines: Vec<String> = v
                    .iter()
                    .map(|x| {
                        let at = if x.pointer.is_empty() {
                            "/"
                        } else {
                            &x.pointer
                        };
                        format!("{at}: {}", x.message)
                    })
                    .collect();
                let mut r = ToolResult::error(format!(
                    "Invalid arguments for tool {name}:\n{}",
                    lines.join("\n")
                ));
                r.structured_content = None;
                self.tool_outcome(rq, r)
            }
        }
    }

    fn prepare_resource(
        &self,
        rq: &RequestInfo,
        params: Params,
        env: &Env,
    ) -> Result<(Prepared, Params), Outcome> {
        let uri = str_param(&params, "uri")?.to_string();
        self.check_uri_len(&uri)?;
        let reg = self.snapshot();
        let (handler, vars, own_timeout) = if let Some(r) = reg.resources.get(&uri) {
            if !self.may_use(env, "resource", &uri) {
                env.note("denied");
                return Err(self.not_found(rq, &uri));
            }
            self.check_scopes(env, &uri, &r.required_scopes)?;
            if let Some(fixed) = &r.fixed {
                let fixed = fixed.clone();
                let p = Prepared {
                    kind: Kind::Resource,
                    name: uri,
                    input: None,
                    slots: None,
                    timeout: r.timeout.or(self.inner.options.tool_timeout),
                    invoke: Invoke::Other(Box::new(move |_| {
                        std::future::ready(Ok(Done::Fixed(fixed))).boxed()
                    })),
                };
                return Ok((p, params));
            }
            (r.handler.clone(), Map::new(), r.timeout)
        } else if let Some((t, vars)) = {
            // The allow-list first: a caller allowed the URI may read it
            // through any template; otherwise only the templates it may use are even tried, so
            // a caller costs no matching work on templates hidden from it.
            let uri_ok = self.may_use(env, "resource", &uri);
            reg.resolve_template(&uri, |k| uri_ok || self.may_use(env, "resource", k))
                .map(|(_, t, v)| (t, v))
        } {
            self.check_scopes(env, &uri, &t.required_scopes)?;
            (t.handler.clone(), vars, t.timeout)
        } else {
            return Err(self.not_found(rq, &uri));
        };
        let read_uri = uri.clone();
        let p = Prepared {
            kind: Kind::Resource,
            name: uri,
            input: None,
            slots: None,
            timeout: own_timeout.or(self.inner.options.tool_timeout),
            invoke: Invoke::Other(Box::new(move |ctx| {
                handler
                    .read(read_uri, vars, ctx)
                    .map(|r| r.map(Done::Contents))
                    .boxed()
            })),
        };
        Ok((p, params))
    }

    fn prepare_prompt(&self, mut params: Params, env: &Env) -> Result<(Prepared, Params), Outcome> {
        let name = take_str_param(&mut params, "name")?;
        let Some(prompt) = self.snapshot().prompts.get(&name).cloned() else {
            return Err(McpError::invalid_params(format!("Unknown prompt: {name}")).into());
        };
        if !self.may_use(env, "prompt", &name) {
            env.note("denied");
            return Err(McpError::invalid_params(format!("Unknown prompt: {name}")).into());
        }
        self.check_scopes(env, &name, &prompt.required_scopes)?;
        let args = match params.get("arguments") {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(m)) if m.values().all(Value::is_string) => m.clone(),
            Some(_) => {
                return Err(McpError::invalid_params(
                    "prompt arguments must be an object of strings",
                )
                .into())
            }
        };
        if let Some(missing) = prompt.required.iter().find(|r| !args.contains_key(*r)) {
            return Err(
                McpError::invalid_params(format!("Missing required argument: {missing}")).into(),
            );
        }
        let handler = prompt.handler.clone();
        let p = Prepared {
            kind: Kind::Prompt,
            name,
            input: None,
            slots: None,
            timeout: prompt.timeout.or(self.inner.options.tool_timeout),
            invoke: Invoke::Other(Box::new(move |ctx| {
                handler.get(args, ctx).map(|r| r.map(Done::Prompt)).boxed()
            })),
        };
        Ok((p, params))
    }

    /// The completion handler (`None`: a resource without one) and timeout of the prompt or
    /// template `r` names, if the caller may see it.
    fn completer(
        &self,
        reg: &super::Registry,
        r: &Map<String, Value>,
        env: &Env,
    ) -> Result<Completer, Outcome> {
        match r.get("type").and_then(Value::as_str) {
            Some("ref/prompt") => {
                let name = r.get("name").and_then(Value::as_str).unwrap_or_default();
                match reg
                    .prompts
                    .get(name)
                    .filter(|_| self.may_use(env, "prompt", name))
                {
                    Some(p) => Ok((p.completion.clone(), p.timeout)),
                    None => Err(McpError::invalid_params(format!("Unknown prompt: {name}")).into()),
                }
            }
            Some("ref/resource") => {
                let uri = r.get("uri").and_then(Value::as_str).unwrap_or_default();
                self.check_uri_len(uri)?;
                // A template or resource hidden from the caller is unknown to it: the same answer
                // (so a refusal cannot reveal it), and its completer does not run.
                let visible = self.may_use(env, "resource", uri);
                match reg.templates.get(uri).filter(|_| visible) {
                    Some(t) => Ok((t.completion.clone(), t.timeout)),
                    None if visible && reg.resources.contains_key(uri) => Ok((None, None)),
                    None => {
                        Err(McpError::invalid_params(format!("Unknown resource: {uri}")).into())
                    }
                }
            }
            _ => Err(McpError::invalid_params("Invalid ref type").into()),
        }
    }

    /// Completions carry no MRTR state. A resource without a completion handler answers an
    /// empty completion without running anything.
    fn prepare_completion(&self, params: Params, env: &Env) -> Result<Prepared, Outcome> {
        let reg = self.snapshot();
        let Some(r) = params.get("ref").and_then(Value::as_object) else {
            return Err(McpError::invalid_params("Missing ref").into());
        };
        let Some(arg) = params.get("argument").and_then(Value::as_object) else {
            return Err(McpError::invalid_params("Missing argument").into());
        };
        let (Some(arg_name), Some(value)) = (
            arg.get("name").and_then(Value::as_str),
            arg.get("value").and_then(Value::as_str),
        ) else {
            return Err(McpError::invalid_params("argument needs name and value").into());
        };
        let (handler, own_timeout) = self.completer(&reg, r, env)?;
        // The primitive is visible: completing it needs the scopes that using it needs.
        if let Some((name, required)) = super::access::completed_scopes(&reg, &params) {
            self.check_scopes(env, name, required)?;
        }
        let (arg_name, value) = (arg_name.to_string(), value.to_string());
        let ctx_args = params
            .get("context")
            .and_then(|c| c.get("arguments"))
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        let invoke = Invoke::Other(match handler {
            None => Box::new(|_| async { Ok(Done::Completion(Completion::default())) }.boxed()),
            Some(h) => Box::new(move |ctx| {
                h.complete(arg_name, value, ctx_args, ctx)
                    .map(|r| r.map(Done::Completion))
                    .boxed()
            }),
        });
        Ok(Prepared {
            kind: Kind::Completion,
            name: arg
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .into(),
            input: None,
            slots: None,
            timeout: own_timeout.or(self.inner.options.tool_timeout),
            invoke,
        })
    }

    /// Stage 4: a handler's value or failure to its wire outcome.
    pub(crate) fn map(
        &self,
        rq: &RequestInfo,
        env: &Env,
        kind: &Kind,
        name: &str,
        ctx: &Context,
        r: Result<Done, RunError>,
    ) -> Outcome {
        let done = match r {
            Ok(d) => d,
            Err(RunError::Handler(HandlerError::InputRequired(_))) => {
                return self.input_required(rq, name, ctx, env)
            }
            Err(RunError::Handler(HandlerError::Cancelled)) => return Outcome::Nothing,
            Err(e) => return self.failure(rq, env, kind, name, e),
        };
        match done {
            Done::Tool(res) => match kind {
                Kind::Tool(tool) => self.tool_result(rq, tool, res),
                _ => McpError::internal("a tool result for another kind of call").into(),
            },
            Done::Contents(c) if c.is_empty() => self.not_found(rq, name),
            Done::Contents(c) => self.contents(rq, super::answer::Contents::Owned(c)),
            Done::Fixed(c) => self.contents(rq, super::answer::Contents::Fixed(c)),
            Done::Prompt(p) => match serde_json::to_value(p) {
                Ok(Value::Object(m)) => Outcome::Result(self.finish(rq, m, false)),
                _ => McpError::internal("could not serialize the prompt").into(),
            },
            Done::Completion(mut c) => {
                if c.values.len() > MAX_COMPLETION_VALUES {
                    c.total.get_or_insert(c.values.len() as u64);
                    c.values.truncate(MAX_COMPLETION_VALUES);
                    c.has_more = Some(true);
                }
                let mut m = Map::new();
                m.insert(
                    "completion".into(),
                    serde_json::to_value(c).unwrap_or_default(),
                );
                Outcome::Result(self.finish(rq, m, false))
            }
        }
    }

    /// A read's contents with the result's other members.
    fn contents(&self, rq: &RequestInfo, contents: super::answer::Contents) -> Outcome {
        match self.finish(rq, Map::new(), true) {
            Value::Object(rest) => {
                Outcome::Contents(Box::new(super::answer::ContentsAnswer { contents, rest }))
            }
            _ => McpError::internal("a result that is not an object").into(),
        }
    }

    /// A successful tool result, held to the tool's output schema.
    fn tool_result(
        &self,
        rq: &RequestInfo,
        tool: &crate::tool::ToolEntry,
        mut res: ToolResult,
    ) -> Outcome {
        let name = &tool.name;
        if rq.era == Era::Legacy
            && res
                .structured_content
                .as_ref()
                .is_some_and(|s| !s.is_object())
        {
            res.structured_content = None;
        }
        let checked = rq.era == Era::Modern || tool.legacy_output;
        match (&tool.output, res.is_error) {
            (Some(schema), false) if checked => match &res.structured_content {
                None => {
                    tracing::error!(tool = %name, "tool declared an outputSchema but returned no structuredContent");
                    McpError::internal(format!("Tool {name} returned no structured content")).into()
                }
                Some(sc) if !schema.is_valid(sc) => {
                    tracing::error!(tool = %name, violations = ?schema.violations(sc), "structuredContent does not match outputSchema");
                    McpError::internal(format!(
                        "Tool {name} returned structured content that does not match its output schema"
                    ))
                    .into()
                }
                Some(_) => self.tool_outcome(rq, res),
            },
            _ => self.tool_outcome(rq, res),
        }
    }

    /// A handler that failed, timed out or panicked. Tools answer an `isError` result the model
    /// can read; the other kinds a JSON-RPC error.
    fn failure(
        &self,
        rq: &RequestInfo,
        env: &Env,
        kind: &Kind,
        name: &str,
        e: RunError,
    ) -> Outcome {
        match &e {
            RunError::Timeout => env.note("timeout"),
            RunError::Panic(_) => env.note("panic"),
            RunError::Handler(_) => {}
        }
        let tool = matches!(kind, Kind::Tool(_));
        match e {
            RunError::Handler(HandlerError::Mcp(e)) => e.into(),
            RunError::Handler(HandlerError::Tool(e)) if tool => {
                let mut r = ToolResult::error(e.message);
                r.structured_content = e.structured;
                self.tool_outcome(rq, r)
            }
            RunError::Handler(HandlerError::Tool(e)) => McpError::internal(e.message).into(),
            RunError::Panic(msg) => {
                tracing::error!(name = %name, panic = %msg, "handler panicked");
                let detail = self.inner.options.expose_internal_errors.then_some(msg);
                self.internal_error(rq, kind, name, detail)
            }
            RunError::Handler(HandlerError::Internal(detail)) => {
                self.internal_error(rq, kind, name, detail)
            }
            RunError::Handler(HandlerError::InvalidArguments(v)) => {
                let what = match kind {
                    Kind::Tool(_) => "tool",
                    Kind::Resource => "resource",
                    Kind::Prompt => "prompt",
                    Kind::Completion => "completion",
                };
                self.invalid_arguments_of(rq, what, name, &v, None)
            }
            RunError::Timeout if tool => {
                let text = self.tool_timeout_text(kind, name);
                self.tool_outcome(rq, ToolResult::error(text))
            }
            RunError::Timeout => McpError::internal("Timed out").into(),
            // Answered in `map` before this is reached.
            RunError::Handler(HandlerError::InputRequired(_) | HandlerError::Cancelled) => {
                Outcome::Nothing
            }
        }
    }

    /// A tool call's timeout result text: `ServerOptions::tool_timeout_text` with the tool's name
    /// and timeout (seconds, as the shortest decimal: `0.5`, `30.0`), else `Tool {name} timed out`.
    fn tool_timeout_text(&self, kind: &Kind, name: &str) -> String {
        let options = &self.inner.options;
        let Some(template) = &options.tool_timeout_text else {
            return format!("Tool {name} timed out");
        };
        let limit = match kind {
            Kind::Tool(tool) => tool.timeout.or(options.tool_timeout),
            _ => options.tool_timeout,
        };
        let secs = limit
            .map(|d| format!("{:?}", d.as_secs_f64()))
            .unwrap_or_default();
        template.replace("{name}", name).replace("{timeout}", &secs)
    }

    /// The one internal-error text, per kind (FastMCP's wording, which a Python user knows; the
    /// detail only when given): an `isError` result for tools, -32603 for the rest.
    fn internal_error(
        &self,
        rq: &RequestInfo,
        kind: &Kind,
        name: &str,
        detail: Option<String>,
    ) -> Outcome {
        let base = match kind {
            Kind::Tool(_) => format!("Error executing tool {name}"),
            Kind::Resource => format!("Error reading resource {name}"),
            Kind::Prompt => format!("Error rendering prompt {name}"),
            Kind::Completion => "Error computing completions".to_string(),
        };
        let text = match detail {
            Some(d) if !d.is_empty() => format!("{base}: {d}"),
            _ => base,
        };
        match kind {
            Kind::Tool(_) => self.tool_outcome(rq, ToolResult::error(text)),
            _ => McpError::internal(text).into(),
        }
    }

    /// The primitive's own concurrency slot is taken.
    pub(super) fn busy(&self, rq: &RequestInfo, kind: &Kind, name: &str) -> Outcome {
        match kind {
            Kind::Tool(_) => self.tool_outcome(
                rq,
                ToolResult::error(format!(
                    "Tool {name} is busy (too many calls at once); retry shortly"
                )),
            ),
            _ => McpError::new(
                ErrorCode::SERVER_BUSY,
                format!("{name} is busy; retry shortly"),
            )
            .with_status(503)
            .into(),
        }
    }

    /// A tool's answer, shaped as `finish` shapes a result, kept unserialised until written.
    pub(super) fn tool_outcome(&self, rq: &RequestInfo, res: ToolResult) -> Outcome {
        let modern = rq.era == Era::Modern;
        Outcome::Tool(Box::new(super::answer::ToolAnswer {
            result: res,
            modern,
            info: self.server_info().filter(|_| modern).cloned(),
        }))
    }

    /// The URI length cap: -32602 before any per-template work.
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

    pub(super) fn not_found(&self, rq: &RequestInfo, uri: &str) -> Outcome {
        let code = if rq.era == Era::Modern {
            ErrorCode::INVALID_PARAMS
        } else {
            ErrorCode::RESOURCE_NOT_FOUND_LEGACY
        };
        McpError::new(code, "Resource not found")
            .with_data(json!({"uri": uri}))
            .into()
    }
}

#[cfg(test)]
mod tests {
    use crate::server::{Env, Server, ServerOptions, Transport};
    use crate::{HandlerError, Prompt, PromptResult, Resource, ResourceContents, ResourceTemplate};
    use serde_json::{json, Map, Value};
    use std::time::Duration;
    use tokio::time::Instant;

    fn never_read(
        _u: String,
        _v: Map<String, Value>,
        _c: crate::Context,
    ) -> impl std::future::Future<Output = Result<Vec<ResourceContents>, HandlerError>> {
        std::future::pending()
    }

    /// Resources and templates that never answer, some with their own timeout, on a server
    /// whose `tool_timeout` is 60 s.
    fn server() -> Server {
        let o = ServerOptions {
            tool_timeout: Some(Duration::from_secs(60)),
            ..ServerOptions::default()
        };
        let never_prompt = |_a: Map<String, Value>, _c: crate::Context| {
            std::future::pending::<Result<PromptResult, HandlerError>>()
        };
        Server::builder("t", "1")
            .options(o)
            .resource(
                Resource::new("x://own", "own")
                    .timeout_ms(Some(1000.0))
                    .unwrap()
                    .handler(never_read),
            )
            .resource(Resource::new("x://server", "server").handler(never_read))
            .resource_template(
                ResourceTemplate::new("x://t/{id}", "t")
                    .timeout(Duration::from_secs(2))
                    .handler(never_read),
            )
            .prompt(
                Prompt::new("p")
                    .timeout(Duration::from_secs(3))
                    .handler(never_prompt),
            )
            .build()
            .unwrap()
    }

    /// How long the request ran (in paused time) and its error.
    async fn timed(s: &Server, method: &str, params: Value) -> (Duration, Value) {
        let env = Env::new(Transport::Stdio);
        let mut p = params;
        p["_meta"] = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                            "io.modelcontextprotocol/clientCapabilities": {}});
        let rq = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": p});
        let t0 = Instant::now();
        let r = s.dispatch(rq, &env).await.unwrap();
        (t0.elapsed(), r["error"].clone())
    }

    /// A registration's own timeout bounds its reads; without one the server's `tool_timeout`
    /// does. The rule is the core's, so a binding passes only what the host gave.
    #[tokio::test(start_paused = true)]
    async fn a_registration_timeout_wins_over_the_server_one() {
        let s = server();
        for (method, params, secs) in [
            ("resources/read", json!({"uri": "x://own"}), 1),
            ("resources/read", json!({"uri": "x://t/9"}), 2),
            ("prompts/get", json!({"name": "p"}), 3),
            ("resources/read", json!({"uri": "x://server"}), 60),
        ] {
            let (took, err) = timed(&s, method, params.clone()).await;
            assert_eq!(err["code"], -32603, "{params}: {err}");
            assert_eq!(err["message"], "Timed out", "{params}");
            assert_eq!(took.as_secs(), secs, "{params}");
        }
    }

    /// The check is the tool's: the same text for every kind.
    #[test]
    fn a_bad_timeout_is_refused_with_the_tools_rule() {
        let e = |r: Result<Resource, crate::BuildError>| r.err().unwrap().to_string();
        assert_eq!(
            e(Resource::new("x://a", "a").timeout_ms(Some(0.0))),
            "resource 'x://a': its timeout must be above 0 and at most 9007199254740991 ms"
        );
        let p = Prompt::new("p").timeout_ms(Some(f64::NAN)).err().unwrap();
        assert_eq!(
            p.to_string(),
            "prompt 'p': its timeout must be above 0 and at most 9007199254740991 ms"
        );
        let t = ResourceTemplate::new("x://{a}", "t").timeout_ms(Some(-1.0));
        assert!(t.is_err());
        assert!(Resource::new("x://a", "a").timeout_ms(None).is_ok());
    }

    /// A tool's timeout result is worded by `tool_timeout_text` when a port sets it (its
    /// framework's words, with the tool's name and timeout in seconds), else the core's.
    #[tokio::test(start_paused = true)]
    async fn a_tool_timeout_is_worded_by_tool_timeout_text() {
        let hang = || {
            crate::Tool::new("hang", json!({"type": "object"}))
                .timeout(Duration::from_millis(250))
                .handler(|_a: Map<String, Value>, _c: crate::Context| {
                    std::future::pending::<Result<crate::ToolResult, crate::ToolError>>()
                })
        };
        let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "hang",
            "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                      "io.modelcontextprotocol/clientCapabilities": {}}}});
        for (text, expected) in [
            (None, "Tool hang timed out"),
            (
                Some("Tool '{name}' execution timed out after {timeout}s"),
                "Tool 'hang' execution timed out after 0.25s",
            ),
        ] {
            let o = ServerOptions {
                tool_timeout_text: text.map(str::to_string),
                ..ServerOptions::default()
            };
            let s = Server::builder("t", "1")
                .options(o)
                .tool(hang())
                .build()
                .unwrap();
            let r = s
                .dispatch(call.clone(), &Env::new(Transport::Stdio))
                .await
                .unwrap();
            assert_eq!(r["result"]["isError"], true);
            assert_eq!(r["result"]["content"][0]["text"], expected);
        }
    }
}
