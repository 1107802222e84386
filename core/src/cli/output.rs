//! What `inspect` and `call` print: the catalog as text or JSON, a tool's result, and the
//! progress bar a call draws on a terminal.

use serde_json::{Map, Value};
use std::io::{IsTerminal, Write};

/// Indented, keys sorted (serde_json's map is ordered by key).
pub(crate) fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).expect("a Value serializes")
}

pub(crate) fn compact(value: &Value) -> String {
    serde_json::to_string(value).expect("a Value serializes")
}

fn s<'a>(item: &'a Value, key: &str) -> &'a str {
    item.get(key).and_then(Value::as_str).unwrap_or("")
}

fn first_line(text: &str) -> &str {
    text.trim().lines().next().map_or("", str::trim)
}

fn with_desc(head: &str, item: &Value) -> String {
    match first_line(s(item, "description")) {
        "" => format!("  {head}"),
        desc => format!("  {head}: {desc}"),
    }
}

fn mime(item: &Value) -> String {
    match s(item, "mimeType") {
        "" => String::new(),
        m => format!(" [{m}]"),
    }
}

fn list<'a>(info: &'a Value, key: &str) -> &'a [Value] {
    info.get(key)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// The catalog as `oxmcp inspect` prints it.
pub(crate) fn render_text(info: &Value) -> String {
    let srv = &info["server"];
    let name = srv.get("name").and_then(Value::as_str).unwrap_or("?");
    let head = format!("{name} {}", s(srv, "version"));
    let version = match &info["protocolVersion"] {
        Value::String(v) => v.clone(),
        other => compact(other),
    };
    let mut lines = vec![format!("{} (protocol {version})", head.trim_end())];
    let tools = list(info, "tools");
    lines.push(format!("tools ({})", tools.len()));
    for t in tools {
        lines.push(with_desc(s(t, "name"), t));
        let input = t
            .get("inputSchema")
            .cloned()
            .unwrap_or(Value::Object(Map::new()));
        lines.push(format!("    input: {}", compact(&input)));
        if let Some(out) = t.get("outputSchema") {
            lines.push(format!("    output: {}", compact(out)));
        }
    }
    let resources = list(info, "resources");
    lines.push(format!("resources ({})", resources.len()));
    for r in resources {
        let head = format!("{} ({}){}", s(r, "uri"), s(r, "name"), mime(r));
        lines.push(with_desc(&head, r));
    }
    let templates = list(info, "resourceTemplates");
    lines.push(format!("resource templates ({})", templates.len()));
    for r in templates {
        let head = format!("{} ({}){}", s(r, "uriTemplate"), s(r, "name"), mime(r));
        lines.push(with_desc(&head, r));
    }
    let prompts = list(info, "prompts");
    lines.push(format!("prompts ({})", prompts.len()));
    for p in prompts {
        let args: Vec<String> = list(p, "arguments")
            .iter()
            .map(|a| {
                let required = a.get("required").and_then(Value::as_bool) == Some(true);
                format!("{}{}", s(a, "name"), if required { "" } else { "?" })
            })
            .collect();
        lines.push(with_desc(
            &format!("{}({})", s(p, "name"), args.join(", ")),
            p,
        ));
    }
    let discovered = list(info, "discovered");
    if !discovered.is_empty() {
        lines.push(format!("discovered ({})", discovered.len()));
        for d in discovered {
            let by_hand = if d.get("registeredByHandInstead").is_some() {
                " (registered by hand instead)"
            } else {
                ""
            };
            lines.push(format!(
                "  {} {} \u{2190} {}{by_hand}",
                s(d, "kind"),
                s(d, "name"),
                s(d, "from")
            ));
        }
    }
    if let Some(Value::Object(catalog)) = info.get("catalog") {
        for (method, entry) in catalog {
            let signed = if entry.get("signature").is_some() {
                format!(" signed by {}", s(entry, "key"))
            } else {
                String::new()
            };
            lines.push(format!("catalog {method}: {}{signed}", s(entry, "digest")));
        }
    }
    lines.join("\n")
}

/// A tool's result as `oxmcp call` prints it (text blocks as they are, other blocks as JSON, or
/// the structured content when there are no blocks); the text of an `isError` result.
pub(crate) fn render_result(result: &Value, json: bool) -> (String, Option<String>) {
    let is_error = result.get("isError").and_then(Value::as_bool) == Some(true);
    let blocks = list(result, "content");
    let mut out = Vec::new();
    if json {
        out.push(pretty(result));
    } else {
        for b in blocks {
            let text = s(b, "type") == "text";
            if text && !is_error {
                out.push(s(b, "text").to_string());
            } else if !text {
                out.push(compact(b));
            }
        }
        if blocks.is_empty() {
            if let Some(sc) = result.get("structuredContent") {
                out.push(pretty(sc));
            }
        }
    }
    let error = is_error.then(|| {
        let text: Vec<&str> = blocks
            .iter()
            .filter(|b| s(b, "type") == "text")
            .map(|b| s(b, "text"))
            .collect();
        let text = text.join(" ");
        if text.is_empty() {
            "no message".to_string()
        } else {
            text
        }
    });
    let mut text = out.join("\n");
    if !text.is_empty() {
        text.push('\n');
    }
    (text, error)
}

