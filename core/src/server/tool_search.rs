//! Tool search as clients meet it: the `search_tools` and `call_tool` tools (`tool_search`),
//! and the experimental `oxmcp/tools/search` method (`tool_search_method`).
//!
//! The two tools are FastMCP's search transforms, with their names, descriptions, schemas and
//! result shapes: `tools/list` shows the pinned tools (`tool_search_always_visible`), then the
//! search tool, then the call proxy; a search answers the matching definitions as `list_tools`
//! gives them, in `structuredContent.result` and as JSON text; the proxy calls a tool through
//! the same `tools/call` path as a direct call (allow-list, scopes, validation, tasks, MRTR).
//! What a caller may see is decided by `access.rs` only: the index is asked through
//! `Server::may_use`, before ranking.

use super::dispatch::{Outcome, RequestInfo};
use super::env::Env;
use super::options::{SearchMode, ToolSearch};
use super::search::{Query, SearchError, MAX_RESULTS};
use super::{Registry, Server};
use crate::error::McpError;
use crate::jsonrpc::Params;
use crate::protocol::Era;
use crate::tool::ToolEntry;
use serde_json::{json, Map, Value};

/// The experimental method, and its key under `capabilities.experimental`.
pub(crate) const METHOD: &str = "oxmcp/tools/search";
pub(crate) const CAPABILITY: &str = "oxmcp/toolSearch";

/// FastMCP's wrapped-result output schema for `str | list[dict]`: its clients unwrap `result`.
fn search_output_schema() -> Value {
    json!({
        "properties": {"result": {"anyOf": [
            {"type": "string"},
            {"items": {"additionalProperties": true, "type": "object"}, "type": "array"}
        ]}},
        "required": ["result"],
        "type": "object",
        "x-fastmcp-wrap-result": true
    })
}

fn search_input_schema(mode: SearchMode) -> Value {
    let (key, desc) = match mode {
        SearchMode::Bm25 => ("query", "Natural language query to search for tools"),
        SearchMode::Regex => (
            "pattern",
            "Case-insensitive regex pattern for tool names, descriptions, and parameters, \
             up to 1000 characters; lookarounds and backreferences are not supported",
        ),
    };
    json!({
        "type": "object",
        "additionalProperties": false,
        "properties": {key: {"description": desc, "type": "string"}},
        "required": [key]
    })
}

fn call_input_schema() -> Value {
    json!({
        "type": "object",
        "additionalProperties": false,
        "properties": {
            "name": {"description": "The name of the tool to call", "type": "string"},
            "arguments": {
                "anyOf": [{"additionalProperties": true, "type": "object"}, {"type": "null"}],
                "default": null,
                "description": "Arguments to pass to the tool"
            }
        },
        "required": ["name"]
    })
}

fn search_def(ts: &ToolSearch) -> Value {
    let description = match ts.mode {
        SearchMode::Bm25 => {
            "Search for tools using natural language.\n\nReturns matching tool definitions \
             ranked by relevance,\nin the same format as list_tools."
        }
        SearchMode::Regex => {
            "Search for tools matching a regex pattern.\n\nReturns matching tool definitions \
             in the same format as list_tools.\nInvalid, unsupported, or overlong patterns \
             return an empty list."
        }
    };
    json!({
        "name": ts.search_tool_name,
        "title": "Search Tools",
        "description": description,
        "inputSchema": search_input_schema(ts.mode),
        "outputSchema": search_output_schema(),
    })
}

fn call_def(ts: &ToolSearch) -> Value {
    json!({
        "name": ts.call_tool_name,
        "title": "Call Tool",
        "description": format!(
            "Call a tool by name with the given arguments.\n\nUse this to execute tools \
             discovered via {}.",
            ts.search_tool_name
        ),
        "inputSchema": call_input_schema(),
    })
}

impl Server {
    /// Whether `name` is one of the search tools (which every caller may see and use: they
    /// show and reach only what the caller may).
    pub(crate) fn is_search_tool(&self, name: &str) -> bool {
        self.inner
            .options
            .tool_search
            .as_ref()
            .is_some_and(|ts| name == ts.search_tool_name || name == ts.call_tool_name)
    }

