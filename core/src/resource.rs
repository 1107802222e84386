//! Resources (static URIs) and resource templates (RFC 6570).

use crate::apps::{UiResourceMeta, MIME_TYPE};
use crate::error::BuildError;
use crate::handler::{CompletionHandler, ResourceHandler};
use crate::protocol::ResourceContents;
use crate::uri_template::{Screening, UriTemplate};
use serde_json::{Map, Value};
use std::sync::Arc;
use std::time::Duration;

/// A resource with a fixed URI.
#[derive(Clone)]
pub struct Resource {
    pub(crate) uri: String,
    pub(crate) def: Map<String, Value>,
    pub(crate) handler: Option<Arc<dyn ResourceHandler>>,
    pub(crate) required_scopes: Vec<String>,
    pub(crate) timeout: Option<Duration>,
}

fn base_def(key: &str, uri: &str, name: &str) -> Map<String, Value> {
    let mut def = Map::new();
    def.insert(key.into(), Value::String(uri.into()));
    def.insert("name".into(), Value::String(name.into()));
    def
}

macro_rules! descriptor_setters {
    () => {
        fn set(mut self, k: &str, v: Value) -> Self {
            self.def.insert(k.into(), v);
            self
        }
        pub fn title(self, t: impl Into<String>) -> Self {
            self.set("title", Value::String(t.into()))
        }
        pub fn description(self, d: impl Into<String>) -> Self {
            self.set("description", Value::String(d.into()))
        }
        pub fn mime_type(self, m: impl Into<String>) -> Self {
            self.set("mimeType", Value::String(m.into()))
        }
        pub fn annotations(self, a: Value) -> Self {
            self.set("annotations", a)
        }
        pub fn icons(self, i: Value) -> Self {
            self.set("icons", i)
        }
        pub fn meta(self, m: Map<String, Value>) -> Self {
            self.set("_meta", Value::Object(m))
        }
        /// OAuth scopes a caller must hold to read this (when auth is on); see
        /// [`Tool::required_scopes`](crate::Tool::required_scopes).
        pub fn required_scopes<S: Into<String>>(
            mut self,
            scopes: impl IntoIterator<Item = S>,
        ) -> Self {
            self.required_scopes = scopes.into_iter().map(Into::into).collect();
            self
        }
        /// Bound each read (and completion) by `t` (otherwise the server's `tool_timeout` bounds it).
        pub fn timeout(mut self, t: Duration) -> Self {
            self.timeout = Some(t);
            self
        }
        /// [`timeout`](Self::timeout) from milliseconds as a binding gives it, checked by the
        /// rule every registration's timeout follows (above 0, at most 2^53 - 1 ms).
        pub fn timeout_ms(mut self, ms: Option<f64>) -> Result<Self, BuildError> {
            if let Some(t) = ms {
                self.timeout = Some(crate::tool::timeout_of_ms(Self::KIND, self.label(), t)?);
            }
            Ok(self)
        }
    };
}

impl Resource {
    const KIND: &'static str = "resource";
    fn label(&self) -> &str {
        &self.uri
    }
    pub fn new(uri: impl Into<String>, name: impl Into<String>) -> Self {
        let uri = uri.into();
        let def = base_def("uri", &uri, &name.into());
        Self {
            uri,
            def,
            handler: None,
            required_scopes: Vec::new(),
            timeout: None,
        }
    }
    /// Build from a spec-shaped `Resource` object (what the bindings pass).
    pub fn from_definition(def: Map<String, Value>) -> Result<Self, BuildError> {
        let uri = def
            .get("uri")
            .and_then(Value::as_str)
            .map(str::to_string)
            .ok_or_else(|| BuildError::InvalidName {
                kind: "resource",
                name: String::new(),
                message: "missing uri".into(),
            })?;
        Ok(Self {
            uri,
            def,
            handler: None,
            required_scopes: Vec::new(),
            timeout: None,
        })
    }
    /// A resource whose content is fixed text.
    pub fn text(
        uri: impl Into<String>,
        name: impl Into<String>,
        mime_type: impl Into<String>,
        text: impl Into<String>,
    ) -> Self {
        let (mime, text) = (mime_type.into(), text.into());
        Self::new(uri, name).mime_type(mime.clone()).handler(
            move |uri: String, _v: Map<String, Value>, _c| {
                let c = ResourceContents::text(uri, mime.clone(), text.clone());
                async move { Ok::<_, crate::HandlerError>(vec![c]) }
            },
        )
    }
    descriptor_setters!();
    /// Size of the raw content in bytes.
    pub fn size(self, bytes: u64) -> Self {
        self.set("size", Value::from(bytes))
    }
    pub fn handler(mut self, h: impl ResourceHandler) -> Self {
        self.handler = Some(Arc::new(h));
        self
    }
    pub fn handler_arc(mut self, h: Arc<dyn ResourceHandler>) -> Self {
        self.handler = Some(h);
        self
    }
    /// An MCP App's UI: fixed HTML at a `ui://` URI, MIME type `text/html;profile=mcp-app`,
    /// `_meta.ui` on the listing and on the contents (where hosts read the CSP).
    pub fn app(
        uri: impl Into<String>,
        name: impl Into<String>,
        html: impl Into<String>,
        ui: UiResourceMeta,
    ) -> Self {
        let (html, ui) = (html.into(), ui.to_json());
        let mut meta = Map::new();
        meta.insert("ui".into(), ui);
        let item_meta = meta.clone();
        Self::new(uri, name)
            .mime_type(MIME_TYPE)
            .meta(meta)
            .handler(move |uri: String, _v: Map<String, Value>, _c| {
                let c = ResourceContents::Text {
                    uri,
                    mime_type: Some(MIME_TYPE.into()),
                    text: html.clone(),
                    meta: Some(item_meta.clone()),
                };
                async move { Ok::<_, crate::HandlerError>(vec![c]) }
            })
    }
}

