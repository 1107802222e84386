//! The process's log and trace export, from the environment (`oxmcp::logging`): `OXMCP_LOG`,
//! `OXMCP_LOG_FORMAT=json`, and the standard `OTEL_*` variables for OTLP export. `lib/native.cjs`
//! installs it when the native module loads, like the Rust example servers do at start.

use napi_derive::napi;
use std::sync::OnceLock;

static TELEMETRY: OnceLock<oxmcp::logging::Telemetry> = OnceLock::new();

/// Install the subscriber (once per process; later calls do nothing).
#[napi]
pub fn init_telemetry() {
    TELEMETRY.get_or_init(|| oxmcp::logging::init_from_env("oxmcp-node"));
}

/// Export the spans still queued (at process exit, and after a server closes).
#[napi]
pub fn flush_telemetry() {
    if let Some(t) = TELEMETRY.get() {
        t.flush();
    }
}
