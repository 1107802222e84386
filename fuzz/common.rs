//! The fuzz harnesses, shared by the libFuzzer targets (fuzz/fuzz_targets/) and the bounded
//! randomized test that runs in plain `cargo test` (core/tests/fuzz_smoke.rs).
//!
//! Invariants checked on every input: nothing panics, every response is a well-formed HTTP
//! answer whose JSON body (if any) parses, every stdio output line is one JSON object, and no
//! tool handler runs for a request the transport rejected.

#![allow(dead_code, unreachable_pub)]

use bytes::Bytes;
use http::{HeaderMap, HeaderName, HeaderValue, Method};
use oxmcp::auth::{Allow, Auth, NamedTokens};
use oxmcp::transport::http::{HttpConfig, HttpHandler, HttpRequest, ResponseBody};
use oxmcp::transport::stdio::{serve_io, StdioConfig};
use oxmcp::{Context, Prompt, PromptResult, Resource, Server, Tool, ToolError, ToolResult};
use serde_json::{json, Map, Value};
use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

/// Handler runs, to check that rejected requests never reach a handler.
pub static HANDLER_RUNS: AtomicUsize = AtomicUsize::new(0);

pub fn server() -> Server {
    Server::builder("fuzz", "0")
        .tool(
            Tool::new(
                "echo",
                json!({"type":"object","properties":{"text":{"type":"string","maxLength":64},"n":{"type":"integer"}},"required":["text"]}),
            )
            .handler(|a: Map<String, Value>, _c: Context| async move {
                HANDLER_RUNS.fetch_add(1, Ordering::SeqCst);
                Ok::<_, ToolError>(ToolResult::text(a.get("text").and_then(Value::as_str).unwrap_or_default().to_string()))
            }),
        )
        .tool(Tool::new("scoped", json!({"type":"object"})).required_scopes(["admin"]).handler(
            |_a: Map<String, Value>, _c: Context| async {
                HANDLER_RUNS.fetch_add(1, Ordering::SeqCst);
                Ok::<_, ToolError>(ToolResult::text("ok"))
            },
        ))
        .resource(Resource::text("file:///a.txt", "a", "text/plain", "A"))
        .prompt(
            Prompt::new("p")
                .argument("x", "an argument", false)
                .handler(|_a: Map<String, Value>, _c: Context| async { Ok::<_, ToolError>(PromptResult::new(vec![])) }),
        )
        .build()
        .expect("fuzz server")
}

struct Fixture {
    rt: tokio::runtime::Runtime,
    open: HttpHandler,
    authed: HttpHandler,
}

fn fixture() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        let (open, authed) = {
            let _in_rt = rt.enter();
            let addr = "127.0.0.1:8000".parse().expect("addr");
            let tokens = NamedTokens::new()
                .token("alice", "tok-a")
                .allow("alice", Allow::none().tools(["echo"]))
                .token("root", "tok-r");
            let open = HttpHandler::new(server(), HttpConfig::new(addr).max_body(64 * 1024));
            let auth = Arc::new(Auth::new().tokens(tokens));
            (
                open,
                HttpHandler::new(
                    server(),
                    HttpConfig::new(addr).max_body(64 * 1024).auth(auth),
                ),
            )
        };
        Fixture { rt, open, authed }
    })
}

