//! Node binding of the oxmcp core. Thin wrappers: each method clones an `Arc`, calls the core and
//! maps the error. JS handlers implement the core's handler traits (`js_handler`), called from
//! Rust through weak threadsafe functions, so the Rust server never blocks Node's event loop.
//!
//! Native types are prefixed `Native*`; the public JS/TS names live in `bindings-node/lib/*.cjs`.

mod batch;
mod bearer;
mod calls;
mod cli;
mod context;
mod defs;
mod errors;
mod http;
mod js_handler;
mod options;
mod server;
mod sessions;
mod skills;
mod telemetry;

/// The allocator for this addon's Rust side: every request allocates some fifty small blocks,
/// which mimalloc serves in far fewer instructions than the system allocator (bench/RESULTS.md).
/// Host objects stay with the host's own allocator.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

pub use cli::{cli_main, NativeCliOutcome};
pub use context::NativeCalls;
pub use defs::{
    check_completion_names, check_element, NativePromptDef, NativeResourceDef,
    NativeResourceTemplateDef, NativeToolDef,
};
// Public because the `#[napi]` methods return them (the error each throws).
pub use errors::{Code, Coded};
pub use http::{NativeHttpExchange, NativeHttpResponse};
pub use options::effective_options;
pub use server::NativeServer;
pub use sessions::NativeSession;
pub use skills::{skill_load_one, skill_of, skills_from_tree, skills_load_dir};
pub use telemetry::{flush_telemetry, init_telemetry};