/// A family of resources addressed by an RFC 6570 URI template.
#[derive(Clone)]
pub struct ResourceTemplate {
    pub(crate) template: String,
    pub(crate) def: Map<String, Value>,
    pub(crate) handler: Option<Arc<dyn ResourceHandler>>,
    pub(crate) completion: Option<Arc<dyn CompletionHandler>>,
    pub(crate) required_scopes: Vec<String>,
    pub(crate) timeout: Option<Duration>,
    pub(crate) screening: Screening,
}

impl ResourceTemplate {
    const KIND: &'static str = "resource template";
    fn label(&self) -> &str {
        &self.template
    }
    pub fn new(uri_template: impl Into<String>, name: impl Into<String>) -> Self {
        let template = uri_template.into();
        let def = base_def("uriTemplate", &template, &name.into());
        Self {
            template,
            def,
            handler: None,
            completion: None,
            required_scopes: Vec::new(),
            timeout: None,
            screening: Screening::ByOperator,
        }
    }
    pub fn from_definition(def: Map<String, Value>) -> Result<Self, BuildError> {
        let template = def
            .get("uriTemplate")
            .and_then(Value::as_str)
            .map(str::to_string)
            .ok_or_else(|| BuildError::BadUriTemplate {
                template: String::new(),
                message: "missing uriTemplate".into(),
            })?;
        Ok(Self {
            template,
            def,
            handler: None,
            completion: None,
            required_scopes: Vec::new(),
            timeout: None,
            screening: Screening::ByOperator,
        })
    }
    descriptor_setters!();
    pub fn handler(mut self, h: impl ResourceHandler) -> Self {
        self.handler = Some(Arc::new(h));
        self
    }
    pub fn handler_arc(mut self, h: Arc<dyn ResourceHandler>) -> Self {
        self.handler = Some(h);
        self
    }
    /// How the values it extracts are screened before the handler sees them (by default, by
    /// each expression's operator; see [`Screening`]).
    pub fn screening(mut self, screening: Screening) -> Self {
        self.screening = screening;
        self
    }
    /// Completions for the template's variables (`completion/complete` with `ref/resource`).
    pub fn complete(mut self, h: impl CompletionHandler) -> Self {
        self.completion = Some(Arc::new(h));
        self
    }
    pub fn complete_arc(mut self, h: Arc<dyn CompletionHandler>) -> Self {
        self.completion = Some(h);
        self
    }
}

pub(crate) struct ResourceEntry {
    pub(crate) def: Value,
    pub(crate) handler: Arc<dyn ResourceHandler>,
    /// Whether `resources/list` shows it. Only the files of an unlisted skill are readable
    /// without being listed: a host reaches them through the skill's URI it was given.
    pub(crate) listed: bool,
    pub(crate) required_scopes: Vec<String>,
    /// The read's own bound (`None`: the server's `tool_timeout`).
    pub(crate) timeout: Option<Duration>,
}

pub(crate) struct TemplateEntry {
    pub(crate) template: UriTemplate,
    pub(crate) def: Value,
    pub(crate) handler: Arc<dyn ResourceHandler>,
    pub(crate) completion: Option<Arc<dyn CompletionHandler>>,
    /// Whether `resources/templates/list` shows it (see [`ResourceEntry::listed`]).
    pub(crate) listed: bool,
    pub(crate) required_scopes: Vec<String>,
    /// The read's own bound (`None`: the server's `tool_timeout`).
    pub(crate) timeout: Option<Duration>,
}

impl ResourceEntry {
    pub(crate) fn compile(r: Resource) -> Result<(String, Self), BuildError> {
        let handler = r.handler.ok_or_else(|| BuildError::InvalidName {
            kind: "resource",
            name: r.uri.clone(),
            message: "resource has no handler".into(),
        })?;
        if !r.uri.contains(':') {
            return Err(BuildError::InvalidName {
                kind: "resource",
                name: r.uri,
                message: "not an absolute URI".into(),
            });
        }
        if let Err(message) = crate::apps::check_resource(&r.uri, &r.def) {
            return Err(BuildError::InvalidName {
                kind: "resource",
                name: r.uri,
                message,
            });
        }
        Ok((
            r.uri,
            Self {
                def: Value::Object(r.def),
                handler,
                listed: true,
                required_scopes: r.required_scopes,
                timeout: r.timeout,
            },
        ))
    }
}

impl TemplateEntry {
    pub(crate) fn compile(t: ResourceTemplate) -> Result<(String, Self), BuildError> {
        let template = UriTemplate::parse(&t.template)
            .map_err(|message| BuildError::BadUriTemplate {
                template: t.template.clone(),
                message,
            })?
            .with_screening(t.screening);
        let handler = t.handler.ok_or_else(|| BuildError::BadUriTemplate {
            template: t.template.clone(),
            message: "template has no handler".into(),
        })?;
        crate::apps::check_resource(&t.template, &t.def).map_err(|message| {
            BuildError::BadUriTemplate {
                template: t.template.clone(),
                message,
            }
        })?;
        Ok((
            t.template,
            Self {
                template,
                def: Value::Object(t.def),
                handler,
                completion: t.completion,
                listed: true,
                required_scopes: t.required_scopes,
                timeout: t.timeout,
            },
        ))
    }
}
