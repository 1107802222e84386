//! JS options objects → the core's one configuration schema (`oxmcp::config`). The names,
//! defaults and rules are the core's; this only maps its error to a coded JS error.

use crate::errors::coded;
use oxmcp::config::ConfigError;

/// `err.code === "INVALID_OPTION"`, with the core's text (the same as Python's).
pub(crate) fn error(e: ConfigError) -> napi::Error {
    coded("INVALID_OPTION", e.message)
}
