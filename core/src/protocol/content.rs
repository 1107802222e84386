//! Content blocks and the results handlers return, shaped exactly like the spec.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Optional hints on content (`audience`, `priority`, `lastModified`).
pub type Annotations = Map<String, Value>;

/// A `ContentBlock`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Content {
    Text {
        text: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        annotations: Option<Annotations>,
        #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
        meta: Option<Map<String, Value>>,
    },
    Image {
        /// Base64.
        data: String,
        #[serde(rename = "mimeType")]
        mime_type: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        annotations: Option<Annotations>,
        #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
        meta: Option<Map<String, Value>>,
    },
    Audio {
        /// Base64.
        data: String,
        #[serde(rename = "mimeType")]
        mime_type: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        annotations: Option<Annotations>,
        #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
        meta: Option<Map<String, Value>>,
    },
    /// A link to a resource: `{uri, name, title?, description?, mimeType?, size?, icons?}` kept as given.
    ResourceLink(Map<String, Value>),
    /// An embedded resource.
    Resource {
        resource: ResourceContents,
        #[serde(skip_serializing_if = "Option::is_none")]
        annotations: Option<Annotations>,
        #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
        meta: Option<Map<String, Value>>,
    },
}

impl Content {
    pub fn text(text: impl Into<String>) -> Self {
        Self::Text {
            text: text.into(),
            annotations: None,
            meta: None,
        }
    }
    pub fn image(base64_data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        Self::Image {
            data: base64_data.into(),
            mime_type: mime_type.into(),
            annotations: None,
            meta: None,
        }
    }
    pub fn audio(base64_data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        Self::Audio {
            data: base64_data.into(),
            mime_type: mime_type.into(),
            annotations: None,
            meta: None,
        }
    }
    pub fn resource_link(uri: impl Into<String>, name: impl Into<String>) -> Self {
        let mut m = Map::new();
        m.insert("uri".into(), Value::String(uri.into()));
        m.insert("name".into(), Value::String(name.into()));
        Self::ResourceLink(m)
    }
    pub fn embedded(resource: ResourceContents) -> Self {
        Self::Resource {
            resource,
            annotations: None,
            meta: None,
        }
    }
}

/// `TextResourceContents` or `BlobResourceContents`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ResourceContents {
    Text {
        uri: String,
        #[serde(rename = "mimeType", skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
        text: String,
        #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
        meta: Option<Map<String, Value>>,
    },
    Blob {
        uri: String,
        #[serde(rename = "mimeType", skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
        /// Base64.
        blob: String,
        #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
        meta: Option<Map<String, Value>>,
    },
}

impl ResourceContents {
    pub fn text(
        uri: impl Into<String>,
        mime_type: impl Into<String>,
        text: impl Into<String>,
    ) -> Self {
        Self::Text {
            uri: uri.into(),
            mime_type: Some(mime_type.into()),
            text: text.into(),
            meta: None,
        }
    }
    pub fn blob(
        uri: impl Into<String>,
        mime_type: impl Into<String>,
        base64_blob: impl Into<String>,
    ) -> Self {
        Self::Blob {
            uri: uri.into(),
            mime_type: Some(mime_type.into()),
            blob: base64_blob.into(),
            meta: None,
        }
    }
    /// A blob from its bytes, base64-encoded here (standard alphabet, padded) with SIMD where
    /// the CPU has it: cheaper than encoding with the `base64` crate and handing over the text
    /// (docs/PERFORMANCE.md).
    pub fn blob_from_bytes(
        uri: impl Into<String>,
        mime_type: impl Into<String>,
        bytes: impl AsRef<[u8]>,
    ) -> Self {
        Self::blob(
            uri,
            mime_type,
            base64_simd::STANDARD.encode_to_string(bytes),
        )
    }
}

/// A `CallToolResult` (without `resultType`, which the dispatcher adds for modern requests).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ToolResult {
    pub content: Vec<Content>,
    #[serde(rename = "structuredContent", skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<Value>,
    #[serde(
        rename = "isError",
        default,
        skip_serializing_if = "std::ops::Not::not"
    )]
    pub is_error: bool,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
}

impl ToolResult {
    pub fn new(content: Vec<Content>) -> Self {
        Self {
            content,
            ..Default::default()
        }
    }
    pub fn text(text: impl Into<String>) -> Self {
        Self::new(vec![Content::text(text)])
    }
    /// Structured output, with its serialized JSON as a text block for older clients.
    pub fn structured(value: Value) -> Self {
        let mut json = Vec::new();
        super::json_text::write_value(&mut json, &value);
        // Written from a value's strings and serde_json's numbers: always UTF-8.
        let text = String::from_utf8(json).unwrap_or_default();
        Self {
            content: vec![Content::text(text)],
            structured_content: Some(value),
            ..Default::default()
        }
    }
    pub fn error(text: impl Into<String>) -> Self {
        Self {
            content: vec![Content::text(text)],
            is_error: true,
            ..Default::default()
        }
    }
    /// Parse a spec-shaped `CallToolResult` object (what the bindings hand over).
    pub fn from_value(v: Value) -> Result<Self, serde_json::Error> {
        serde_json::from_value(v)
    }
    /// A list a tool returned when it declares no `outputSchema`: one content block per item when
    /// every item is a string (a text block) or a content block; otherwise, and for an empty
    /// list, one text block with the list's JSON. The one copy of this rule: the bindings hand
    /// the list over (converted to JSON) instead of deciding.
    pub fn from_list(items: Vec<Value>) -> Self {
        const BLOCKS: [&str; 5] = ["text", "image", "audio", "resource", "resource_link"];
        if !items.is_empty() {
            let blocks: Option<Vec<Content>> = items
                .iter()
                .map(|v| match v {
                    Value::String(s) => Some(Content::text(s.clone())),
                    Value::Object(m)
                        if m.get("type")
                            .and_then(Value::as_str)
                            .is_some_and(|t| BLOCKS.contains(&t)) =>
                    {
                        serde_json::from_value(v.clone()).ok()
                    }
                    _ => None,
                })
                .collect();
            if let Some(content) = blocks {
                return Self::new(content);
            }
        }
        Self::text(Value::Array(items).to_string())
    }
}

/// A message of a `GetPromptResult`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PromptMessage {
    /// `"user"` or `"assistant"`.
    pub role: String,
    pub content: Content,
}

impl PromptMessage {
    pub fn user(content: Content) -> Self {
        Self {
            role: "user".into(),
            content,
        }
    }
    pub fn assistant(content: Content) -> Self {
        Self {
            role: "assistant".into(),
            content,
        }
    }
}

/// A `GetPromptResult` (without `resultType`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PromptResult {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub messages: Vec<PromptMessage>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
}

impl PromptResult {
    pub fn new(messages: Vec<PromptMessage>) -> Self {
        Self {
            messages,
            ..Default::default()
        }
    }
    pub fn from_value(v: Value) -> Result<Self, serde_json::Error> {
        serde_json::from_value(v)
    }
}

/// The `completion` object of a `CompleteResult`. At most 100 values are sent.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Completion {
    pub values: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total: Option<u64>,
    #[serde(rename = "hasMore", skip_serializing_if = "Option::is_none")]
    pub has_more: Option<bool>,
}

impl Completion {
    pub fn new(values: Vec<String>) -> Self {
        Self {
            values,
            total: None,
            has_more: None,
        }
    }
}