/// Input layout: byte 0 picks method, path, auth and whether standard MCP headers are added;
/// then `name: value` header lines up to an empty line; the rest is the body.
pub fn http_input(data: &[u8]) {
    let Some((&flags, rest)) = data.split_first() else {
        return;
    };
    let method =
        [Method::POST, Method::GET, Method::DELETE, Method::PUT][usize::from(flags & 3)].clone();
    let path = [
        "/mcp",
        "/healthz",
        "/.well-known/oauth-protected-resource/mcp",
        "/other",
    ][usize::from((flags >> 3) & 3)];
    let (head, body) = match rest.windows(2).position(|w| w == b"\n\n") {
        Some(i) => (&rest[..i], &rest[i + 2..]),
        None => (&[][..], rest),
    };
    let mut headers = HeaderMap::new();
    headers.insert(
        http::header::HOST,
        HeaderValue::from_static("127.0.0.1:8000"),
    );
    if flags & 0x20 != 0 {
        headers.insert(
            http::header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        headers.insert(
            http::header::ACCEPT,
            HeaderValue::from_static("application/json, text/event-stream"),
        );
        headers.insert(
            "mcp-protocol-version",
            HeaderValue::from_static("2026-07-28"),
        );
        if let Ok(v) = serde_json::from_slice::<Value>(body) {
            if let Some(m) = v
                .get("method")
                .and_then(Value::as_str)
                .and_then(|m| HeaderValue::from_str(m).ok())
            {
                headers.insert("mcp-method", m);
            }
            let name = v
                .pointer("/params/name")
                .or_else(|| v.pointer("/params/uri"))
                .and_then(Value::as_str);
            if let Some(n) = name.and_then(|n| HeaderValue::from_str(n).ok()) {
                headers.insert("mcp-name", n);
            }
        }
    }
    if flags & 0x40 != 0 {
        headers.insert(
            http::header::AUTHORIZATION,
            HeaderValue::from_static("Bearer tok-a"),
        );
    }
    for line in head.split(|&b| b == b'\n') {
        let Some(i) = line.iter().position(|&b| b == b':') else {
            continue;
        };
        let (Ok(k), Ok(v)) = (
            HeaderName::from_bytes(&line[..i]),
            HeaderValue::from_bytes(line[i + 1..].trim_ascii()),
        ) else {
            continue;
        };
        headers.append(k, v);
    }
    let f = fixture();
    let handler = if flags & 4 != 0 { &f.authed } else { &f.open };
    let req = HttpRequest {
        method,
        path: path.to_string(),
        headers,
        body: Bytes::copy_from_slice(body),
    };
    let before = HANDLER_RUNS.load(Ordering::SeqCst);
    f.rt.block_on(async {
        let resp = handler.handle(req).await;
        let status = resp.status.as_u16();
        assert!((200..600).contains(&status));
        let json_body = resp
            .headers
            .get(http::header::CONTENT_TYPE)
            .is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
        match resp.body {
            ResponseBody::Full(b) if json_body => {
                serde_json::from_slice::<Value>(&b).expect("a JSON response body parses");
            }
            ResponseBody::Sse(mut rx) => {
                // Streams (listen) may stay open: read what is ready, briefly.
                let _ = tokio::time::timeout(Duration::from_millis(20), rx.recv()).await;
            }
            _ => {}
        }
        if status >= 400 && status != 403 && status != 404 {
            // Transport rejections (4xx other than a tool-level 403/404 from dispatch) never run
            // a handler.
            assert_eq!(
                HANDLER_RUNS.load(Ordering::SeqCst),
                before,
                "a handler ran for a rejected request ({status})"
            );
        }
    });
}

#[derive(Clone, Default)]
struct Sink(Arc<Mutex<Vec<u8>>>);
impl Write for Sink {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The stdio framer and dispatcher: the input is the whole of stdin.
pub fn stdio_input(data: &[u8]) {
    static SERVER: OnceLock<(tokio::runtime::Runtime, Server)> = OnceLock::new();
    let (rt, server) = SERVER.get_or_init(|| {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        let s = {
            let _in_rt = rt.enter();
            server()
        };
        (rt, s)
    });
    let out = Sink::default();
    let mut config = StdioConfig::default();
    config.max_line = 4096;
    config.drain_timeout = Duration::from_millis(200);
    let input = std::io::Cursor::new(data.to_vec());
    rt.block_on(serve_io(
        server.clone(),
        input,
        out.clone(),
        config,
        std::future::pending(),
    ))
    .expect("serve_io");
    let written = out.0.lock().unwrap_or_else(|e| e.into_inner()).clone();
    for line in written.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        let v: Value = serde_json::from_slice(line).expect("every stdout line is JSON");
        // One JSON-RPC object, or the array answering a 2025-03-26 batch.
        let one = |m: &Value| m.get("jsonrpc") == Some(&Value::from("2.0"));
        match &v {
            Value::Array(batch) => assert!(
                !batch.is_empty() && batch.iter().all(one),
                "a batch answer is a non-empty array of JSON-RPC objects: {v}"
            ),
            _ => assert!(one(&v), "every stdout line is one JSON-RPC message: {v}"),
        }
    }
}

/// A small deterministic mutator for the bounded randomized run (no fuzzing engine needed).
pub struct Mutator(u64);
impl Mutator {
    pub fn new(seed: u64) -> Self {
        Self(seed | 1)
    }
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    pub fn mutate(&mut self, seed: &[u8], dict: &[&[u8]]) -> Vec<u8> {
        let mut v = seed.to_vec();
        for _ in 0..=self.below(4) {
            match self.below(6) {
                0 if !v.is_empty() => {
                    let i = self.below(v.len());
                    v[i] = self.next() as u8;
                }
                1 if !v.is_empty() => {
                    let i = self.below(v.len());
                    let n = self.below(8).min(v.len() - i);
                    v.drain(i..i + n);
                }
                2 => {
                    let i = self.below(v.len() + 1);
                    let d = dict[self.below(dict.len())];
                    v.splice(i..i, d.iter().copied());
                }
                3 if !v.is_empty() => {
                    let (a, b) = (self.below(v.len()), self.below(v.len()));
                    let (a, b) = (a.min(b), a.max(b));
                    let chunk = v[a..b].to_vec();
                    let i = self.below(v.len() + 1);
                    v.splice(i..i, chunk);
                }
                4 if !v.is_empty() => {
                    let i = self.below(v.len());
                    v.truncate(i);
                }
                _ => {
                    let i = self.below(v.len() + 1);
                    v.insert(
                        i,
                        [b'{', b'}', b'[', b']', b'"', b'\\', b'\n', 0xff, b'0', b':']
                            [self.below(10)],
                    );
                }
            }
        }
        v
    }
}

/// Tokens for mutating URI templates, URIs and Host/Origin values.
pub const URI_DICT: &[&[u8]] = &[
    b"{",
    b"}",
    b"{+",
    b"{#",
    b"{.",
    b"{/",
    b"{;",
    b"{?",
    b"{&",
    b",",
    b"%2F",
    b"%2e%2E",
    b"..",
    b"/",
    b"?",
    b"#",
    b"&",
    b"=",
    b"\0",
    b"\xc3\xa9",
    b"[::1]",
    b"127.",
    b":",
    b"@",
    b"0x7f",
    b"http://",
    b"localhost",
    b"aaaaaaaaaaaaaaaa",
];

pub const DICT: &[&[u8]] = &[
    b"\"jsonrpc\":\"2.0\"",
    b"\"id\":1",
    b"\"id\":null",
    b"\"id\":1e400",
    b"\"method\":\"tools/call\"",
    b"\"method\":\"initialize\"",
    b"\"method\":\"subscriptions/listen\"",
    b"\"params\":{}",
    b"\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}}",
    b"\"name\":\"echo\"",
    b"\"arguments\":{\"text\":\"x\"}",
    b"\"requestState\":\"AAAA\"",
    b"\"cursor\":\"bzE=\"",
    b"[[[[[[[[",
    b"\xf0\x28\x8c\x28",
    b"\\ud800",
    b"authorization: Bearer tok-r\n",
    b"mcp-session-id: x\n",
    b"content-type: text/plain\n",
];

/// Seeds: well-formed requests of every kind, for both harnesses.
pub fn seeds() -> Vec<Vec<u8>> {
    let meta = json!({"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}});
    let msgs = [
        json!({"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":meta}}),
        json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},"_meta":meta}}),
        json!({"jsonrpc":"2.0","id":"s","method":"tools/call","params":{"name":"scoped","arguments":{},"_meta":meta}}),
        json!({"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"file:///a.txt","_meta":meta}}),
        json!({"jsonrpc":"2.0","id":4,"method":"prompts/get","params":{"name":"p","_meta":meta}}),
        json!({"jsonrpc":"2.0","id":5,"method":"server/discover","params":{"_meta":meta}}),
        json!({"jsonrpc":"2.0","id":6,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"f","version":"0"}}}),
        json!({"jsonrpc":"2.0","method":"notifications/initialized"}),
        json!([{"jsonrpc":"2.0","id":7,"method":"ping"}]),
    ];
    let mut out = Vec::new();
    for m in &msgs {
        let body = m.to_string();
        out.push([&[0x20u8][..], body.as_bytes()].concat());
        out.push([&[0x64u8][..], body.as_bytes()].concat());
        out.push(format!("{}\n", body).into_bytes());
    }
    out
}

