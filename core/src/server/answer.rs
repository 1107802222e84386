//! A tool's answer on its way out: kept as the handler's `ToolResult` until a transport writes
//! it. Building it as a `serde_json::Value` first (every member name and string copied, the
//! serverInfo copied into `_meta`, then all of it serialised and dropped) was the largest part
//! of a `tools/call` after the parse; the HTTP transport writes it straight into the response.
//! Whoever needs the answer as a value (stdio, a task's record, a middleware) gets the same
//! value as before from [`ToolAnswer::into_value`]. [`Reply`] is any response as a transport
//! writes it.

use crate::jsonrpc;
use crate::jsonrpc::write::{write_content, write_resource_contents, write_value};
use crate::protocol::{ResourceContents, ToolResult, META_SERVER_INFO};
use crate::resource::FixedContents;
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use std::sync::Arc;

/// The server's `serverInfo` (`Implementation`), with its JSON written once: every modern tool
/// answer carries it in `_meta`, and serialising the value each time was a tenth of writing one.
#[derive(Debug)]
pub(crate) struct ServerInfo {
    pub(crate) value: Value,
    pub(crate) json: Box<RawValue>,
}

impl ServerInfo {
    pub(crate) fn new(value: Value) -> Self {
        let json = serde_json::value::to_raw_value(&value)
            .unwrap_or_else(|_| RawValue::from_string("{}".into()).expect("valid JSON"));
        Self { value, json }
    }
}

/// A tool's result and the era's shaping it gets when it is written.
#[derive(Debug)]
pub(crate) struct ToolAnswer {
    pub(crate) result: ToolResult,
    /// A 2026-07-28 answer: `resultType` is `complete`.
    pub(crate) modern: bool,
    /// The server's `serverInfo`, put into `_meta` (modern answers, unless the options say no).
    pub(crate) info: Option<Arc<ServerInfo>>,
}

impl ToolAnswer {
    /// The answer as a value: what the dispatcher's `finish` makes of the result.
    pub(crate) fn into_value(self) -> Value {
        let mut m = match serde_json::to_value(self.result) {
            Ok(Value::Object(m)) => m,
            // A ToolResult holds strings, values and maps with string keys: it always serialises.
            _ => Map::new(),
        };
        if self.modern {
            shape_modern(&mut m, self.info.as_deref().map(|i| &i.value));
        }
        Value::Object(m)
    }

    /// Room for the answer's JSON: its text blocks with an eighth more for escapes, and as
    /// much again as the largest for a structured result (whose text is usually its JSON).
    pub(crate) fn size_hint(&self) -> usize {
        let r = &self.result;
        let texts = r.content.iter().map(|c| match c {
            crate::protocol::Content::Text { text, .. } => text.len(),
            _ => 0,
        });
        let (sum, max) = texts.fold((0, 0), |(s, m), n| (s + n, m.max(n)));
        let structured = if r.structured_content.is_some() {
            max
        } else {
            0
        };
        256 + sum + sum / 8 + structured
    }

