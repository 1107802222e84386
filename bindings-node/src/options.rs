//! JS options objects → the core's one configuration schema (`oxmcp::config`). The names,
//! defaults and rules are the core's; this only maps its error to a coded JS error.

use crate::errors::{coded, Code, Coded};
use oxmcp::config::ConfigError;

/// `err.code === "INVALID_OPTION"`, with the core's text (the same as Python's).
pub(crate) fn error(e: ConfigError) -> Coded {
    coded(Code::InvalidOption, e.message)
}

/// The numbers these options come to with every default filled in (`Config::effective`): what
/// `new Server(options)` serves with.
#[napi_derive::napi(ts_args_type = "options: Record<string, unknown>")]
pub fn effective_options(options: serde_json::Value) -> crate::errors::Result<serde_json::Value> {
    let effective = oxmcp::config::Config::from_json(options)
        .and_then(|c| c.effective())
        .map_err(error)?;
    Ok(serde_json::Value::Object(effective))
}
