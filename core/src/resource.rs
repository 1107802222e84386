//! Resources (static URIs) and resource templates (RFC 6570).

use crate::apps::{UiResourceMeta, MIME_TYPE};
use crate::error::BuildError;
use crate::handler::{CompletionHandler, ResourceHandler};
use crate::protocol::ResourceContents;
use crate::uri_template::{Screened, UriTemplate, ValueScreen};
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
    /// The contents of [`Resource::text`] and [`Resource::app`], which a read answers without
    /// calling the handler (see [`FixedContents`]).
    pub(crate) fixed: Option<Arc<FixedContents>>,
}

/// A resource's contents that never change, with their JSON made once: an HTTP read writes
/// those bytes as they are, where a handler's contents are copied per read and then scanned for
/// the bytes JSON escapes (most of a large text's cost). The JSON is made at the first read
/// that writes it (a server on stdio never makes it), and then kept beside the contents.
pub(crate) struct FixedContents {
    pub(crate) contents: ResourceContents,
    json: std::sync::OnceLock<Box<[u8]>>,
}

impl FixedContents {
    pub(crate) fn new(contents: ResourceContents) -> Arc<Self> {
        Arc::new(Self {
            contents,
            json: std::sync::OnceLock::new(),
        })
    }

    /// The `contents` array's JSON, as `write_resource_contents` writes it.
    pub(crate) fn json(&self) -> &[u8] {
        self.json.get_or_init(|| {
            let one = std::slice::from_ref(&self.contents);
            let mut out =
                Vec::with_capacity(crate::jsonrpc::write::resource_contents_len(one) + 16);
            crate::jsonrpc::write::write_resource_contents(&mut out, one);
            out.into_boxed_slice()
        })
    }
}

/// The handler of fixed contents, for whoever reads the resource as values (stdio, a task, a
/// middleware): a copy of the contents.
fn fixed_handler(fixed: &Arc<FixedContents>) -> impl ResourceHandler {
    let fixed = fixed.clone();
    move |_uri: String, _v: Map<String, Value>, _c| {
        let c = fixed.contents.clone();
        async move { Ok::<_, crate::HandlerError>(vec![c]) }
    }
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
            fixed: None,
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
            fixed: None,
        })
    }
    /// A resource whose content is fixed text. An HTTP read writes it from its JSON, made once.
    pub fn text(
        uri: impl Into<String>,
        name: impl Into<String>,
        mime_type: impl Into<String>,
        text: impl Into<String>,
    ) -> Self {
        let (uri, mime) = (uri.into(), mime_type.into());
        let fixed = ResourceContents::text(uri.clone(), mime.clone(), text);
        Self::new(uri, name).mime_type(mime).fixed(fixed)
    }
    /// Serve `contents` (whose URI is the resource's) on every read.
    fn fixed(mut self, contents: ResourceContents) -> Self {
        let fixed = FixedContents::new(contents);
        self.handler = Some(Arc::new(fixed_handler(&fixed)));
        self.fixed = Some(fixed);
        self
    }
    descriptor_setters!();
    /// Size of the raw content in bytes.
    pub fn size(self, bytes: u64) -> Self {
        self.set("size", Value::from(bytes))
    }
    pub fn handler(mut self, h: impl ResourceHandler) -> Self {
        self.handler = Some(Arc::new(h));
        self.fixed = None;
        self
    }
    pub fn handler_arc(mut self, h: Arc<dyn ResourceHandler>) -> Self {
        self.handler = Some(h);
        self.fixed = None;
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
        let (uri, ui) = (uri.into(), ui.to_json());
        let mut meta = Map::new();
        meta.insert("ui".into(), ui);
        let fixed = ResourceContents::Text {
            uri: uri.clone(),
            mime_type: Some(MIME_TYPE.into()),
            text: html.into(),
            meta: Some(meta.clone()),
        };
        Self::new(uri, name)
            .mime_type(MIME_TYPE)
            .meta(meta)
            .fixed(fixed)
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
    pub(crate) screen: Option<ValueScreen>,
    pub(crate) lists: Vec<String>,
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
            screen: None,
            lists: Vec::new(),
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
            screen: None,
            lists: Vec::new(),
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
    /// Screen the values a read extracts with `screen` in place of the matcher's own refusals
    /// ([`UriTemplate::match_screened`]): a refused value makes the URI unknown, and no later
    /// template is tried for it. A compatibility layer gives its framework's policy here.
    pub fn screen(mut self, screen: ValueScreen) -> Self {
        self.screen = Some(screen);
        self
    }
    /// Read the non-exploded query variables `names` (`{?tags}`) as lists: the value split on its
    /// literal commas, each item percent-decoded ([`UriTemplate::with_lists`]).
    pub fn list_variables(mut self, names: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.lists = names.into_iter().map(Into::into).collect();
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
    pub(crate) fixed: Option<Arc<FixedContents>>,
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
    /// The policy that screens extracted values (`None`: the matcher's own refusals).
    pub(crate) screen: Option<ValueScreen>,
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
                fixed: r.fixed,
            },
        ))
    }
}

impl TemplateEntry {
    pub(crate) fn compile(t: ResourceTemplate) -> Result<(String, Self), BuildError> {
        let template =
            UriTemplate::parse(&t.template).map_err(|message| BuildError::BadUriTemplate {
                template: t.template.clone(),
                message,
            })?;
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
        // A framework's value policy screens what a `{path*}` holds: it spans segments there.
        let template = match t.screen {
            Some(_) => template.spanning_paths(),
            None => template,
        }
        .with_lists(t.lists);
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
                screen: t.screen,
            },
        ))
    }

    /// `uri` against this template: screened by its policy when it has one, else by the
    /// matcher's own refusals (a refused value is then no match).
    pub(crate) fn resolve(&self, uri: &str) -> Screened {
        match &self.screen {
            Some(screen) => self.template.match_screened(uri, screen),
            None => self
                .template
                .matches(uri)
                .map_or(Screened::NoMatch, Screened::Matched),
        }
    }
}
