//! How a `NativeServer` turns a binding's registrations into the core's components: a tool with
//! its limits, scopes and refusal wording, and the prompts and templates it re-registers when a
//! completion handler is added after them (the core takes a component's completer with it).

use crate::convert::from_py;
use crate::handlers::{self, PyHandler, PyTool};
use crate::{as_object, build_err, NativeServer};
use oxmcp::{Prompt, PromptHandler, ResourceHandler, ResourceTemplate, Tool};
use pyo3::prelude::*;
use serde_json::{Map, Value};
use std::sync::Arc;

#[derive(Clone)]
pub(crate) struct PromptReg {
    pub(crate) def: Map<String, Value>,
    pub(crate) handler: Arc<dyn PromptHandler>,
    pub(crate) required_scopes: Vec<String>,
}

#[derive(Clone)]
pub(crate) struct TemplateReg {
    pub(crate) def: Map<String, Value>,
    pub(crate) handler: Arc<dyn ResourceHandler>,
    pub(crate) required_scopes: Vec<String>,
    pub(crate) screen: Option<oxmcp::uri_template::ValueScreen>,
    pub(crate) lists: Vec<String>,
}

impl NativeServer {
    /// One core `Tool` from `add_tool`'s arguments.
    #[allow(clippy::too_many_arguments)] // add_tool's keyword arguments, one by one
    pub(crate) fn tool(
        &self,
        spec: &Bound<'_, PyAny>,
        entry: Py<PyAny>,
        is_async: bool,
        timeout_ms: Option<f64>,
        required_scopes: Option<Vec<String>>,
        max_concurrency: Option<f64>,
        task_after_ms: Option<f64>,
    ) -> PyResult<Tool> {
        let def = as_object(from_py(spec)?, "tool spec")?;
        // A compatibility layer's wording of a refusal of the tool's arguments (`entry.refusal`:
        // an entry like the tool's, whose outcome is the text or None).
        let refusal = entry
            .bind(spec.py())
            .getattr(pyo3::intern!(spec.py(), "refusal"))
            .ok()
            .filter(|r| !r.is_none());
        let mut tool = Tool::from_definition(def)
            .map_err(build_err)?
            .handler(PyTool(self.handler(entry, is_async)))
            .limits(timeout_ms, max_concurrency, task_after_ms)
            .map_err(build_err)?;
        if let Some(s) = required_scopes {
            tool = tool.required_scopes(s);
        }
        if let Some(r) = refusal {
            tool = tool.refusal_wording(handlers::PyWording(self.handler(r.unbind(), false)));
        }
        Ok(tool)
    }

    pub(crate) fn handler(&self, entry: Py<PyAny>, is_async: bool) -> PyHandler {
        PyHandler {
            entry: Arc::new(entry),
            is_async,
            engine: self.engine.clone(),
            submit: self.submit.clone(),
        }
    }

    pub(crate) fn register_prompt(&self, name: &str, reg: &PromptReg) -> PyResult<()> {
        let mut p = Prompt::from_definition(reg.def.clone())
            .map_err(build_err)?
            .required_scopes(reg.required_scopes.clone())
            .handler_arc(reg.handler.clone());
        if let Some(c) = self
            .completions
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&("ref/prompt".into(), name.into()))
        {
            p = p.complete_arc(c.clone());
        }
        self.server.remove_prompt(name);
        self.server.add_prompt(p).map_err(build_err)
    }

    pub(crate) fn register_template(&self, uri: &str, reg: &TemplateReg) -> PyResult<()> {
        let mut t = ResourceTemplate::from_definition(reg.def.clone())
            .map_err(build_err)?
            .required_scopes(reg.required_scopes.clone())
            .handler_arc(reg.handler.clone())
            .list_variables(reg.lists.clone());
        if let Some(screen) = &reg.screen {
            t = t.screen(screen.clone());
        }
        if let Some(c) = self
            .completions
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&("ref/resource".into(), uri.into()))
        {
            t = t.complete_arc(c.clone());
        }
        self.server.remove_resource_template(uri);
        self.server.add_resource_template(t).map_err(build_err)
    }
}
