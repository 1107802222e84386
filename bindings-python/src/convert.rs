//! Value <-> Python conversion and the mapping of Python outcomes to core errors.

use oxmcp::{ErrorCode, HandlerError, McpError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use serde_json::Value;

pub(crate) fn to_py<'py>(py: Python<'py>, v: &Value) -> PyResult<Bound<'py, PyAny>> {
    pythonize::pythonize(py, v).map_err(Into::into)
}

pub(crate) fn from_py(obj: &Bound<'_, PyAny>) -> PyResult<Value> {
    pythonize::depythonize::<Value>(obj).map_err(Into::into)
}

/// What a handler run produced, before the per-call slot is consulted.
pub(crate) enum Outcome {
    Ok(Value),
    Err(HandlerError),
    /// A `Context` input call raised `InputRequired`: the core's error is in the call's slot.
    InputRequired,
}

/// Read the `(kind, value)` tuple every entry returns (see `oxmcp/_handlers.py`).
pub(crate) fn outcome(obj: &Bound<'_, PyAny>) -> Outcome {
    match read_outcome(obj) {
        Ok(o) => o,
        Err(e) => Outcome::Err(
            McpError::internal(format!("handler returned an unusable value: {e}")).into(),
        ),
    }
}

fn read_outcome(obj: &Bound<'_, PyAny>) -> PyResult<Outcome> {
    let t = obj.cast::<PyTuple>()?;
    let kind = t.get_item(0)?;
    let kind = kind.cast::<pyo3::types::PyString>()?.to_str()?;
    let value = t.get_item(1)?;
    Ok(match kind {
        "ok" => Outcome::Ok(from_py(&value)?),
        "mcp_error" => {
            let (code, message, data): (i32, String, Bound<'_, PyAny>) = value.extract()?;
            let mut e = McpError::new(ErrorCode(code), message);
            if !data.is_none() {
                e = e.with_data(from_py(&data)?);
            }
            Outcome::Err(e.into())
        }
        // A tool's list with no outputSchema: the core's rule makes it content (ToolResult::from_list).
        "list" => {
            let items = match from_py(&value)? {
                Value::Array(a) => a,
                other => vec![other],
            };
            Outcome::Ok(
                serde_json::to_value(oxmcp::ToolResult::from_list(items))
                    .map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))?,
            )
        }
        "input_required" => Outcome::InputRequired,
        "cancelled" => Outcome::Err(HandlerError::Cancelled),
        // An unexpected exception: the core picks the text (`value`: a detail to show, or None).
        "internal" => Outcome::Err(HandlerError::Internal(
            (!value.is_none())
                .then(|| value.str().map(|s| s.to_string()))
                .transpose()?,
        )),
        // The host's validation failed: `value` is a list of `{path, message}`; the core renders it.
        "invalid_arguments" => {
            let list = from_py(&value)?;
            let v = list
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(oxmcp::schema::Violation::from_host)
                        .collect()
                })
                .unwrap_or_default();
            Outcome::Err(HandlerError::InvalidArguments(v))
        }
        other => {
            Outcome::Err(McpError::internal(format!("unknown handler outcome '{other}'")).into())
        }
    })
}

/// A Python exception that escaped an entry (should not happen: entries catch everything).
pub(crate) fn py_failure(py: Python<'_>, e: PyErr) -> Outcome {
    e.print(py);
    Outcome::Err(McpError::internal("Internal error").into())
}

/// `(kind, value)` handed to a Python callback for a `Context` input call.
pub(crate) fn error_tuple(e: &HandlerError) -> (&'static str, Value) {
    match e {
        HandlerError::InputRequired(_) => ("input_required", Value::Null),
        HandlerError::Cancelled => ("cancelled", Value::Null),
        HandlerError::Mcp(m) => (
            "error",
            Value::Array(vec![
                Value::from(m.code.0),
                Value::from(m.message.clone()),
                m.data.clone().unwrap_or(Value::Null),
            ]),
        ),
        HandlerError::Tool(t) => (
            "error",
            Value::Array(vec![
                Value::from(-32603),
                Value::from(t.message.clone()),
                Value::Null,
            ]),
        ),
        #[allow(unreachable_patterns)]
        _ => (
            "error",
            Value::Array(vec![Value::from(-32603), Value::from("error"), Value::Null]),
        ),
    }
}
