//! MCP Apps (`io.modelcontextprotocol/ui`): a tool links a `ui://` HTML resource that the host
//! renders in a sandboxed iframe and talks to over `postMessage` JSON-RPC.
//!
//! What the server side needs, and checks at registration:
//! - the UI resource: a `ui://` URI with MIME type `text/html;profile=mcp-app` (both MUSTs: a
//!   `ui://` resource with another MIME type, or that MIME type on another scheme, is refused),
//!   and `_meta.ui` (`csp` with `connectDomains`/`resourceDomains`/`frameDomains`/
//!   `baseUriDomains`, `permissions`, `domain`, `prefersBorder`) on the listing and the contents;
//! - the tool: `_meta.ui.resourceUri` (a `ui://` URI) and `visibility` (`["model", "app"]`);
//! - `capabilities.extensions["io.modelcontextprotocol/ui"]` once a UI resource is registered.

use serde_json::{json, Map, Value};

/// The extension's identifier.
pub const EXTENSION_ID: &str = "io.modelcontextprotocol/ui";
/// The MIME type of an MCP App's HTML (`RESOURCE_MIME_TYPE` in `@modelcontextprotocol/ext-apps`).
pub const MIME_TYPE: &str = "text/html;profile=mcp-app";

/// `_meta.ui` of a UI resource.
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct UiResourceMeta {
    /// Origins the app may `fetch`/WebSocket to (CSP `connect-src`).
    pub connect_domains: Vec<String>,
    /// Origins of scripts, styles, images, fonts (CSP `script-src`, `img-src`, ...).
    pub resource_domains: Vec<String>,
    /// Origins of nested iframes (CSP `frame-src`).
    pub frame_domains: Vec<String>,
    /// Allowed `<base href>` origins (CSP `base-uri`).
    pub base_uri_domains: Vec<String>,
    /// Browser permissions asked for, e.g. `{"camera": {}, "microphone": {}}`.
    pub permissions: Option<Value>,
    /// A dedicated origin for the app's sandbox.
    pub domain: Option<String>,
    pub prefers_border: Option<bool>,
}

impl UiResourceMeta {
    pub fn new() -> Self {
        Self::default()
    }
    pub fn connect_domains<S: Into<String>>(mut self, d: impl IntoIterator<Item = S>) -> Self {
        self.connect_domains = d.into_iter().map(Into::into).collect();
        self
    }
    pub fn resource_domains<S: Into<String>>(mut self, d: impl IntoIterator<Item = S>) -> Self {
        self.resource_domains = d.into_iter().map(Into::into).collect();
        self
    }
    pub fn frame_domains<S: Into<String>>(mut self, d: impl IntoIterator<Item = S>) -> Self {
        self.frame_domains = d.into_iter().map(Into::into).collect();
        self
    }
    pub fn base_uri_domains<S: Into<String>>(mut self, d: impl IntoIterator<Item = S>) -> Self {
        self.base_uri_domains = d.into_iter().map(Into::into).collect();
        self
    }
    pub fn permissions(mut self, p: Value) -> Self {
        self.permissions = Some(p);
        self
    }
    pub fn domain(mut self, d: impl Into<String>) -> Self {
        self.domain = Some(d.into());
        self
    }
    pub fn prefers_border(mut self, b: bool) -> Self {
        self.prefers_border = Some(b);
        self
    }
    /// The `_meta.ui` object.
    pub fn to_json(&self) -> Value {
        let mut ui = Map::new();
        let mut csp = Map::new();
        for (k, v) in [
            ("connectDomains", &self.connect_domains),
            ("resourceDomains", &self.resource_domains),
            ("frameDomains", &self.frame_domains),
            ("baseUriDomains", &self.base_uri_domains),
        ] {
            if !v.is_empty() {
                csp.insert(k.into(), json!(v));
            }
        }
        if !csp.is_empty() {
            ui.insert("csp".into(), Value::Object(csp));
        }
        if let Some(p) = &self.permissions {
            ui.insert("permissions".into(), p.clone());
        }
        if let Some(d) = &self.domain {
            ui.insert("domain".into(), Value::String(d.clone()));
        }
        if let Some(b) = self.prefers_border {
            ui.insert("prefersBorder".into(), Value::Bool(b));
        }
        Value::Object(ui)
    }
}

/// Whether a MIME type is the MCP App one (parameters compared without spaces or case).
fn is_app_mime(m: &str) -> bool {
    m.split(';')
        .map(|p| p.trim().to_ascii_lowercase())
        .collect::<Vec<_>>()
        == ["text/html", "profile=mcp-app"]
}

