//! JS options objects → the core's one configuration schema (`oxmcp::config`). The names,
//! defaults and rules are the core's; this only maps its error to a coded JS error.

use crate::errors::{coded, Code, Coded};
use oxmcp::config::ConfigError;

/// `err.code === "INVALID_OPTION"`, with the core's text (the same as Python's).
pub(crate) fn error(e: ConfigError) -> Coded {
    coded(Code::InvalidOption, e.message)
}