/// The URI-template matcher: the input is a template and a URI separated
/// by the first NUL byte. Matching must never panic, must take steps linear in the URI's length,
/// and a match's simple values never carry a separator or a dot segment.
pub fn uri_template_input(data: &[u8]) {
    let Ok(s) = std::str::from_utf8(data) else {
        return;
    };
    let (template, uri) = s.split_once('\0').unwrap_or((s, s));
    let Ok(t) = oxmcp::uri_template::UriTemplate::parse(template) else {
        return;
    };
    let (m, steps) = t.matches_counting(uri);
    // Each template byte compiles to at most 8 instructions; each (position, instruction) is
    // visited a bounded number of times.
    let bound = 4 * (8 * template.len() + 1) * (uri.len() + 1);
    assert!(
        steps <= bound,
        "{steps} steps > {bound} for {template:?} / {} bytes",
        uri.len()
    );
    if let Some(m) = m {
        // A value is a string, or, for a query key an exploded `{?x*}` repeats, a list of them.
        for v in m.values() {
            let strings: Vec<&str> = match v {
                Value::Array(items) => items
                    .iter()
                    .map(|i| i.as_str().expect("a list of strings"))
                    .collect(),
                _ => vec![v.as_str().expect("string values")],
            };
            for v in strings {
                assert!(
                    !v.split(['/', '\\']).any(|seg| seg == ".."),
                    "a dot-dot segment got through: {v:?}"
                );
            }
        }
    }
}

