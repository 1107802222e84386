//! The command's MCP client: one connection to a server, over stdio (a process it starts) or
//! Streamable HTTP (a URL), speaking the 2025-11-25 revision (the `initialize` handshake every
//! server of the field answers). Requests go one at a time, as the verbs need; the server's own
//! requests are answered (`ping`) or refused, and progress notifications go to a callback.

use super::target::Target;
use super::CliError;
use bytes::Bytes;
use http_body_util::BodyExt;
use serde_json::{json, Map, Value};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

/// The revision the client asks for; a server may answer with an older one.
const PROTOCOL_VERSION: &str = "2025-11-25";
/// A server's stderr kept for an error message: its last lines.
const STDERR_TAIL_LINES: usize = 30;
/// The most bytes of a server's stderr kept while it starts.
const STDERR_MAX_BYTES: usize = 1 << 20;
/// The most pages one list may take (a server whose cursors never end is an error, not a hang).
pub(crate) const MAX_PAGES: usize = 10_000;
/// The most bytes of one message from a server.
const MAX_MESSAGE_BYTES: usize = 64 << 20;

pub(crate) type OnProgress<'a> = &'a mut (dyn FnMut(&Value) + Send);

/// A ready connection and what `initialize` answered.
pub(crate) struct Client {
    conn: Conn,
    next_id: u64,
    pub(crate) init: Value,
    /// The stderr of a server this client started (its first [`STDERR_MAX_BYTES`]).
    stderr: Option<Arc<Mutex<String>>>,
}

enum Conn {
    Stdio(Box<Stdio>),
    Http(Http),
}

struct Stdio {
    // Kept so that dropping the client ends the server (kill_on_drop).
    _child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

struct Http {
    url: String,
    session: Option<String>,
    version: Option<String>,
}

/// A JSON-RPC error the server answered, or the connection failing.
#[derive(Debug)]
pub(crate) enum RpcError {
    Server { message: String },
    Closed(String),
}

impl RpcError {
    pub(crate) fn message(&self) -> &str {
        match self {
            RpcError::Server { message } | RpcError::Closed(message) => message,
        }
    }
}

/// The last non-blank lines of a captured stderr.
fn tail(text: &str) -> String {
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    lines[lines.len().saturating_sub(STDERR_TAIL_LINES)..].join("\n")
}

fn secs(t: f64) -> String {
    format!("{t}")
}

impl Client {
    /// Start or reach the server and complete `initialize` within `timeout` seconds.
    pub(crate) async fn connect(target: &Target, timeout: f64) -> Result<Client, CliError> {
        let limit = Duration::from_secs_f64(timeout);
        match target {
            Target::Url(url) => {
                check_reachable(url).await?;
                let conn = Conn::Http(Http {
                    url: url.clone(),
                    session: None,
                    version: None,
                });
                let mut client = Client {
                    conn,
                    next_id: 0,
                    init: Value::Null,
                    stderr: None,
                };
                match tokio::time::timeout(limit, client.initialize()).await {
                    Ok(Ok(())) => Ok(client),
                    Ok(Err(e)) => Err(CliError::new(format!("{url}: {}", e.message()))),
                    Err(_) => Err(CliError::new(format!(
                        "{url} did not answer initialize within {}s",
                        secs(timeout)
                    ))),
                }
            }
            Target::Command(cmd) => {
                let mut child = Command::new(&cmd[0])
                    .args(&cmd[1..])
                    .stdin(std::process::Stdio::piped())
                    .stdout(std::process::Stdio::piped())
                    .stderr(std::process::Stdio::piped())
                    .kill_on_drop(true)
                    .spawn()
                    .map_err(|e| {
                        if e.kind() == std::io::ErrorKind::NotFound {
                            CliError::new(format!("cannot start {}: command not found", cmd[0]))
                        } else {
                            CliError::new(format!("cannot start {}: {e}", cmd[0]))
                        }
                    })?;
                let stderr = Arc::new(Mutex::new(String::new()));
                let mut err_pipe = child.stderr.take().expect("piped");
                let sink = stderr.clone();
                let stderr_done = tokio::spawn(async move {
                    let mut buf = vec![0u8; 8192];
                    while let Ok(n) = err_pipe.read(&mut buf).await {
                        if n == 0 {
                            break;
                        }
                        let mut s = sink.lock().unwrap_or_else(|p| p.into_inner());
                        if s.len() < STDERR_MAX_BYTES {
                            s.push_str(&String::from_utf8_lossy(&buf[..n]));
                        }
                    }
                });
                let stdin = child.stdin.take().expect("piped");
                let stdout = BufReader::new(child.stdout.take().expect("piped"));
                let mut client = Client {
                    conn: Conn::Stdio(Box::new(Stdio {
                        _child: child,
                        stdin,
                        stdout,
                    })),
                    next_id: 0,
                    init: Value::Null,
                    stderr: Some(stderr.clone()),
                };
                let captured = |stderr: &Arc<Mutex<String>>| {
                    tail(&stderr.lock().unwrap_or_else(|p| p.into_inner()))
                };
                match tokio::time::timeout(limit, client.initialize()).await {
                    Ok(Ok(())) => Ok(client),
                    Ok(Err(e)) => {
                        // The server is gone: let its last stderr bytes arrive first.
                        let _ = tokio::time::timeout(Duration::from_secs(2), stderr_done).await;
                        let t = captured(&stderr);
                        let head = if t.is_empty() {
                            format!("the server exited at start ({})", e.message())
                        } else {
                            "the server exited at start; its stderr:".to_string()
                        };
                        Err(CliError::with_detail(head, t))
                    }
                    Err(_) => Err(CliError::with_detail(
                        format!(
                            "the server did not answer initialize within {}s",
                            secs(timeout)
                        ),
                        captured(&stderr),
                    )),
                }
            }
        }
    }

