//! The core's registration rules and URI-template functions as module functions, for the Python
//! layers that check or match before any native server exists (the same rules and texts as Node).

use crate::convert::{self, from_py};
use crate::{build_err, origin, PyOrigin};
use oxmcp::Tool;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use serde_json::Value;

/// A tool's own limits checked by the core's rule (`Tool::limits`) when the tool is declared, before
/// any native server exists: the same values are refused with the same text as in Node.
#[pyfunction]
#[pyo3(signature = (name, timeout_ms=None, max_concurrency=None, task_after_ms=None))]
pub(crate) fn check_tool_limits(
    name: &str,
    timeout_ms: Option<f64>,
    max_concurrency: Option<f64>,
    task_after_ms: Option<f64>,
) -> PyResult<()> {
    Tool::new(name, serde_json::json!({"type": "object"}))
        .limits(timeout_ms, max_concurrency, task_after_ms)
        .map(drop)
        .map_err(build_err)
}

/// An explicit element's pairing checked by the core's rule (`oxmcp::element::check`): the
/// definition's kind, or the core's error (the same text as in Node).
#[pyfunction]
#[pyo3(signature = (definition, handler_kind=None))]
pub(crate) fn check_element(
    definition: &Bound<'_, PyAny>,
    handler_kind: Option<&str>,
) -> PyResult<&'static str> {
    oxmcp::element::check(&from_py(definition)?, handler_kind).map_err(build_err)
}

/// A registration's named completers checked by the core's rule (`oxmcp::completion::check_names`)
/// before it is registered: a prompt's (`arguments`: its argument names) or a resource
/// template's (`name`: its URI template). The same names are refused with the same text as in Node.
#[pyfunction]
#[pyo3(signature = (name, completed, arguments=None))]
pub(crate) fn check_completion_names(
    name: &str,
    completed: Vec<String>,
    arguments: Option<Vec<String>>,
) -> PyResult<()> {
    use oxmcp::completion::{check_names, Completed};
    let args: Vec<&str> = arguments.iter().flatten().map(String::as_str).collect();
    let primitive = match &arguments {
        Some(_) => Completed::Prompt {
            name,
            arguments: &args,
        },
        None => Completed::Template { uri_template: name },
    };
    check_names(primitive, &completed).map_err(build_err)
}

/// The core's rule between a registration by hand and a discovered one
/// (`oxmcp::discovery::admit`), for the Python registry (kept before the native server exists)
/// when an entry of that name is there: `"replace"` or `"skip"`; two discovered with one name
/// raise `ValueError` naming both places, two by hand the duplicate-name error.
#[pyfunction]
pub(crate) fn admit_registration(
    kind: &str,
    name: &str,
    existing: PyOrigin,
    incoming: PyOrigin,
) -> PyResult<&'static str> {
    let kind = match kind {
        "tool" => "tool",
        "resource" => "resource",
        "resource template" => "resource template",
        "prompt" => "prompt",
        other => return Err(PyValueError::new_err(format!("unknown kind {other:?}"))),
    };
    oxmcp::discovery::admit(kind, name, Some(&origin(existing)), &origin(incoming))
        .map(oxmcp::discovery::Admit::as_str)
        .map_err(build_err)
}

/// The core's URI template matching (`oxmcp::uri_template`) for a resource template component
/// (the SDK's `ResourceTemplate.matches(uri)`): the variables of `uri`, or `None` when it does not
/// match or a value is one the core refuses (a path walking out of the template). A malformed
/// template raises `ValueError`.
#[pyfunction]
pub(crate) fn match_uri_template<'py>(
    py: Python<'py>,
    template: &str,
    uri: &str,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    let parsed = oxmcp::uri_template::UriTemplate::parse(template).map_err(build_err)?;
    parsed
        .matches(uri)
        .map(|vars| convert::to_py(py, &Value::Object(vars)))
        .transpose()
}