/// Bar cells; the line fits an 80-column terminal with a short tool name.
const BAR_WIDTH: usize = 30;

/// A progress bar on stderr, drawn only when stderr is a terminal (the output stays clean in
/// pipes): `label:  33%|==========                    | 1/3`.
pub(crate) struct Bar {
    label: String,
    enabled: bool,
    drawn: bool,
}

fn num(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{}", x as i64)
    } else {
        format!("{x}")
    }
}

pub(crate) fn bar_line(label: &str, progress: f64, total: Option<f64>) -> String {
    match total {
        Some(total) if total > 0.0 => {
            let frac = (progress / total).clamp(0.0, 1.0);
            let filled = (frac * BAR_WIDTH as f64).floor() as usize;
            format!(
                "{label}: {:>3.0}%|{}{}| {}/{}",
                frac * 100.0,
                "=".repeat(filled),
                " ".repeat(BAR_WIDTH - filled),
                num(progress),
                num(total)
            )
        }
        _ => format!("{label}: {}", num(progress)),
    }
}

impl Bar {
    pub(crate) fn new(label: &str) -> Self {
        Self {
            label: label.to_string(),
            enabled: std::io::stderr().is_terminal(),
            drawn: false,
        }
    }

    pub(crate) fn update(&mut self, params: &Value) {
        if !self.enabled {
            return;
        }
        let progress = params
            .get("progress")
            .and_then(Value::as_f64)
            .unwrap_or(0.0);
        let total = params.get("total").and_then(Value::as_f64);
        let line = bar_line(&self.label, progress, total);
        // A terminal's stderr: unbuffered, and a failed write only loses the bar.
        let _ = write!(std::io::stderr(), "\r{line}");
        self.drawn = true;
    }

    pub(crate) fn close(&mut self) {
        if self.drawn {
            let _ = writeln!(std::io::stderr());
            self.drawn = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_catalog_text() {
        let info = json!({
            "server": {"name": "demo", "version": "1.0"}, "protocolVersion": "2025-11-25",
            "tools": [{"name": "add", "description": "Add.\nMore.", "inputSchema": {"type": "object"}}],
            "resources": [{"uri": "a://b", "name": "b", "mimeType": "text/plain"}],
            "resourceTemplates": [], "prompts": [{"name": "p", "arguments": [{"name": "x", "required": true}, {"name": "y"}]}],
        });
        assert_eq!(
            render_text(&info),
            "demo 1.0 (protocol 2025-11-25)\ntools (1)\n  add: Add.\n    input: {\"type\":\"object\"}\n\
             resources (1)\n  a://b (b) [text/plain]\nresource templates (0)\nprompts (1)\n  p(x, y?)"
        );
    }

    #[test]
    fn what_was_discovered_and_from_where() {
        let info = json!({
            "server": {"name": "demo", "version": "1.0"}, "protocolVersion": "2026-07-28",
            "tools": [], "resources": [], "resourceTemplates": [], "prompts": [],
            "discovered": [
                {"kind": "tool", "name": "shout", "from": "tools.text:4"},
                {"kind": "tool", "name": "add", "from": "tools.math:9", "registeredByHandInstead": true},
            ],
        });
        assert!(render_text(&info).ends_with(
            "prompts (0)\ndiscovered (2)\n  tool shout \u{2190} tools.text:4\n  tool add \u{2190} tools.math:9 (registered by hand instead)"
        ));
    }

    #[test]
    fn the_catalog_digests_close_the_text() {
        let info = json!({
            "server": {"name": "demo", "version": "1.0"}, "protocolVersion": "2026-07-28",
            "tools": [], "resources": [], "resourceTemplates": [], "prompts": [],
            "catalog": {
                "prompts/list": {"digest": "sha256:bb"},
                "tools/list": {"digest": "sha256:aa", "signature": "ed25519:s", "key": "ed25519:k"},
            },
        });
        let text = render_text(&info);
        assert!(
            text.ends_with("\ncatalog prompts/list: sha256:bb\ncatalog tools/list: sha256:aa signed by ed25519:k"),
            "{text}"
        );
    }

    #[test]
    fn results_and_errors() {
        let ok = json!({"content": [{"type": "text", "text": "42"}, {"type": "image", "data": "x", "mimeType": "image/png"}]});
        assert_eq!(
            render_result(&ok, false),
            (
                "42\n{\"data\":\"x\",\"mimeType\":\"image/png\",\"type\":\"image\"}\n".into(),
                None
            )
        );
        let err = json!({"isError": true, "content": [{"type": "text", "text": "bad"}]});
        assert_eq!(
            render_result(&err, false),
            (String::new(), Some("bad".into()))
        );
        let structured = json!({"content": [], "structuredContent": {"a": 1}});
        assert_eq!(render_result(&structured, false).0, "{\n  \"a\": 1\n}\n");
    }

    #[test]
    fn the_bar() {
        assert_eq!(
            bar_line("t", 1.0, Some(3.0)),
            format!("t:  33%|{}{}| 1/3", "=".repeat(10), " ".repeat(20))
        );
        assert_eq!(
            bar_line("t", 3.0, Some(3.0)),
            format!("t: 100%|{}| 3/3", "=".repeat(30))
        );
        assert_eq!(bar_line("t", 2.5, None), "t: 2.5");
    }
}
