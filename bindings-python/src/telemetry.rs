//! The process's log and trace export, from the environment (`oxmcp::logging`): `OXMCP_LOG`,
//! `OXMCP_LOG_FORMAT=json`, and the standard `OTEL_*` variables for OTLP export. Installed when
//! the module is imported, like the Rust example servers do at start.

use pyo3::prelude::*;
use std::sync::OnceLock;

static TELEMETRY: OnceLock<oxmcp::logging::Telemetry> = OnceLock::new();

pub(crate) fn init() {
    TELEMETRY.get_or_init(|| oxmcp::logging::init_from_env("oxmcp-python"));
}

/// Export the spans still queued; called when a transport stops and at interpreter exit.
#[pyfunction]
pub(crate) fn flush_telemetry(py: Python<'_>) {
    if let Some(t) = TELEMETRY.get() {
        py.detach(|| t.flush());
    }
}

/// The same, from a runtime thread (no Python involved).
pub(crate) fn flush() {
    if let Some(t) = TELEMETRY.get() {
        t.flush();
    }
}