/// The core's RFC 6570 expansion (`UriTemplate::expand`): the URI `template` stands for with
/// `values` (strings, numbers, booleans, lists, dicts; a missing or `None` value is undefined).
/// A malformed template raises `ValueError`.
#[pyfunction]
pub(crate) fn expand_uri_template(template: &str, values: &Bound<'_, PyAny>) -> PyResult<String> {
    let parsed = oxmcp::uri_template::UriTemplate::parse(template).map_err(build_err)?;
    match convert::from_py(values)? {
        Value::Object(map) => Ok(parsed.expand(&map)),
        _ => Err(PyValueError::new_err("values must be a dict")),
    }
}

/// The core's ambiguity check of a template (`UriTemplate::ambiguity`), for a compatibility layer
/// whose parser refuses such templates: `None`, `("adjacent", [first, second])` or
/// `("spanning", [])`. A malformed template raises `ValueError`.
#[pyfunction]
pub(crate) fn uri_template_ambiguity(
    template: &str,
) -> PyResult<Option<(&'static str, Vec<String>)>> {
    use oxmcp::uri_template::Ambiguity;
    let parsed = oxmcp::uri_template::UriTemplate::parse(template).map_err(build_err)?;
    Ok(parsed.ambiguity().map(|a| match a {
        Ambiguity::Adjacent(first, second) => ("adjacent", vec![first, second]),
        Ambiguity::ManySpanning => ("spanning", Vec::new()),
    }))
}

/// The core's path screening of an extracted template value (`oxmcp::uri_template::ValueScreen`,
/// what a `ResourceSecurity` policy checks): `True` when `value` fails one of the enabled checks
/// (a NUL byte, a relative path that climbs above its base, an absolute path).
#[pyfunction]
pub(crate) fn screen_path_value(
    value: &str,
    traversal: bool,
    absolute: bool,
    null_bytes: bool,
) -> bool {
    screen(traversal, absolute, null_bytes, Vec::new()).refuses_value(value)
}

fn screen(
    traversal: bool,
    absolute: bool,
    null_bytes: bool,
    exempt: Vec<String>,
) -> oxmcp::uri_template::ValueScreen {
    oxmcp::uri_template::ValueScreen {
        traversal,
        absolute,
        null_bytes,
        exempt,
    }
}

/// The core's screened match (`UriTemplate::match_screened`, `{path*}` spanning segments as the
/// registry matches such a template) for a resource template that carries a `ResourceSecurity`
/// policy: `("matched", variables)`, `("refused", variable)` when a value
/// fails the policy, or `None` when `uri` does not have the template's structure. A malformed
/// template raises `ValueError`.
#[pyfunction]
pub(crate) fn match_uri_template_screened<'py>(
    py: Python<'py>,
    template: &str,
    uri: &str,
    traversal: bool,
    absolute: bool,
    null_bytes: bool,
    exempt: Vec<String>,
) -> PyResult<Option<(&'static str, Bound<'py, PyAny>)>> {
    use oxmcp::uri_template::Screened;
    let parsed = oxmcp::uri_template::UriTemplate::parse(template)
        .map_err(build_err)?
        .spanning_paths();
    Ok(
        match parsed.match_screened(uri, &screen(traversal, absolute, null_bytes, exempt)) {
            Screened::NoMatch => None,
            Screened::Refused(name) => Some(("refused", name.into_pyobject(py)?.into_any())),
            Screened::Matched(vars) => Some(("matched", convert::to_py(py, &Value::Object(vars))?)),
        },
    )
}

/// `(problem, property path, detail)` of [`tool_header_violation`].
type HeaderViolation<'py> = (&'static str, Vec<String>, Bound<'py, PyAny>);

/// The core's rule on a tool's `x-mcp-header` annotations (`oxmcp::schema::header_violation`):
/// `None` when `schema` may be served, else `(problem, property path, detail)`, where problem is
/// `"root"`, `"not_string"` (detail: the annotation), `"not_token"` (the name), `"type_not_string"`
/// (the type keyword, `None` when absent), `"not_primitive"` (the type) or `"duplicate"` (the
/// name, and the other property's path), so that a compatibility layer words it as its SDK does.
#[pyfunction]
pub(crate) fn tool_header_violation<'py>(
    py: Python<'py>,
    schema: &Bound<'py, PyAny>,
) -> PyResult<Option<HeaderViolation<'py>>> {
    use oxmcp::schema::HeaderProblem as P;
    let Some(v) = oxmcp::schema::header_violation(&convert::from_py(schema)?) else {
        return Ok(None);
    };
    let (kind, detail) = match v.problem {
        P::AtRoot => ("root", Value::Null),
        P::NotString(x) => ("not_string", x),
        P::NotToken(h) => ("not_token", Value::String(h)),
        P::TypeNotString(x) => ("type_not_string", x),
        P::NotPrimitive(t) => ("not_primitive", Value::String(t)),
        P::Duplicate(h, other) => ("duplicate", serde_json::json!([h, other])),
    };
    Ok(Some((kind, v.property, convert::to_py(py, &detail)?)))
}