    /// What the server this client started said it discovered, and from where: its stderr's
    /// `discovered: KIND NAME ← MODULE:LINE` lines (the hosts' `oxmcp run` writes one for every
    /// discovered primitive before it serves). Empty for a server reached by URL.
    pub(crate) fn discovered(&self) -> Vec<Value> {
        let Some(stderr) = &self.stderr else {
            return Vec::new();
        };
        let text = stderr.lock().unwrap_or_else(|p| p.into_inner()).clone();
        text.lines()
            .filter_map(|l| l.strip_prefix("discovered: "))
            .filter_map(|l| {
                let (what, origin) = l.split_once(" \u{2190} ")?;
                // The kind may be two words ("resource template"); a name never has a space.
                let (kind, name) = what.rsplit_once(' ')?;
                let (origin, by_hand) = match origin.strip_suffix(" (registered by hand instead)") {
                    Some(o) => (o, true),
                    None => (origin, false),
                };
                let mut d = json!({"kind": kind, "name": name, "from": origin});
                if by_hand {
                    d["registeredByHandInstead"] = json!(true);
                }
                Some(d)
            })
            .collect()
    }

    async fn initialize(&mut self) -> Result<(), RpcError> {
        let params = json!({
            "protocolVersion": PROTOCOL_VERSION,
            "capabilities": {},
            "clientInfo": {"name": "oxmcp-cli", "version": env!("CARGO_PKG_VERSION")},
        });
        let init = self.request("initialize", params, &mut |_| {}).await?;
        if let Conn::Http(h) = &mut self.conn {
            h.version = init
                .get("protocolVersion")
                .and_then(Value::as_str)
                .map(str::to_string);
        }
        self.init = init;
        self.notify("notifications/initialized").await
    }

    /// One request; its progress notifications go to `on_progress`.
    pub(crate) async fn request(
        &mut self,
        method: &str,
        params: Value,
        on_progress: OnProgress<'_>,
    ) -> Result<Value, RpcError> {
        self.next_id += 1;
        let id = self.next_id;
        let msg = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        match &mut self.conn {
            Conn::Stdio(s) => s.request(id, &msg, on_progress).await,
            Conn::Http(h) => h.request(id, &msg, on_progress).await,
        }
    }

    async fn notify(&mut self, method: &str) -> Result<(), RpcError> {
        let msg = json!({"jsonrpc": "2.0", "method": method});
        match &mut self.conn {
            Conn::Stdio(s) => s.send(&msg).await,
            Conn::Http(h) => h.post(&msg).await.map(|_| ()),
        }
    }

