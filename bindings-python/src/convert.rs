//! Value <-> Python conversion and the mapping of Python outcomes to core errors.

use oxmcp::{Content, ErrorCode, HandlerError, McpError, ToolResult};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde_json::{Map, Value};

/// A JSON value as Python objects (dict, list, str, int, float, bool, None).
///
/// Written out rather than through `pythonize`'s serde serializer: this runs on every call (a
/// tool's arguments) and the direct build makes the same objects with fewer steps.
pub(crate) fn to_py<'py>(py: Python<'py>, v: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                i.into_pyobject(py)?.into_any()
            } else if let Some(u) = n.as_u64() {
                u.into_pyobject(py)?.into_any()
            } else {
                PyFloat::new(py, n.as_f64().unwrap_or(f64::NAN)).into_any()
            }
        }
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(a) => {
            let list = PyList::empty(py);
            for item in a {
                list.append(to_py(py, item)?)?;
            }
            list.into_any()
        }
        Value::Object(m) => {
            let dict = PyDict::new(py);
            for (k, item) in m {
                dict.set_item(PyString::new(py, k), to_py(py, item)?)?;
            }
            dict.into_any()
        }
    })
}

/// A Python value as JSON. The exact built-in types (dict with str keys, list, tuple, str, int in
/// the i64 range, float, bool, None) are read directly; anything else (subclasses, other
/// mappings and sequences, big ints, bytes, sets) goes through `pythonize`, which is the rule.
pub(crate) fn from_py(obj: &Bound<'_, PyAny>) -> PyResult<Value> {
    if obj.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(s) = obj.cast_exact::<PyString>() {
        return Ok(Value::String(s.to_str()?.to_owned()));
    }
    if let Ok(b) = obj.cast_exact::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if obj.is_exact_instance_of::<PyInt>() {
        if let Ok(i) = obj.extract::<i64>() {
            return Ok(Value::from(i));
        }
    } else if let Ok(d) = obj.cast_exact::<PyDict>() {
        let mut m = Map::new();
        for (k, item) in d.iter() {
            let Ok(k) = k.cast_exact::<PyString>() else {
                return depythonize(obj);
            };
            m.insert(k.to_str()?.to_owned(), from_py(&item)?);
        }
        return Ok(Value::Object(m));
    } else if let Ok(l) = obj.cast_exact::<PyList>() {
        return l.iter().map(|item| from_py(&item)).collect();
    } else if let Ok(t) = obj.cast_exact::<PyTuple>() {
        return t.iter().map(|item| from_py(&item)).collect();
    } else if let Ok(f) = obj.cast_exact::<PyFloat>() {
        return Ok(serde_json::Number::from_f64(f.value()).map_or(Value::Null, Value::Number));
    }
    depythonize(obj)
}

fn depythonize(obj: &Bound<'_, PyAny>) -> PyResult<Value> {
    pythonize::depythonize::<Value>(obj).map_err(Into::into)
}

/// What a handler run produced, before the per-call slot is consulted.
pub(crate) enum Outcome {
    Ok(Value),
    /// A tool's result, already read into the core's type (see [`simple_tool_result`]).
    Tool(ToolResult),
    Err(HandlerError),
    /// A `Context` input call raised `InputRequired`: the core's error is in the call's slot.
    InputRequired,
}

/// Read the `(kind, value)` tuple every entry returns (see `oxmcp/_handlers.py`); `tool`: the
/// entry is a tool's, whose results may be read straight into a [`ToolResult`].
pub(crate) fn outcome(obj: &Bound<'_, PyAny>, tool: bool) -> Outcome {
    match read_outcome(obj, tool) {
        Ok(o) => o,
        Err(e) => Outcome::Err(
            McpError::internal(format!("handler returned an unusable value: {e}")).into(),
        ),
    }
}

fn read_outcome(obj: &Bound<'_, PyAny>, tool: bool) -> PyResult<Outcome> {
    let t = obj.cast::<PyTuple>()?;
    let kind = t.get_item(0)?;
    let kind = kind.cast::<pyo3::types::PyString>()?.to_str()?;
    let value = t.get_item(1)?;
    Ok(match kind {
        "ok" if tool => match simple_tool_result(&value)? {
            Some(r) => Outcome::Tool(r),
            None => Outcome::Ok(from_py(&value)?),
        },
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
            Outcome::Tool(ToolResult::from_list(items))
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

/// A tool's result dict in its usual shape — `content` of `{"type": "text", "text": str}` blocks,
/// with `structuredContent` and `isError` (a bool) or not — read into a [`ToolResult`] directly;
/// `None` for any other shape, which goes through JSON and serde (the rule, and its errors). The
/// same result either way: the serde path turns these fields into exactly this.
fn simple_tool_result(value: &Bound<'_, PyAny>) -> PyResult<Option<ToolResult>> {
    let Ok(d) = value.cast_exact::<PyDict>() else {
        return Ok(None);
    };
    let mut out = ToolResult::default();
    let mut content = false;
    for (k, item) in d.iter() {
        let Ok(k) = k.cast_exact::<PyString>() else {
            return Ok(None);
        };
        match k.to_str()? {
            "content" => {
                let Ok(blocks) = item.cast_exact::<PyList>() else {
                    return Ok(None);
                };
                let mut v = Vec::with_capacity(blocks.len());
                for block in blocks.iter() {
                    match text_block(&block)? {
                        Some(text) => v.push(Content::text(text)),
                        None => return Ok(None),
                    }
                }
                out.content = v;
                content = true;
            }
            "structuredContent" => {
                out.structured_content = match from_py(&item)? {
                    Value::Null => None,
                    v => Some(v),
                }
            }
            "isError" => match item.cast_exact::<PyBool>() {
                Ok(b) => out.is_error = b.is_true(),
                Err(_) => return Ok(None),
            },
            _ => return Ok(None),
        }
    }
    Ok(content.then_some(out))
}

/// The text of a `{"type": "text", "text": str}` dict (those two keys only).
fn text_block(block: &Bound<'_, PyAny>) -> PyResult<Option<String>> {
    let Ok(b) = block.cast_exact::<PyDict>() else {
        return Ok(None);
    };
    if b.len() != 2 {
        return Ok(None);
    }
    let kind = b.get_item(intern!(block.py(), "type"))?;
    if !kind.is_some_and(|k| {
        k.cast_exact::<PyString>()
            .is_ok_and(|s| s.to_str().is_ok_and(|s| s == "text"))
    }) {
        return Ok(None);
    }
    Ok(match b.get_item(intern!(block.py(), "text"))? {
        Some(t) => match t.cast_exact::<PyString>() {
            Ok(s) => Some(s.to_str()?.to_owned()),
            Err(_) => None,
        },
        None => None,
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