    /// The tool a `tools/call` reaches: its `name`, or through the call proxy its
    /// `arguments.name`.
    pub(crate) fn called_tool<'a>(&self, params: &'a Params) -> &'a str {
        let name = params
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default();
        match &self.inner.options.tool_search {
            Some(ts) if name == ts.call_tool_name => params
                .get("arguments")
                .and_then(|a| a.get("name"))
                .and_then(Value::as_str)
                .unwrap_or_default(),
            _ => name,
        }
    }

    /// `tools/list` with tool search on: the pinned tools the caller may see, the search tool,
    /// the call proxy.
    pub(super) fn search_list(
        &self,
        rq: &RequestInfo,
        params: &Params,
        env: &Env,
        reg: &Registry,
        ts: &ToolSearch,
    ) -> Outcome {
        let modern = rq.era == Era::Modern;
        let pinned = ts
            .always_visible
            .iter()
            .filter(|n| !self.is_search_tool(n))
            .filter_map(|n| reg.tools.get(n))
            .filter(|t| self.lists_tool(env, t))
            .map(|t| t.descriptor(modern));
        let defs = pinned.chain([search_def(ts), call_def(ts)]).collect();
        self.cataloged_small(rq, params, env, defs, "tools", |defs, lm| {
            self.list(rq, params, defs.into_iter(), |v| v, "tools", lm.map())
        })
    }

    /// A `tools/call` with tool search on: the search tool is answered here; the call proxy
    /// becomes the call of the tool it names (`Ok`: the params to call with, and the call's
    /// audit record is the pipeline's). An answer given here gets its audit record here, as a
    /// call of the search tool (or of the proxy, when its arguments are refused).
    pub(super) fn search_call(
        &self,
        rq: &RequestInfo,
        params: Params,
        env: &Env,
        reg: &Registry,
    ) -> Result<Params, Outcome> {
        if self.inner.options.tool_search.is_none() {
            return Ok(params);
        }
        let started = std::time::Instant::now();
        let name = params
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let r = self.search_answer(rq, params, env, reg);
        if let Err(answer) = &r {
            self.audit(rq, env, &name, Some(started), answer);
        }
        r
    }

    /// `Err`: the answer to a call of the search tool, or of the proxy refused; `Ok`: the
    /// params to call with (the proxy's target, or the call as it came for any other tool).
    fn search_answer(
        &self,
        rq: &RequestInfo,
        mut params: Params,
        env: &Env,
        reg: &Registry,
    ) -> Result<Params, Outcome> {
        let Some(ts) = &self.inner.options.tool_search else {
            return Ok(params);
        };
        let name = params
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let (is_search, schema) = if name == ts.search_tool_name {
            (true, search_input_schema(ts.mode))
        } else if name == ts.call_tool_name {
            (false, call_input_schema())
        } else {
            return Ok(params);
        };
        let name = name.to_owned();
        let args = self.synthetic_arguments(rq, &name, schema, &mut params)?;
        if is_search {
            return Err(self.search_tool_result(rq, ts, env, reg, &args));
        }
        let text = |k: &str| args.get(k).and_then(Value::as_str).unwrap_or_default();
        let target = text("name").to_owned();
        if self.is_search_tool(&target) {
            let mut r = Map::new();
            r.insert(
                "content".into(),
                json!([{"type": "text", "text": format!(
                    "'{target}' is a synthetic search tool and cannot be called via the {} proxy",
                    ts.call_tool_name
                )}]),
            );
            r.insert("isError".into(), Value::Bool(true));
            return Err(Outcome::Result(self.finish(rq, r, false)));
        }
        let inner = args.get("arguments").cloned().unwrap_or(Value::Null);
        params.insert("name".into(), Value::String(target));
        params.insert("arguments".into(), inner);
        Ok(params)
    }

    /// A synthetic tool's arguments (taken out of `params`), held to its input `schema` as a
    /// registered tool's are.
    fn synthetic_arguments(
        &self,
        rq: &RequestInfo,
        name: &str,
        schema: Value,
        params: &mut Params,
    ) -> Result<Value, Outcome> {
        let args = match params.remove("arguments") {
            None | Some(Value::Null) => Value::Object(Map::new()),
            Some(v @ Value::Object(_)) => v,
            Some(_) => return Err(McpError::invalid_params("arguments must be an object").into()),
        };
        let input = self
            .inner
            .schemas
            .compile(schema)
            .map_err(|e| Outcome::from(McpError::internal(e)))?;
        if !input.is_valid(&args) {
            return Err(self.invalid_arguments(rq, name, &input.violations(&args)));
        }
        Ok(args)
    }

    /// The search tool's result: the definitions of the tools the caller may see that match,
    /// best first, as `tools/list` gives them (the pinned tools are listed already).
    fn search_tool_result(
        &self,
        rq: &RequestInfo,
        ts: &ToolSearch,
        env: &Env,
        reg: &Registry,
        args: &Value,
    ) -> Outcome {
        let text = |k: &str| args.get(k).and_then(Value::as_str).unwrap_or_default();
        let query = match ts.mode {
            SearchMode::Bm25 => Query::Text(text("query")),
            SearchMode::Regex => Query::Regex(text("pattern")),
        };
        let pinned = |n: &str| ts.always_visible.iter().any(|p| p == n);
        let visible = |t: &ToolEntry| !pinned(&t.name) && self.lists_tool(env, t);
        let view: Option<&dyn Fn(&ToolEntry) -> bool> =
            if ts.always_visible.is_empty() && self.sees_every_tool(env) {
                None
            } else {
                Some(&visible)
            };
        let found = reg
            .rendered
            .search_index(&reg.tools)
            .search(query, ts.max_results, view)
            // An invalid, unsupported or overlong pattern finds nothing (FastMCP's answer).
            .unwrap_or_default();
        let modern = rq.era == Era::Modern;
        let defs: Vec<Value> = found
            .iter()
            .map(|t| self.as_listed(t.descriptor(modern)))
            .collect();
        let content = if defs.is_empty() {
            json!([])
        } else {
            json!([{"type": "text", "text": Value::Array(defs.clone()).to_string()}])
        };
        let mut r = Map::new();
        r.insert("content".into(), content);
        r.insert("structuredContent".into(), json!({"result": defs}));
        r.insert("isError".into(), Value::Bool(false));
        Outcome::Result(self.finish(rq, r, false))
    }

    /// `oxmcp/tools/search`: `{query}` (ranked) or `{pattern}` (regex), optional `limit`;
    /// answers `{tools: [definitions]}`, best first, only tools the caller may see.
    pub(super) fn search_method(
        &self,
        rq: &RequestInfo,
        params: &Params,
        env: &Env,
        reg: &Registry,
    ) -> Outcome {
        let query = match (params.get("query"), params.get("pattern")) {
            (Some(Value::String(q)), None) => Query::Text(q),
            (None, Some(Value::String(p))) => Query::Regex(p),
            _ => {
                return McpError::invalid_params("give one of 'query' or 'pattern', a string")
                    .into()
            }
        };
        let default = self
            .inner
            .options
            .tool_search
            .as_ref()
            .map_or(5, |ts| ts.max_results);
        let limit = match params.get("limit") {
            None | Some(Value::Null) => default,
            Some(v) => match v.as_u64().filter(|n| (1..=MAX_RESULTS as u64).contains(n)) {
                Some(n) => n as usize,
                None => {
                    return McpError::invalid_params(format!(
                        "'limit' must be an integer from 1 to {MAX_RESULTS}"
                    ))
                    .into()
                }
            },
        };
        let visible = |t: &ToolEntry| self.lists_tool(env, t);
        let view: Option<&dyn Fn(&ToolEntry) -> bool> = if self.sees_every_tool(env) {
            None
        } else {
            Some(&visible)
        };
        let found = match reg
            .rendered
            .search_index(&reg.tools)
            .search(query, limit, view)
        {
            Ok(f) => f,
            Err(e @ (SearchError::PatternTooLong | SearchError::BadPattern(_))) => {
                return McpError::invalid_params(e.to_string()).into()
            }
        };
        let modern = rq.era == Era::Modern;
        let tools: Vec<Value> = found
            .iter()
            .map(|t| self.as_listed(t.descriptor(modern)))
            .collect();
        let mut r = Map::new();
        r.insert("tools".into(), Value::Array(tools));
        Outcome::Result(self.finish(rq, r, false))
    }

    /// What `capabilities.experimental` declares for the method.
    pub(super) fn search_capability(&self) -> Option<(String, Value)> {
        self.inner.options.tool_search_method.then(|| {
            (
                CAPABILITY.to_owned(),
                json!({"method": METHOD, "modes": ["bm25", "regex"], "maxResults": MAX_RESULTS}),
            )
        })
    }
}