    /// Every page of a list: the items under `key`, and each page's `_meta`.
    pub(crate) async fn list_all(
        &mut self,
        method: &str,
        key: &str,
    ) -> Result<(Vec<Value>, Vec<Map<String, Value>>), CliError> {
        let mut items = Vec::new();
        let mut metas = Vec::new();
        let mut cursor: Option<String> = None;
        for _ in 0..MAX_PAGES {
            let params = match &cursor {
                Some(c) => json!({"cursor": c}),
                None => json!({}),
            };
            let page = self
                .request(method, params, &mut |_| {})
                .await
                .map_err(|e| CliError::new(format!("{method} failed: {}", e.message())))?;
            if let Some(Value::Array(list)) = page.get(key) {
                items.extend(list.iter().cloned());
            }
            if let Some(Value::Object(meta)) = page.get("_meta") {
                metas.push(meta.clone());
            } else {
                metas.push(Map::new());
            }
            cursor = page
                .get("nextCursor")
                .and_then(Value::as_str)
                .filter(|c| !c.is_empty())
                .map(str::to_string);
            if cursor.is_none() {
                return Ok((items, metas));
            }
        }
        Err(CliError::new(format!(
            "{method}: more than {MAX_PAGES} pages; giving up"
        )))
    }
}

/// What a message from the server is to the request waiting on `id`.
enum Incoming {
    Answer(Result<Value, RpcError>),
    /// A request of the server's own: answer it with this message.
    Reply(Value),
    Other,
}

fn classify(msg: Value, id: u64, on_progress: OnProgress<'_>) -> Incoming {
    let is_ours = msg.get("id").and_then(Value::as_u64) == Some(id);
    if let Some(method) = msg.get("method").and_then(Value::as_str) {
        if method == "notifications/progress" {
            if let Some(p) = msg.get("params") {
                on_progress(p);
            }
            return Incoming::Other;
        }
        return match msg.get("id") {
            Some(rid) if method == "ping" => {
                Incoming::Reply(json!({"jsonrpc": "2.0", "id": rid, "result": {}}))
            }
            Some(rid) => Incoming::Reply(json!({"jsonrpc": "2.0", "id": rid,
                "error": {"code": -32601, "message": format!("the oxmcp command does not answer {method}")}})),
            None => Incoming::Other,
        };
    }
    if !is_ours {
        return Incoming::Other;
    }
    if let Some(err) = msg.get("error") {
        let message = err
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or("error")
            .to_string();
        return Incoming::Answer(Err(RpcError::Server { message }));
    }
    Incoming::Answer(Ok(msg.get("result").cloned().unwrap_or(Value::Null)))
}

impl Stdio {
    async fn send(&mut self, msg: &Value) -> Result<(), RpcError> {
        let mut line = serde_json::to_vec(msg).expect("a Value serializes");
        line.push(b'\n');
        self.stdin
            .write_all(&line)
            .await
            .map_err(|e| RpcError::Closed(format!("writing to the server: {e}")))?;
        self.stdin
            .flush()
            .await
            .map_err(|e| RpcError::Closed(format!("writing to the server: {e}")))
    }

