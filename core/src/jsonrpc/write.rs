//! The wire writer of the large answers (content blocks, resource contents), built on the
//! string and value writer of `protocol::json_text`: byte for byte what their `Serialize`
//! writes, for a 1 MiB resource's text or base64 blob and a 100 KB structured result.

pub(crate) use crate::protocol::json_text::{write_map, write_str, write_value};
use crate::protocol::{Content, ResourceContents};
use serde_json::{Map, Value};

/// An optional member `,"key":{...}` (the key needs no escape).
fn opt_map(out: &mut Vec<u8>, key: &str, m: Option<&Map<String, Value>>) {
    if let Some(m) = m {
        out.push(b',');
        out.push(b'"');
        out.extend_from_slice(key.as_bytes());
        out.extend_from_slice(b"\":");
        write_map(out, m);
    }
}

/// Append content blocks as their derived `Serialize` writes them: text blocks here (the tag
/// first, then the fields in declaration order), the others through serde_json.
pub(crate) fn write_content(out: &mut Vec<u8>, content: &[Content]) {
    out.push(b'[');
    for (i, c) in content.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        match c {
            Content::Text {
                text,
                annotations,
                meta,
            } => {
                out.extend_from_slice(br#"{"type":"text","text":"#);
                write_str(out, text);
                opt_map(out, "annotations", annotations.as_ref());
                opt_map(out, "_meta", meta.as_ref());
                out.push(b'}');
            }
            other => serde_json::to_writer(&mut *out, other).unwrap_or_default(),
        }
    }
    out.push(b']');
}

/// Append resource contents as the value `serde_json::to_value` makes of them writes: the
/// members in sorted order (`_meta`, `blob`, `mimeType`, `text`, `uri`).
pub(crate) fn write_resource_contents(out: &mut Vec<u8>, contents: &[ResourceContents]) {
    out.push(b'[');
    for (i, c) in contents.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        let (uri, mime_type, text, blob, meta) = match c {
            ResourceContents::Text {
                uri,
                mime_type,
                text,
                meta,
            } => (uri, mime_type, Some(text), None, meta),
            ResourceContents::Blob {
                uri,
                mime_type,
                blob,
                meta,
            } => (uri, mime_type, None, Some(blob), meta),
        };
        let mut sep = b'{';
        let mut member = |out: &mut Vec<u8>, key: &[u8]| {
            out.push(sep);
            sep = b',';
            out.extend_from_slice(key);
        };
        if let Some(m) = meta {
            member(out, br#""_meta":"#);
            write_map(out, m);
        }
        if let Some(b) = blob {
            member(out, br#""blob":"#);
            write_str(out, b);
        }
        if let Some(m) = mime_type {
            member(out, br#""mimeType":"#);
            write_str(out, m);
        }
        if let Some(t) = text {
            member(out, br#""text":"#);
            write_str(out, t);
        }
        member(out, br#""uri":"#);
        write_str(out, uri);
        out.push(b'}');
    }
    out.push(b']');
}

/// The JSON size of resource contents' large strings, to size the buffer they are written into
/// (escapes may add a little, which the buffer then grows for).
pub(crate) fn resource_contents_len(contents: &[ResourceContents]) -> usize {
    contents
        .iter()
        .map(|c| match c {
            ResourceContents::Text { uri, text, .. } => uri.len() + text.len() + 64,
            ResourceContents::Blob { uri, blob, .. } => uri.len() + blob.len() + 64,
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::json_text::tests::strings;
    use serde_json::json;

    #[test]
    fn a_structured_result_s_text_is_serde_json_s() {
        let v = json!({"items": [{"id": 1, "name": "a\"b", "score": 0.25, "tags": ["x"]}],
            "s": strings()});
        let r = crate::protocol::ToolResult::structured(v.clone());
        let Some(Content::Text { text, .. }) = r.content.first() else {
            panic!("{r:?}")
        };
        assert_eq!(*text, serde_json::to_string(&v).unwrap());
    }

    #[test]
    fn a_blob_from_bytes_is_the_base64_crate_s_encoding() {
        use base64::Engine;
        let bytes: Vec<u8> = (0..=255u8).cycle().take(3000).collect();
        for n in (0..70).chain([1000, 2999, 3000]) {
            let b = &bytes[..n];
            let want = base64::engine::general_purpose::STANDARD.encode(b);
            assert_eq!(
                ResourceContents::blob_from_bytes("x://b", "application/octet-stream", b),
                ResourceContents::blob("x://b", "application/octet-stream", want),
                "{n} bytes"
            );
        }
    }

    #[test]
    fn content_and_resource_contents_are_written_as_serialize_writes_them() {
        let meta = json!({"k": "v\"", "n": [1]}).as_object().cloned();
        let content = vec![
            Content::text("plain"),
            Content::Text {
                text: "a\"\\\n\u{1}é𝄞".into(),
                annotations: json!({"audience": ["user"], "priority": 0.5})
                    .as_object()
                    .cloned(),
                meta: meta.clone(),
            },
            Content::Text {
                text: String::new(),
                annotations: None,
                meta: meta.clone(),
            },
            Content::image("aGVsbG8=", "image/png"),
            Content::embedded(ResourceContents::text("x://a", "text/plain", "t\"")),
        ];
        let mut out = Vec::new();
        write_content(&mut out, &content);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            serde_json::to_string(&content).unwrap()
        );

        let blob: String = {
            use base64::Engine;
            let bytes: Vec<u8> = (0..=255u8).cycle().take(3000).collect();
            base64::engine::general_purpose::STANDARD.encode(bytes)
        };
        let contents = vec![
            ResourceContents::blob("x://b", "application/octet-stream", blob),
            ResourceContents::text("x://t\"é", "text/plain", strings().concat()),
            ResourceContents::Text {
                uri: "x://n".into(),
                mime_type: None,
                text: "é\u{7}".into(),
                meta: meta.clone(),
            },
            ResourceContents::Blob {
                uri: "x://m".into(),
                mime_type: None,
                blob: String::new(),
                meta,
            },
        ];
        let mut out = Vec::new();
        write_resource_contents(&mut out, &contents);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            serde_json::to_string(&serde_json::to_value(&contents).unwrap()).unwrap()
        );
    }
}
