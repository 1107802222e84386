#![doc = include_str!("../README.md")]
// docs.rs builds with `--cfg docsrs` (core/Cargo.toml): each feature-gated item shows its feature.
#![cfg_attr(docsrs, feature(doc_cfg))]
//! oxmcp: a native Model Context Protocol server core.
//!
//! One dispatcher ([`Server::dispatch`]) serves every transport: stdio
//! ([`transport::stdio`]), Streamable HTTP ([`transport::http_server`], built on the
//! transport-neutral [`transport::http::HttpHandler`]) and the Python and Node bindings.
//! Both protocol eras are served: 2026-07-28 (stateless, per-request `_meta`, MRTR) and the
//! legacy `initialize` revisions 2024-11-05 … 2025-11-25.

pub mod apps;
pub mod auth;
pub mod authority;
pub mod bus;
mod client_requests;
pub mod completion;
pub mod config;
pub mod context;
pub mod discovery;
pub mod element;
pub mod error;
pub mod handler;
pub mod handover;
// The core's own outbound HTTP requests: only the JWKS fetcher and the OTLP exporter send any.
#[cfg(feature = "cli")]
pub mod cli;
#[cfg(any(feature = "auth-jwt", feature = "otel", feature = "cli"))]
mod http_client;
pub mod identity;
mod jsonrpc;
pub mod limits;
#[cfg(feature = "logging")]
pub mod logging;
// What the attribute macros' generated code names; not an API of its own.
#[cfg(feature = "macros")]
#[doc(hidden)]
pub mod macro_support;
pub mod metrics;
#[cfg(feature = "otel")]
pub mod otel;
pub mod prompt;
pub mod protocol;
#[cfg(feature = "redis")]
pub mod redis;
mod request;
pub mod resource;
pub mod schema;
pub mod server;
pub mod session;
pub mod skills;
pub mod tasks;
pub mod tool;
pub mod transport;
pub mod uri_template;

pub use bus::{Event, EventBus, InMemoryBus};
pub use completion::Completer;
pub use context::{Context, InputRequest};
pub use error::{BuildError, ErrorCode, HandlerError, McpError, ToolError};
pub use handler::{
    CompletionHandler, IntoToolResult, Json, MethodHandler, PromptHandler, RefusalWording,
    ResourceHandler, ToolHandler, ToolSchemaLookup,
};
pub use identity::{Allow, Caller};
pub use prompt::Prompt;
pub use protocol::{
    ClientCapability, Completion, Content, Era, LogLevel, PromptMessage, PromptResult,
    ResourceContents, ToolResult,
};
pub use resource::{Resource, ResourceTemplate};
pub use server::middleware::{Middleware, MiddlewareRequest, MiddlewareResult, Next};
pub use server::options::{CacheHint, CacheScope, ServerOptions, ValidationMode};
pub use server::{
    DiscoveredEntry, Env, Server, ServerBuilder, SessionHandle, SessionListener, ToolBatch,
    Transport,
};
pub use skills::{DynamicSkill, Skill};
pub use tool::{Args, Tool};

/// Attribute macros that turn functions into tools, prompts and resources, and an `impl` block's
/// methods into tools that share the value's state (feature `macros`, on by default): see the
/// crate README.
#[cfg(feature = "macros")]
pub use oxmcp_macros::{prompt, resource, server, tool};

pub use serde_json;
pub use tokio_util::sync::CancellationToken;

/// The future a handler, a task store or a session store returns. Defined at the root, not in
/// `handler`, because the task store sits below the handlers (`scripts/check-layers.py`).
pub type BoxFuture<T> = std::pin::Pin<Box<dyn std::future::Future<Output = T> + Send + 'static>>;

/// The Rust samples of the repository README and of the documentation site, compiled by
/// `cargo test --doc -p oxmcp` (the crate's own README above is its documentation, so its
/// examples are doctests already). tests/docs/test_python_samples.py checks that every page with
/// a Rust sample is listed here.
#[cfg(doctest)]
pub mod site_doctests {
    #[doc = include_str!("../../README.md")]
    pub struct Readme;
    #[doc = include_str!("../../docs/getting-started/rust.md")]
    pub struct GettingStarted;
    #[doc = include_str!("../../docs/guides/apps.md")]
    pub struct Apps;
    #[doc = include_str!("../../docs/guides/auth.md")]
    pub struct Auth;
    #[doc = include_str!("../../docs/guides/tasks.md")]
    pub struct Tasks;
    #[doc = include_str!("../../docs/SECURITY.md")]
    pub struct Security;
    #[doc = include_str!("../../docs/SKILLS.md")]
    pub struct Skills;
}

/// The JSON Schema of `T` (root `type: object` for structs), for tool input/output schemas.
#[cfg(feature = "schemars")]
pub fn schema_for<T: schemars::JsonSchema>() -> serde_json::Value {
    let mut v = serde_json::to_value(schemars::schema_for!(T)).unwrap_or_default();
    if let Some(m) = v.as_object_mut() {
        m.remove("$schema");
        m.remove("title");
    }
    v
}