/// The registration MUSTs for a resource (or template) descriptor. `_meta.ui` is checked on an
/// App's own (`ui://`) resource, the one a host renders by it; another resource's `_meta.ui` is
/// its framework's data, which no host reads as an App's.
pub(crate) fn check_resource(uri: &str, def: &Map<String, Value>) -> Result<(), String> {
    let ui_scheme = uri
        .get(..5)
        .is_some_and(|s| s.eq_ignore_ascii_case("ui://"));
    let mime = def.get("mimeType").and_then(Value::as_str);
    let app_mime = mime.is_some_and(is_app_mime);
    if ui_scheme && !app_mime {
        return Err(format!(
            "a ui:// resource must have mimeType \"{MIME_TYPE}\" (got {})",
            mime.map_or("none".into(), |m| format!("\"{m}\""))
        ));
    }
    if app_mime && !ui_scheme {
        return Err(format!("mimeType \"{MIME_TYPE}\" needs a ui:// URI"));
    }
    if let Some(ui) = def
        .get("_meta")
        .and_then(|m| m.get("ui"))
        .filter(|_| ui_scheme)
    {
        if !ui.is_object() {
            return Err("_meta.ui must be an object".into());
        }
        if let Some(csp) = ui.get("csp") {
            let ok = csp.as_object().is_some_and(|c| {
                c.values()
                    .all(|v| v.as_array().is_some_and(|a| a.iter().all(Value::is_string)))
            });
            if !ok {
                return Err("_meta.ui.csp must map each directive to an array of origins".into());
            }
        }
    }
    Ok(())
}

/// The registration MUSTs for a tool's `_meta.ui`.
pub(crate) fn check_tool(def: &Map<String, Value>) -> Result<(), String> {
    let Some(ui) = def.get("_meta").and_then(|m| m.get("ui")) else {
        return Ok(());
    };
    let Some(ui) = ui.as_object() else {
        return Err("_meta.ui must be an object".into());
    };
    if let Some(u) = ui.get("resourceUri") {
        let ok = u.as_str().is_some_and(|u| {
            u.len() > 5 && u.get(..5).is_some_and(|s| s.eq_ignore_ascii_case("ui://"))
        });
        if !ok {
            return Err("_meta.ui.resourceUri must be a ui:// URI".into());
        }
    }
    if let Some(v) = ui.get("visibility") {
        let ok = v.as_array().is_some_and(|a| {
            a.iter()
                .all(|x| matches!(x.as_str(), Some("model" | "app")))
        });
        if !ok {
            return Err("_meta.ui.visibility must be an array of \"model\" and \"app\"".into());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registration_musts() {
        let d = |m: &str| {
            let mut x = Map::new();
            x.insert("mimeType".into(), json!(m));
            x
        };
        assert!(check_resource("ui://a/b.html", &d(MIME_TYPE)).is_ok());
        assert!(check_resource("ui://a/b.html", &d("text/html; profile=mcp-app")).is_ok());
        assert!(check_resource("ui://a/b.html", &d("text/html")).is_err());
        assert!(check_resource("file:///b.html", &d(MIME_TYPE)).is_err());
        assert!(check_resource("file:///b.html", &d("text/html")).is_ok());
        let with_csp = |csp: Value| {
            let mut x = d(MIME_TYPE);
            x.insert("_meta".into(), json!({"ui": {"csp": csp}}));
            x
        };
        assert!(check_resource("ui://a/b.html", &with_csp(json!("default-src none"))).is_err());
        assert!(check_resource("ui://a/b.html", &with_csp(json!({"connectDomains": []}))).is_ok());
        let mut data = with_csp(json!("default-src none"));
        data.remove("mimeType");
        assert!(check_resource("data://multi/{id}", &data).is_ok());
        // A URI whose fifth byte falls inside a character is checked, not a panic.
        assert!(check_resource("uiéé://x", &d("text/html")).is_ok());
        assert!(check_tool(&{
            let mut x = Map::new();
            x.insert("_meta".into(), json!({"ui": {"resourceUri": "uiéé://x/y"}}));
            x
        })
        .is_err());
        let t = |ui: Value| {
            let mut x = Map::new();
            x.insert("_meta".into(), json!({ "ui": ui }));
            x
        };
        assert!(check_tool(&t(
            json!({"resourceUri": "ui://x/y", "visibility": ["model", "app"]})
        ))
        .is_ok());
        assert!(check_tool(&t(json!({"resourceUri": "https://x/y"}))).is_err());
        assert!(check_tool(&t(
            json!({"resourceUri": "ui://x/y", "visibility": ["user"]})
        ))
        .is_err());
        let ui = UiResourceMeta::new()
            .connect_domains(["https://api.example.com"])
            .prefers_border(true)
            .to_json();
        assert_eq!(
            ui,
            json!({"csp": {"connectDomains": ["https://api.example.com"]}, "prefersBorder": true})
        );
    }
}