/// The core's JSON Schema check (`oxmcp::schema::CompiledSchema`) of `instance` against a schema a
/// low-level server listed: the first violation's message, or `None` when it is valid (mcp 1.x's
/// low-level `Server` checks a call's arguments and structured result against the listed tool).
/// A schema the core cannot compile raises `ValueError`.
#[pyfunction]
pub(crate) fn schema_violation(
    schema: &Bound<'_, PyAny>,
    instance: &Bound<'_, PyAny>,
) -> PyResult<Option<String>> {
    let compiled = oxmcp::schema::CompiledSchema::compile(&from_py(schema)?).map_err(build_err)?;
    Ok(compiled
        .violations(&from_py(instance)?)
        .into_iter()
        .next()
        .map(|v| v.message))
}

/// The core's JSON Schema check of `instance`, each failed keyword in parts (`oxmcp::schema::
/// Failure`: `pointer`, `keyword`, `instance`, `argument`, `message`), for the `mcp` SDK 1.x
/// low-level `Server`, which words them as python-jsonschema does. Empty when valid; a schema the
/// core cannot compile raises `ValueError`.
#[pyfunction]
pub(crate) fn schema_failures<'py>(
    py: Python<'py>,
    schema: &Bound<'py, PyAny>,
    instance: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let compiled = oxmcp::schema::CompiledSchema::compile(&from_py(schema)?).map_err(build_err)?;
    let failures = compiled.failures(&from_py(instance)?);
    convert::to_py(py, &serde_json::to_value(failures).map_err(build_err)?)
}

/// The core's DNS-rebinding check against explicit allow-lists (`oxmcp::authority::
/// check_allow_lists`), as the `mcp` SDK's `TransportSecuritySettings` spell them: an entry
/// without a port names the host sent without one, `host:*` any port. `None` when allowed, or
/// the refused header: `"host"` (checked first) or `"origin"`.
#[pyfunction]
pub(crate) fn check_host_origin(
    host: Option<&str>,
    origin: Option<&str>,
    allowed_hosts: Vec<String>,
    allowed_origins: Vec<String>,
) -> Option<&'static str> {
    use oxmcp::authority::{check_allow_lists, PortlessEntry, Refused};
    match check_allow_lists(
        host,
        origin,
        &allowed_hosts,
        &allowed_origins,
        PortlessEntry::NoPort,
    ) {
        Ok(()) => None,
        Err(Refused::Host) => Some("host"),
        Err(Refused::Origin) => Some("origin"),
    }
}

/// Whether a `Content-Type` value names a JSON body, by the core's rule for POSTed messages.
#[pyfunction]
pub(crate) fn json_content_type(value: Option<&str>) -> bool {
    value.is_some_and(oxmcp::transport::http::is_json_content_type)
}

/// The core's rule for a sampling request's tool-use turns: the problem's text, or `None`.
#[pyfunction]
pub(crate) fn tool_use_results_problem(
    messages: &Bound<'_, PyAny>,
) -> PyResult<Option<&'static str>> {
    let v = from_py(messages)?;
    let list = v.as_array().map(Vec::as_slice).unwrap_or_default();
    Ok(oxmcp::protocol::tool_use_results_problem(list))
}

/// Whether a sampling request's params use tools (and so need the client's `sampling.tools`).
#[pyfunction]
pub(crate) fn wants_sampling_tools(params: &Bound<'_, PyAny>) -> PyResult<bool> {
    Ok(oxmcp::protocol::wants_sampling_tools(&from_py(params)?))
}