    /// Append the answer's JSON: the members in the order the value's (sorted) map has them,
    /// the serverInfo in `_meta` where `insert` would put it (it replaces the handler's own).
    pub(crate) fn write_to(&self, out: &mut Vec<u8>) {
        let r = &self.result;
        let mut sep = Sep(false);
        out.push(b'{');
        if r.meta.is_some() || self.info.is_some() {
            sep.put(out);
            out.extend_from_slice(br#""_meta":{"#);
            let mut inner = Sep(false);
            let mut info = self.info.as_deref();
            for (k, v) in r.meta.iter().flatten() {
                match (info, k.as_str().cmp(META_SERVER_INFO)) {
                    (Some(i), std::cmp::Ordering::Greater) => {
                        info_entry(out, &mut inner, i);
                        info = None;
                    }
                    (Some(_), std::cmp::Ordering::Equal) => continue,
                    _ => {}
                }
                entry(out, &mut inner, k, v);
            }
            if let Some(i) = info {
                info_entry(out, &mut inner, i);
            }
            out.push(b'}');
        }
        sep.put(out);
        out.extend_from_slice(br#""content":"#);
        write_content(out, &r.content);
        if r.is_error {
            sep.put(out);
            out.extend_from_slice(br#""isError":true"#);
        }
        if self.modern {
            sep.put(out);
            out.extend_from_slice(br#""resultType":"complete""#);
        }
        if let Some(sc) = &r.structured_content {
            sep.put(out);
            out.extend_from_slice(br#""structuredContent":"#);
            write_value(out, sc);
        }
        out.push(b'}');
    }
}

/// A `resources/read` result on its way out: the handler's contents kept as they are (a 1 MiB
/// text or base64 blob is not copied into a value) and the result's other members as the
/// dispatcher's `finish` made them.
pub(crate) struct ContentsAnswer {
    pub(crate) contents: Contents,
    pub(crate) rest: Map<String, Value>,
}

/// A read's contents: the handler's, or a resource's fixed contents with their JSON kept.
pub(crate) enum Contents {
    Owned(Vec<ResourceContents>),
    Fixed(Arc<FixedContents>),
}

impl std::fmt::Debug for ContentsAnswer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let contents = match &self.contents {
            Contents::Owned(c) => c.as_slice(),
            Contents::Fixed(c) => std::slice::from_ref(&c.contents),
        };
        f.debug_struct("ContentsAnswer")
            .field("contents", &contents)
            .field("rest", &self.rest)
            .finish()
    }
}

impl ContentsAnswer {
    /// The result as a value: the strings moved, not copied (fixed contents are copied).
    pub(crate) fn into_value(self) -> Value {
        let mut m = self.rest;
        let contents = match self.contents {
            Contents::Owned(c) => c.into_iter().map(contents_value).collect(),
            Contents::Fixed(c) => vec![contents_value(c.contents.clone())],
        };
        m.insert("contents".into(), Value::Array(contents));
        Value::Object(m)
    }

    /// Room for the result's JSON.
    pub(crate) fn size_hint(&self) -> usize {
        512 + match &self.contents {
            Contents::Owned(c) => crate::jsonrpc::write::resource_contents_len(c),
            Contents::Fixed(c) => c.json().len(),
        }
    }

    fn write_contents(&self, out: &mut Vec<u8>) {
        match &self.contents {
            Contents::Owned(c) => write_resource_contents(out, c),
            Contents::Fixed(c) => out.extend_from_slice(c.json()),
        }
    }

    /// Append the result's JSON: `contents` among the other members where the value's (sorted)
    /// map has it.
    pub(crate) fn write_to(&self, out: &mut Vec<u8>) {
        let mut sep = Sep(false);
        let mut pending = true;
        out.push(b'{');
        for (k, v) in &self.rest {
            if pending && k.as_str() > "contents" {
                sep.put(out);
                out.extend_from_slice(br#""contents":"#);
                self.write_contents(out);
                pending = false;
            }
            if pending && k == "contents" {
                continue;
            }
            entry(out, &mut sep, k, v);
        }
        if pending {
            sep.put(out);
            out.extend_from_slice(br#""contents":"#);
            self.write_contents(out);
        }
        out.push(b'}');
    }
}

/// One `ResourceContents` as the value `serde_json::to_value` makes of it, its strings moved.
fn contents_value(c: ResourceContents) -> Value {
    let (uri, mime_type, key, body, meta) = match c {
        ResourceContents::Text {
            uri,
            mime_type,
            text,
            meta,
        } => (uri, mime_type, "text", text, meta),
        ResourceContents::Blob {
            uri,
            mime_type,
            blob,
            meta,
        } => (uri, mime_type, "blob", blob, meta),
    };
    let mut m = Map::new();
    m.insert("uri".into(), Value::String(uri));
    if let Some(t) = mime_type {
        m.insert("mimeType".into(), Value::String(t));
    }
    m.insert(key.into(), Value::String(body));
    if let Some(meta) = meta {
        m.insert("_meta".into(), Value::Object(meta));
    }
    Value::Object(m)
}

/// A response as a transport sends it: a JSON value, or a success whose result was serialised
/// before (then only the envelope around it is written).
pub(crate) enum Reply {
    /// An error, or a response built as a whole.
    Value(Value),
    /// A success: the envelope is written around the result, never built as a value.
    Ok {
        id: Value,
        result: Value,
    },
    /// A tool's answer, written from its `ToolResult`.
    Tool {
        id: Value,
        answer: Box<ToolAnswer>,
    },
    Rendered {
        id: Value,
        result: Arc<RawValue>,
    },
    /// A `resources/read` result, written from the handler's contents.
    Contents {
        id: Value,
        answer: Box<ContentsAnswer>,
    },
}

impl Reply {
    pub(crate) fn into_value(self) -> Value {
        match self {
            Reply::Value(v) => v,
            Reply::Ok { id, result } => jsonrpc::ok(id, result),
            Reply::Tool { id, answer } => jsonrpc::ok(id, answer.into_value()),
            Reply::Contents { id, answer } => jsonrpc::ok(id, answer.into_value()),
            Reply::Rendered { id, result } => jsonrpc::ok(
                id,
                serde_json::from_str(result.get()).unwrap_or(Value::Null),
            ),
        }
    }

    /// The response as a value when it was built as one (every error is).
    pub(crate) fn as_value(&self) -> Option<&Value> {
        match self {
            Reply::Value(v) => Some(v),
            Reply::Ok { .. }
            | Reply::Tool { .. }
            | Reply::Rendered { .. }
            | Reply::Contents { .. } => None,
        }
    }

    /// Room for the response's JSON, so that [`Reply::write_to`] into a buffer made with it does
    /// not grow it: a rendered list or resource is written into one allocation, not two.
    pub(crate) fn size_hint(&self) -> usize {
        match self {
            Reply::Rendered { result, .. } => result.get().len() + 64,
            Reply::Contents { answer, .. } => answer.size_hint(),
            Reply::Tool { answer, .. } => answer.size_hint(),
            _ => 256,
        }
    }

    /// Append the response's JSON to `out`.
    pub(crate) fn write_to(&self, out: &mut Vec<u8>) {
        match self {
            Reply::Value(v) => write_value(out, v),
            // The keys in the order `jsonrpc::ok` sorts them.
            Reply::Ok { id, result } => {
                out.extend_from_slice(br#"{"id":"#);
                serde_json::to_writer(&mut *out, id).unwrap_or_default();
                out.extend_from_slice(br#","jsonrpc":"2.0","result":"#);
                write_value(out, result);
                out.push(b'}');
            }
            Reply::Contents { id, answer } => {
                out.extend_from_slice(br#"{"id":"#);
                serde_json::to_writer(&mut *out, id).unwrap_or_default();
                out.extend_from_slice(br#","jsonrpc":"2.0","result":"#);
                answer.write_to(out);
                out.push(b'}');
            }
            Reply::Tool { id, answer } => {
                out.extend_from_slice(br#"{"id":"#);
                serde_json::to_writer(&mut *out, id).unwrap_or_default();
                out.extend_from_slice(br#","jsonrpc":"2.0","result":"#);
                answer.write_to(out);
                out.push(b'}');
            }
            Reply::Rendered { id, result } => {
                out.reserve(result.get().len() + 40); // a no-op in a buffer of `size_hint`
                out.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
                serde_json::to_writer(&mut *out, id).unwrap_or_default();
                out.extend_from_slice(br#","result":"#);
                out.extend_from_slice(result.get().as_bytes());
                out.push(b'}');
            }
        }
    }
}

/// What every complete modern answer gets: `resultType`, and the serverInfo in `_meta`.
pub(crate) fn shape_modern(m: &mut Map<String, Value>, info: Option<&Value>) {
    m.insert("resultType".into(), Value::String("complete".into()));
    if let Some(info) = info {
        insert_server_info(m, info);
    }
}

/// The serverInfo in a result's `_meta` (made if absent), replacing the handler's own.
pub(crate) fn insert_server_info(m: &mut Map<String, Value>, info: &Value) {
    let meta = m
        .entry("_meta")
        .or_insert_with(|| Value::Object(Map::new()));
    if let Value::Object(meta) = meta {
        meta.insert(META_SERVER_INFO.into(), info.clone());
    }
}

/// A comma before every member but the first.
struct Sep(bool);

impl Sep {
    fn put(&mut self, out: &mut Vec<u8>) {
        if std::mem::replace(&mut self.0, true) {
            out.push(b',');
        }
    }
}

fn info_entry(out: &mut Vec<u8>, sep: &mut Sep, info: &ServerInfo) {
    sep.put(out);
    // The key needs no escaping.
    out.push(b'"');
    out.extend_from_slice(META_SERVER_INFO.as_bytes());
    out.extend_from_slice(b"\":");
    out.extend_from_slice(info.json.get().as_bytes());
}

fn entry(out: &mut Vec<u8>, sep: &mut Sep, k: &str, v: &Value) {
    sep.put(out);
    crate::jsonrpc::write::write_str(out, k);
    out.push(b':');
    write_value(out, v);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Content;
    use serde_json::json;

    /// Written straight, the answer is the value `into_value` makes, for every combination
    /// of the members that may be absent, and a handler `_meta` on either side of serverInfo.
    #[test]
    fn the_written_answer_is_the_value() {
        let info = Arc::new(ServerInfo::new(json!({"name": "srv", "version": "1.0"})));
        let metas = [
            None,
            Some(json!({"a": 1, "z": {"k": [1, 2]}})),
            Some(json!({"io.modelcontextprotocol/serverInfo": "the handler's", "b": null})),
        ];
        for meta in metas {
            for structured in [None, Some(json!({"result": 3, "a\"b": "x"}))] {
                for (is_error, modern, with_info) in [
                    (false, true, true),
                    (true, true, true),
                    (false, true, false),
                    (false, false, false),
                ] {
                    let a = ToolAnswer {
                        result: ToolResult {
                            content: vec![Content::text("3"), Content::text("é\n")],
                            structured_content: structured.clone(),
                            is_error,
                            meta: meta.clone().map(|m| match m {
                                Value::Object(m) => m,
                                _ => unreachable!(),
                            }),
                        },
                        modern,
                        info: with_info.then(|| info.clone()),
                    };
                    let mut out = Vec::new();
                    a.write_to(&mut out);
                    let written: Value = serde_json::from_slice(&out).unwrap();
                    let text = String::from_utf8(out).unwrap();
                    let value = a.into_value();
                    assert_eq!(written, value, "{text}");
                    // The handler's objects as the value writes them (sorted keys), and the
                    // members in the value's order.
                    for k in ["_meta", "structuredContent"] {
                        if let Some(m) = value.get(k) {
                            let member = format!("\"{k}\":{}", serde_json::to_string(m).unwrap());
                            assert!(text.contains(&member), "{member} in {text}");
                        }
                    }
                    let at = |k: &str| text.find(&format!("\"{k}\":"));
                    let order: Vec<usize> = [
                        "_meta",
                        "content",
                        "isError",
                        "resultType",
                        "structuredContent",
                    ]
                    .iter()
                    .filter_map(|k| at(k))
                    .collect();
                    assert!(order.windows(2).all(|w| w[0] < w[1]), "{text}");
                }
            }
        }
    }

    /// A read's result is written as the value it replaces serialises, byte for byte: the
    /// contents among the other members in sorted order, for a legacy (no other member) and a
    /// modern result.
    #[test]
    fn the_written_contents_are_the_value() {
        let contents = vec![
            ResourceContents::blob("x://b", "application/octet-stream", "aGk/+w=="),
            ResourceContents::text("x://t", "text/plain", "a\"\\\n\u{1}é𝄞"),
        ];
        let modern = json!({"_meta": {"io.modelcontextprotocol/serverInfo": {"name": "s"}},
            "cacheScope": "public", "resultType": "complete", "ttlMs": 0});
        for rest in [json!({}), modern, json!({"zz": 1}), json!({"a": 1})] {
            let Value::Object(rest) = rest else {
                unreachable!()
            };
            let mut m = rest.clone();
            m.insert("contents".into(), serde_json::to_value(&contents).unwrap());
            let want = serde_json::to_string(&jsonrpc::ok(json!(4), Value::Object(m))).unwrap();
            let reply = Reply::Contents {
                id: json!(4),
                answer: Box::new(ContentsAnswer {
                    contents: Contents::Owned(contents.clone()),
                    rest,
                }),
            };
            let mut got = Vec::new();
            reply.write_to(&mut got);
            assert_eq!(String::from_utf8(got).unwrap(), want);
            assert_eq!(serde_json::to_string(&reply.into_value()).unwrap(), want);
        }
    }

    /// Fixed contents are written from their kept JSON as the same contents from a handler
    /// are, and make the same value.
    #[test]
    fn fixed_contents_are_written_as_owned_ones() {
        let meta = json!({"ui": {"csp": "a\"b"}}).as_object().cloned();
        let items = [
            ResourceContents::text("x://t", "text/plain", "a\"\\\n\u{1}é𝄞".repeat(50)),
            ResourceContents::blob("x://b", "application/octet-stream", "aGk/+w=="),
            ResourceContents::Text {
                uri: "ui://app".into(),
                mime_type: Some("text/html;profile=mcp-app".into()),
                text: "<p>\"</p>".into(),
                meta,
            },
        ];
        let rest = json!({"_meta": {"io.modelcontextprotocol/serverInfo": {"name": "s"}},
            "resultType": "complete"});
        let Value::Object(rest) = rest else {
            unreachable!()
        };
        for c in items {
            let reply = |contents| Reply::Contents {
                id: json!(1),
                answer: Box::new(ContentsAnswer {
                    contents,
                    rest: rest.clone(),
                }),
            };
            let owned = reply(Contents::Owned(vec![c.clone()]));
            let fixed = reply(Contents::Fixed(FixedContents::new(c)));
            let (mut a, mut b) = (Vec::new(), Vec::new());
            owned.write_to(&mut a);
            fixed.write_to(&mut b);
            assert_eq!(String::from_utf8(a).unwrap(), String::from_utf8(b).unwrap());
            assert_eq!(owned.into_value(), fixed.into_value());
        }
    }

    #[test]
    fn a_success_is_written_as_its_envelope_would_serialise() {
        for (id, result) in [
            (
                json!(7),
                json!({"content": [{"type": "text", "text": "3"}], "isError": false}),
            ),
            (json!("a\"b"), json!({})),
        ] {
            let want = serde_json::to_vec(&jsonrpc::ok(id.clone(), result.clone())).unwrap();
            let mut got = Vec::new();
            Reply::Ok { id, result }.write_to(&mut got);
            assert_eq!(
                String::from_utf8(got).unwrap(),
                String::from_utf8(want).unwrap()
            );
        }
    }
}