/// The Host/Origin parser behind the DNS-rebinding guard: never panics,
/// and only an IP address that is loopback or the exact name `localhost` counts as loopback.
pub fn authority_input(data: &[u8]) {
    use oxmcp::authority::{Authority, Host, Origin};
    let Ok(s) = std::str::from_utf8(data) else {
        return;
    };
    for candidate in [Authority::parse(s), Origin::parse(s).map(|o| o.authority)]
        .into_iter()
        .flatten()
    {
        if candidate.is_loopback() {
            match &candidate.host {
                Host::Ip(ip) => assert!(ip.to_canonical().is_loopback(), "{s:?}"),
                Host::Name(n) => assert_eq!(n, "localhost", "{s:?}"),
            }
        }
        if let Host::Name(n) = &candidate.host {
            assert!(
                n.parse::<std::net::IpAddr>().is_err(),
                "an address parsed as a name: {s:?}"
            );
        }
    }
}

/// Seeds for [`uri_template_input`] and [`authority_input`].
pub fn uri_and_host_seeds() -> Vec<Vec<u8>> {
    [
        "test://template/{id}/data\0test://template/42/data",
        "file:///{+path}\0file:///a/../b",
        "user://{id}/profile{?fields}\0user://42/profile?fields=a%20b",
        "user://{id}/profile{?fields*}\0user://42/profile?fields=a&fields=..&fields=b",
        "x://{a}{b}{c}{#d}\0x://aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
        "x://{.a}{/b}{;c}{&d}\0x://.a/b;c=1&d=2",
        "127.0.0.1:8080",
        "[::1]:80",
        "localhost",
        "127.attacker.example",
        "http://127.0.0.1:3000",
        "http://[::ffff:127.0.0.1]",
    ]
    .iter()
    .map(|s| s.as_bytes().to_vec())
    .collect()
}