    async fn request(
        &mut self,
        id: u64,
        msg: &Value,
        on_progress: OnProgress<'_>,
    ) -> Result<Value, RpcError> {
        self.send(msg).await?;
        let mut line = Vec::new();
        loop {
            line.clear();
            let n = (&mut self.stdout)
                .take(MAX_MESSAGE_BYTES as u64)
                .read_until(b'\n', &mut line)
                .await
                .map_err(|e| RpcError::Closed(format!("reading from the server: {e}")))?;
            if n == 0 {
                return Err(RpcError::Closed("the server closed its output".into()));
            }
            // A line that is not JSON (a stray print) is skipped, as the official clients do.
            let Ok(value) = serde_json::from_slice::<Value>(&line) else {
                continue;
            };
            match classify(value, id, on_progress) {
                Incoming::Answer(a) => return a,
                Incoming::Reply(r) => self.send(&r).await?,
                Incoming::Other => {}
            }
        }
    }
}

impl Http {
    fn build(&self, msg: &Value) -> http::Request<Bytes> {
        let mut req = http::Request::post(&self.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream");
        if let Some(s) = &self.session {
            req = req.header("mcp-session-id", s);
        }
        if let Some(v) = &self.version {
            req = req.header("mcp-protocol-version", v);
        }
        req.body(Bytes::from(
            serde_json::to_vec(msg).expect("a Value serializes"),
        ))
        .expect("a valid request")
    }

    async fn post(
        &mut self,
        msg: &Value,
    ) -> Result<http::Response<hyper::body::Incoming>, RpcError> {
        let resp = crate::http_client::open(self.build(msg))
            .await
            .map_err(RpcError::Closed)?;
        if let Some(s) = resp
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
        {
            self.session = Some(s.to_string());
        }
        Ok(resp)
    }

    async fn request(
        &mut self,
        id: u64,
        msg: &Value,
        on_progress: OnProgress<'_>,
    ) -> Result<Value, RpcError> {
        let resp = self.post(msg).await?;
        let status = resp.status();
        let sse = resp
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("text/event-stream"));
        let mut body = resp.into_body();
        if !sse {
            let bytes = http_body_util::Limited::new(body, MAX_MESSAGE_BYTES)
                .collect()
                .await
                .map_err(|e| RpcError::Closed(format!("reading the answer: {e}")))?
                .to_bytes();
            let Ok(value) = serde_json::from_slice::<Value>(&bytes) else {
                let text = String::from_utf8_lossy(&bytes);
                return Err(RpcError::Closed(format!(
                    "HTTP {status}: {}",
                    text.chars().take(200).collect::<String>()
                )));
            };
            return match classify(value, id, on_progress) {
                Incoming::Answer(a) => a,
                _ => Err(RpcError::Closed(format!("HTTP {status}: no answer"))),
            };
        }
        // An SSE stream: events until the one that answers this request.
        let mut buf: Vec<u8> = Vec::new();
        loop {
            let frame = match body.frame().await {
                Some(Ok(f)) => f,
                Some(Err(e)) => return Err(RpcError::Closed(format!("reading the stream: {e}"))),
                None => return Err(RpcError::Closed("the stream ended with no answer".into())),
            };
            let Ok(data) = frame.into_data() else {
                continue;
            };
            buf.extend_from_slice(&data);
            if buf.len() > MAX_MESSAGE_BYTES {
                return Err(RpcError::Closed("an event over the size limit".into()));
            }
            while let Some((event, rest)) = split_event(&buf) {
                let payload = event_data(&event);
                buf = rest;
                let Some(value) = payload.and_then(|d| serde_json::from_str::<Value>(&d).ok())
                else {
                    continue;
                };
                match classify(value, id, on_progress) {
                    Incoming::Answer(a) => return a,
                    Incoming::Reply(r) => {
                        self.post(&r).await?;
                    }
                    Incoming::Other => {}
                }
            }
        }
    }
}

/// The first complete event of an SSE buffer (up to a blank line) and the rest.
fn split_event(buf: &[u8]) -> Option<(String, Vec<u8>)> {
    let text = std::str::from_utf8(buf).ok()?;
    let normalized_end = ["\r\n\r\n", "\n\n", "\r\r"]
        .iter()
        .filter_map(|sep| text.find(sep).map(|i| (i, sep.len())))
        .min_by_key(|(i, _)| *i)?;
    let (i, len) = normalized_end;
    Some((text[..i].to_string(), buf[i + len..].to_vec()))
}

/// The `data:` lines of one event, joined.
fn event_data(event: &str) -> Option<String> {
    let lines: Vec<&str> = event
        .lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .map(|l| l.strip_prefix(' ').unwrap_or(l))
        .collect();
    (!lines.is_empty()).then(|| lines.join("\n"))
}

/// A refused connection is a one-line error before any HTTP is tried.
async fn check_reachable(url: &str) -> Result<(), CliError> {
    let uri: http::Uri = url
        .parse()
        .map_err(|e| CliError::new(format!("{url}: not a URL: {e}")))?;
    let host = uri
        .host()
        .unwrap_or("127.0.0.1")
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_string();
    let port = uri
        .port_u16()
        .unwrap_or(if uri.scheme_str() == Some("https") {
            443
        } else {
            80
        });
    let connect = tokio::net::TcpStream::connect((host.as_str(), port));
    match tokio::time::timeout(Duration::from_secs(5), connect).await {
        Ok(Ok(_)) => Ok(()),
        Ok(Err(e)) if e.kind() == std::io::ErrorKind::ConnectionRefused => Err(CliError::new(
            format!("cannot connect to {url}: connection refused"),
        )),
        Ok(Err(e)) => Err(CliError::new(format!("cannot connect to {url}: {e}"))),
        Err(_) => Err(CliError::new(format!("cannot connect to {url}: timed out"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sse_events_split_on_blank_lines() {
        let buf = b"event: message\ndata: {\"a\":1}\n\ndata: x".to_vec();
        let (event, rest) = split_event(&buf).unwrap();
        assert_eq!(event_data(&event).as_deref(), Some("{\"a\":1}"));
        assert_eq!(rest, b"data: x");
        assert!(split_event(&rest).is_none());
    }

    #[test]
    fn a_server_request_is_answered_and_progress_reported() {
        let mut seen = Vec::new();
        let mut cb = |p: &Value| seen.push(p.clone());
        let ping = classify(
            json!({"jsonrpc":"2.0","id":"s1","method":"ping"}),
            1,
            &mut cb,
        );
        assert!(matches!(ping, Incoming::Reply(r) if r["result"] == json!({})));
        let prog =
            json!({"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}});
        assert!(matches!(classify(prog, 1, &mut cb), Incoming::Other));
        let other = classify(json!({"jsonrpc":"2.0","id":2,"result":{}}), 1, &mut cb);
        assert!(matches!(other, Incoming::Other));
        let err = classify(
            json!({"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"bad"}}),
            1,
            &mut cb,
        );
        assert!(
            matches!(err, Incoming::Answer(Err(RpcError::Server { message })) if message == "bad")
        );
        assert_eq!(seen, vec![json!({"progress":1})]);
    }
}
