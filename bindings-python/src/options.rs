//! Python keyword options → the core's one configuration schema (`oxmcp::config`). The names,
//! defaults and rules are the core's; this converts the dict and maps the error kind.

use crate::convert::from_py;
use oxmcp::config::{Config, ConfigError, ConfigErrorKind};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyDictMethods, PyInt, PyList};
use serde_json::{Map, Value};

/// An unknown option is Python's "unexpected keyword argument" (`TypeError`); a bad value is a
/// `ValueError`. The text is the core's, the same as Node's.
pub(crate) fn error(e: ConfigError) -> PyErr {
    match e.kind {
        ConfigErrorKind::Unknown => PyTypeError::new_err(e.message),
        _ => PyValueError::new_err(e.message),
    }
}

/// The options dict as JSON; `bytes` values (e.g. `state_key=b"..."`, or the keys of
/// `state_keys=[b"...", ...]`) become lists of bytes, the schema's JSON form of them.
pub(crate) fn to_json(options: Option<&Bound<'_, PyDict>>) -> PyResult<Map<String, Value>> {
    let mut out = Map::new();
    for (k, v) in options.into_iter().flat_map(|d| d.iter()) {
        let v = match (v.cast::<PyBytes>(), v.cast_exact::<PyList>()) {
            (Ok(b), _) => bytes(b),
            (_, Ok(l)) if l.iter().any(|x| x.cast::<PyBytes>().is_ok()) => l
                .iter()
                .map(|x| {
                    x.cast::<PyBytes>()
                        .map_or_else(|_| number(&x), |b| Ok(bytes(b)))
                })
                .collect::<PyResult<Value>>()?,
            _ => number(&v)?,
        };
        out.insert(k.extract()?, v);
    }
    Ok(out)
}

fn bytes(b: &Bound<'_, PyBytes>) -> Value {
    b.as_bytes().iter().map(|&x| Value::from(x)).collect()
}

/// An int beyond 64 bits (`2**64`) as the nearest double, as a JS number holds it: the core then
/// refuses it with the option's name, the same text as in Node, instead of a conversion error.
fn number(v: &Bound<'_, PyAny>) -> PyResult<Value> {
    if v.is_exact_instance_of::<PyInt>()
        && v.extract::<i64>().is_err()
        && v.extract::<u64>().is_err()
    {
        if let Some(n) = v
            .extract::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
        {
            return Ok(Value::Number(n));
        }
    }
    if let Ok(d) = v.cast_exact::<PyDict>() {
        let mut m = Map::new();
        for (k, x) in d.iter() {
            if let Ok(k) = k.extract::<String>() {
                m.insert(k, number(&x)?);
                continue;
            }
            return from_py(v);
        }
        return Ok(Value::Object(m));
    }
    from_py(v)
}

pub(crate) fn config(options: Map<String, Value>) -> PyResult<Config> {
    Config::from_json(Value::Object(options)).map_err(error)
}

/// Validate options without building a server (`Server(...)` calls it, so a typo fails at once).
#[pyfunction]
pub(crate) fn check_options(options: &Bound<'_, PyDict>) -> PyResult<()> {
    config(to_json(Some(options))?).map(drop)
}

/// A mount's listener options over the server's, checked as a listener's are (`listen_with`):
/// an unknown one, or a server option, is refused with the core's text.
#[pyfunction]
pub(crate) fn check_listen_options(
    options: &Bound<'_, PyDict>,
    overrides: &Bound<'_, PyDict>,
) -> PyResult<()> {
    config(to_json(Some(options))?)?
        .listen_with(Value::Object(to_json(Some(overrides))?))
        .map(drop)
        .map_err(error)
}

/// The numbers these options come to with every default filled in (`Config::effective`).
#[pyfunction]
pub(crate) fn effective_options<'py>(
    py: Python<'py>,
    options: &Bound<'py, PyDict>,
) -> PyResult<Bound<'py, PyAny>> {
    let effective = config(to_json(Some(options))?)?
        .effective()
        .map_err(error)?;
    crate::convert::to_py(py, &Value::Object(effective))
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
