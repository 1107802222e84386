//! Python keyword options → the core's one configuration schema (`oxmcp::config`). The names,
//! defaults and rules are the core's; this converts the dict and maps the error kind.

use crate::convert::from_py;
use oxmcp::config::{Config, ConfigError, ConfigErrorKind};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyDictMethods};
use serde_json::{Map, Value};

/// An unknown option is Python's "unexpected keyword argument" (`TypeError`); a bad value is a
/// `ValueError`. The text is the core's, the same as Node's.
pub(crate) fn error(e: ConfigError) -> PyErr {
    match e.kind {
        ConfigErrorKind::Unknown => PyTypeError::new_err(e.message),
        _ => PyValueError::new_err(e.message),
    }
}

/// The options dict as JSON; `bytes` values (e.g. `state_key=b"..."`) become lists of bytes,
/// the schema's JSON form of them.
pub(crate) fn to_json(options: Option<&Bound<'_, PyDict>>) -> PyResult<Map<String, Value>> {
    let mut out = Map::new();
    for (k, v) in options.into_iter().flat_map(|d| d.iter()) {
        let v = match v.cast::<PyBytes>() {
            Ok(b) => b.as_bytes().iter().map(|&x| Value::from(x)).collect(),
            Err(_) => from_py(&v)?,
        };
        out.insert(k.extract()?, v);
    }
    Ok(out)
}

pub(crate) fn config(options: Map<String, Value>) -> PyResult<Config> {
    Config::from_json(Value::Object(options)).map_err(error)
}

/// Validate options without building a server (`Server(...)` calls it, so a typo fails at once).
#[pyfunction]
pub(crate) fn check_options(options: &Bound<'_, PyDict>) -> PyResult<()> {
    config(to_json(Some(options))?).map(drop)
}

/// The core's option names (snake_case and camelCase): `(the server's, a listener's)`.
#[pyfunction]
pub(crate) fn option_names() -> (Vec<&'static str>, Vec<&'static str>) {
    use oxmcp::config::{ListenOptions, ServerConfig};
    (
        ServerConfig::option_names().to_vec(),
        ListenOptions::option_names().to_vec(),
    )
}
