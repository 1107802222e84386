//! loadgen: the oxmcp benchmark's load generator.
//!
//! Closed loop: N keep-alive HTTP/1.1 connections (TCP_NODELAY), each sending its
//! next POST as soon as the previous response is complete. One thread (pin it to
//! a core with `taskset`). Every response is checked: the status must be 200 and
//! the body must contain one of the `--expect` strings (when any are given);
//! anything else is counted as an error, never dropped.
//!
//! Open loop (`--rate R`): the same connections, but request k of connection i is due at
//! `start + (k + i/N) * N/R` (R requests per second in all, evenly spread), and its latency is
//! counted from when it was due, not from when it was sent: a server that falls behind is
//! charged for the wait it caused (no coordinated omission). The pacer sleeps until ~1 ms
//! before a due time and yields until it (tokio's timer ticks in milliseconds); how late sends
//! were is reported (`send_lag_p99_us`), so a loadgen that could not keep up is seen.
//!
//! Bounds: `--warmup` seconds (not measured), then `--duration` seconds or
//! `--max-requests` measured requests, whichever ends first; any request still in
//! flight 5 s after that is abandoned (hard stop), and so is any request slower
//! than `--timeout`.
//!
//! `LOADGEN_TRACE=FILE` also writes every measured answer to FILE, one line each: the
//! connection, when it was sent (ns after the measured window opened) and its latency (ns), after
//! a first line `# <the window's start, ns on CLOCK_MONOTONIC>` (bench/timeline.py lines it up
//! with the server's schedule).
//!
//! Prints one JSON object on stdout:
//!   {"rps":..,"ok":..,"errors":..,"p50_us":..,"p90_us":..,"p99_us":..,"max_us":..,...}
//!
//! Usage:
//!   loadgen --url http://127.0.0.1:PORT/mcp (--body JSON | --body-file F)
//!           [-H 'Name: value']... [-c 16] [-d 10] [-w 2] [--max-requests N]
//!           [--expect '"text":"3"']... [--timeout 10] [--rate R]

use std::cell::RefCell;
use std::rc::Rc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http1::{self, SendRequest};
use hyper::header::{HeaderName, HeaderValue, HOST};
use hyper::{Method, Request};
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;

const HARD_STOP_GRACE: Duration = Duration::from_secs(5);

struct Cfg {
    url: String,
    addr: String,
    path: String,
    headers: Vec<(HeaderName, HeaderValue)>,
    body: Bytes,
    conns: usize,
    warmup: Duration,
    duration: Duration,
    max_requests: u64,
    expect: Vec<Vec<u8>>,
    timeout: Duration,
    /// Open loop: requests per second over all connections.
    rate: Option<f64>,
}

#[derive(Default)]
struct Tally {
    issued: u64,
    ok: u64,
    bad_status: u64,
    bad_body: u64,
    io_errors: u64,
    timeouts: u64,
    warmup_ok: u64,
    warmup_errors: u64,
    /// Measured requests still unanswered when the hard stop came (counted as errors).
    abandoned: u64,
    in_flight: u64,
    connects: u64,
    first_error: Option<String>,
    lat_ns: Vec<u64>,
    /// Open loop: how late each measured request was sent after it was due.
    lag_ns: Vec<u64>,
    /// `LOADGEN_TRACE`: every measured answer as (connection, sent after the window opened,
    /// latency), in ns.
    trace: Option<Vec<(usize, u64, u64)>>,
}

impl Tally {
    fn note(&mut self, e: String) {
        if self.first_error.is_none() {
            self.first_error = Some(e);
        }
    }
}

fn die(msg: &str) -> ! {
    eprintln!("loadgen: {msg}");
    eprintln!(
        "usage: loadgen --url http://HOST:PORT/PATH (--body S | --body-file F) [-H 'K: V']... \
         [-c N] [-d SECS] [-w SECS] [--max-requests N] [--expect S]... [--timeout SECS] [--rate R]"
    );
    std::process::exit(2)
}

fn parse() -> Cfg {
    let mut url = None;
    let mut body = None;
    let mut headers = Vec::new();
    let (mut conns, mut duration, mut warmup, mut timeout) = (1usize, 10.0f64, 2.0f64, 10.0f64);
    let mut max_requests = 5_000_000u64;
    let mut rate = None;
    let mut expect = Vec::new();
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut val = || it.next().unwrap_or_else(|| die(&format!("{flag} needs a value")));
        let num = |s: String| s.parse::<f64>().unwrap_or_else(|_| die(&format!("not a number: {s}")));
        match flag.as_str() {
            "--url" => url = Some(val()),
            "--body" => body = Some(val().into_bytes()),
            "--body-file" => {
                let p = val();
                body = Some(std::fs::read(&p).unwrap_or_else(|e| die(&format!("{p}: {e}"))));
            }
            "-H" | "--header" => {
                let h = val();
                let (k, v) = h.split_once(':').unwrap_or_else(|| die("header must be 'Name: value'"));
                let k = HeaderName::from_bytes(k.trim().as_bytes()).unwrap_or_else(|_| die("bad header name"));
                let v = HeaderValue::from_str(v.trim()).unwrap_or_else(|_| die("bad header value"));
                headers.push((k, v));
            }
            "-c" | "--connections" => conns = num(val()) as usize,
            "-d" | "--duration" => duration = num(val()),
            "-w" | "--warmup" => warmup = num(val()),
            "--timeout" => timeout = num(val()),
            "--max-requests" => max_requests = num(val()) as u64,
            "--expect" => expect.push(val().into_bytes()),
            "--rate" => rate = Some(num(val())),
            other => die(&format!("unknown argument {other}")),
        }
    }
    let url = url.unwrap_or_else(|| die("--url is required"));
    let rest = url.strip_prefix("http://").unwrap_or_else(|| die("only http:// URLs"));
    let (addr, path) = match rest.find('/') {
        Some(i) => (rest[..i].to_string(), rest[i..].to_string()),
        None => (rest.to_string(), "/".to_string()),
    };
    if !(1..=4096).contains(&conns) {
        die("-c must be in 1..=4096");
    }
    if !(duration > 0.0 && duration <= 600.0) || !(0.0..=120.0).contains(&warmup) || !(timeout > 0.0 && timeout <= 120.0) {
        die("-d must be in (0, 600], -w in [0, 120], --timeout in (0, 120]");
    }
    if max_requests == 0 {
        die("--max-requests must be > 0");
    }
    if rate.is_some_and(|r| !(r > 0.0 && r <= 1e6)) {
        die("--rate must be in (0, 1e6]");
    }
    Cfg {
        url,
        addr,
        path,
        headers,
        body: Bytes::from(body.unwrap_or_else(|| die("--body or --body-file is required"))),
        conns,
        warmup: Duration::from_secs_f64(warmup),
        duration: Duration::from_secs_f64(duration),
        max_requests,
        expect,
        timeout: Duration::from_secs_f64(timeout),
        rate,
    }
}

/// Wait until `due`: sleep to within a millisecond of it, then yield (the timer's resolution
/// is a millisecond; the loadgen has its own core, so yielding costs nobody else).
async fn pace(due: Instant) {
    let coarse = Duration::from_micros(1500);
    if let Some(left) = due.checked_duration_since(Instant::now()) {
        if left > coarse {
            tokio::time::sleep_until((due - coarse).into()).await;
        }
    }
    while Instant::now() < due {
        tokio::task::yield_now().await;
    }
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    needle.is_empty() || hay.windows(needle.len()).any(|w| w == needle)
}

async fn connect(cfg: &Cfg) -> Result<SendRequest<Full<Bytes>>, String> {
    let tcp = TcpStream::connect(&cfg.addr).await.map_err(|e| format!("connect {}: {e}", cfg.addr))?;
    tcp.set_nodelay(true).map_err(|e| format!("TCP_NODELAY: {e}"))?;
    let (send, conn) = http1::handshake(TokioIo::new(tcp)).await.map_err(|e| format!("handshake: {e}"))?;
    tokio::task::spawn_local(async move {
        let _ = conn.await;
    });
    Ok(send)
}

enum Outcome {
    Ok,
    BadStatus(String),
    BadBody(String),
    Io(String),
    Timeout,
}

async fn one(cfg: &Cfg, send: &mut SendRequest<Full<Bytes>>) -> Outcome {
    let mut req = Request::builder().method(Method::POST).uri(cfg.path.as_str()).header(HOST, cfg.addr.as_str());
    for (k, v) in &cfg.headers {
        req = req.header(k, v);
    }
    let req = req.body(Full::new(cfg.body.clone())).expect("request");
    let fut = async {
        let resp = send.send_request(req).await.map_err(|e| format!("send: {e}"))?;
        let status = resp.status().as_u16();
        let body = resp.into_body().collect().await.map_err(|e| format!("body: {e}"))?.to_bytes();
        Ok::<_, String>((status, body))
    };
    match tokio::time::timeout(cfg.timeout, fut).await {
        Err(_) => Outcome::Timeout,
        Ok(Err(e)) => Outcome::Io(e),
        Ok(Ok((status, body))) => {
            let snippet = || String::from_utf8_lossy(&body[..body.len().min(300)]).into_owned();
            if status != 200 {
                Outcome::BadStatus(format!("HTTP {status}: {}", snippet()))
            } else if !cfg.expect.is_empty() && !cfg.expect.iter().any(|n| contains(&body, n)) {
                Outcome::BadBody(format!("unexpected body ({} bytes): {}", body.len(), snippet()))
            } else {
                Outcome::Ok
            }
        }
    }
}

async fn worker(cfg: Rc<Cfg>, tally: Rc<RefCell<Tally>>, i: usize, t_start: Instant, t_measure: Instant, t_end: Instant) {
    let mut send: Option<SendRequest<Full<Bytes>>> = None;
    // Open loop: this connection's period and its next due time (staggered by its index).
    let period = cfg.rate.map(|r| Duration::from_secs_f64(cfg.conns as f64 / r));
    let mut due = period.map(|p| t_start + p.mul_f64(i as f64 / cfg.conns as f64));
    loop {
        if let Some(d) = due {
            if d >= t_end {
                return;
            }
            pace(d).await;
        }
        let now = Instant::now();
        if now >= t_end {
            return;
        }
        let measuring = now >= t_measure;
        if measuring {
            let mut t = tally.borrow_mut();
            if t.issued >= cfg.max_requests {
                return;
            }
            t.issued += 1;
        }
        if send.is_none() {
            match connect(&cfg).await {
                Ok(s) => {
                    tally.borrow_mut().connects += 1;
                    send = Some(s);
                }
                Err(e) => {
                    let mut t = tally.borrow_mut();
                    if measuring { t.io_errors += 1 } else { t.warmup_errors += 1 }
                    t.note(e);
                    drop(t);
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    continue;
                }
            }
        }
        let s = send.as_mut().expect("connected");
        if s.ready().await.is_err() {
            send = None; // the server closed the keep-alive connection: reconnect
            continue;
        }
        let sent = Instant::now();
        // Open loop: counted from the due time, which then moves on by one period.
        let t0 = match (due, period) {
            (Some(d), Some(p)) => {
                due = Some(d + p);
                if measuring {
                    tally.borrow_mut().lag_ns.push(sent.saturating_duration_since(d).as_nanos() as u64);
                }
                d.min(sent)
            }
            _ => sent,
        };
        if measuring {
            tally.borrow_mut().in_flight += 1;
        }
        let outcome = one(&cfg, s).await;
        let ns = t0.elapsed().as_nanos() as u64;
        let mut t = tally.borrow_mut();
        if measuring {
            t.in_flight -= 1;
        }
        if !measuring {
            match outcome {
                Outcome::Ok => t.warmup_ok += 1,
                Outcome::Io(_) | Outcome::Timeout => {
                    t.warmup_errors += 1;
                    send = None;
                }
                _ => t.warmup_errors += 1,
            }
            continue;
        }
        match outcome {
            Outcome::Ok => {
                t.ok += 1;
                t.lat_ns.push(ns);
                if let Some(tr) = t.trace.as_mut() {
                    tr.push((i, sent.saturating_duration_since(t_measure).as_nanos() as u64, ns));
                }
            }
            Outcome::BadStatus(e) => {
                t.bad_status += 1;
                t.note(e);
            }
            Outcome::BadBody(e) => {
                t.bad_body += 1;
                t.note(e);
            }
            Outcome::Io(e) => {
                t.io_errors += 1;
                t.note(e);
                send = None;
            }
            Outcome::Timeout => {
                t.timeouts += 1;
                t.note("request timed out".into());
                send = None;
            }
        }
    }
}

/// An `Instant` as ns on CLOCK_MONOTONIC, read from its Debug form (`Instant { tv_sec: S,
/// tv_nsec: N }` on Linux; std offers no accessor, and this crate has no libc): 0 if that form
/// ever changes, which only unhooks bench/timeline.py's two clocks.
fn monotonic_ns(i: Instant) -> u64 {
    let dbg = format!("{i:?}");
    let field = |k: &str| -> Option<u64> {
        let rest = dbg.split(k).nth(1)?.trim_start_matches([':', ' ']);
        rest.split(|c: char| !c.is_ascii_digit()).next()?.parse().ok()
    };
    match (field("tv_sec"), field("tv_nsec")) {
        (Some(s), Some(n)) => s * 1_000_000_000 + n,
        _ => 0,
    }
}

fn json_str(s: &str) -> String {
    let mut o = String::with_capacity(s.len() + 2);
    o.push('"');
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            c if (c as u32) < 0x20 => o.push_str(&format!("\\u{:04x}", c as u32)),
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

fn main() {
    let cfg = Rc::new(parse());
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("tokio runtime");
    let local = tokio::task::LocalSet::new();
    let cap = (cfg.max_requests as usize).min(20_000_000);
    let tally = Rc::new(RefCell::new(Tally {
        lat_ns: Vec::with_capacity(cap.min(1 << 20)),
        trace: std::env::var_os("LOADGEN_TRACE").map(|_| Vec::with_capacity(cap.min(1 << 20))),
        ..Default::default()
    }));
    let t_start = Instant::now();
    let t_measure = t_start + cfg.warmup;
    let t_end = t_measure + cfg.duration;
    let (stopped, hard_stopped) = local.block_on(&rt, async {
        let tasks: Vec<_> = (0..cfg.conns)
            .map(|i| tokio::task::spawn_local(worker(cfg.clone(), tally.clone(), i, t_start, t_measure, t_end)))
            .collect();
        let aborts: Vec<_> = tasks.iter().map(|t| t.abort_handle()).collect();
        let all = async {
            for t in tasks {
                let _ = t.await;
            }
        };
        let hard = tokio::time::timeout_at((t_end + HARD_STOP_GRACE).into(), all).await.is_err();
        if hard {
            aborts.iter().for_each(|a| a.abort());
        }
        (Instant::now(), hard)
    });
    let mut t = tally.borrow_mut();
    if let (Some(tr), Some(path)) = (t.trace.as_ref(), std::env::var_os("LOADGEN_TRACE")) {
        let text: String = std::iter::once(format!("# {}\n", monotonic_ns(t_measure)))
            .chain(tr.iter().map(|(i, s, l)| format!("{i} {s} {l}\n")))
            .collect();
        if let Err(e) = std::fs::write(&path, text) {
            eprintln!("loadgen: cannot write LOADGEN_TRACE {}: {e}", path.to_string_lossy());
        }
    }
    let abandoned = t.in_flight;
    t.abandoned = abandoned;
    if abandoned > 0 {
        t.note(format!("{abandoned} requests unanswered at the hard stop"));
    }
    // The measured window ends at the configured end, or earlier when --max-requests stopped it.
    let window = stopped.min(t_end).saturating_duration_since(t_measure).as_secs_f64().max(1e-6);
    t.lag_ns.sort_unstable();
    let lag_p99 = match t.lag_ns.len() {
        0 => "null".to_string(),
        n => format!("{:.1}", t.lag_ns[((0.99 * n as f64).ceil() as usize).clamp(1, n) - 1] as f64 / 1000.0),
    };
    t.lat_ns.sort_unstable();
    let lat = &t.lat_ns;
    let pct = |q: f64| -> f64 {
        if lat.is_empty() {
            return 0.0;
        }
        let i = ((q * lat.len() as f64).ceil() as usize).clamp(1, lat.len()) - 1;
        lat[i] as f64 / 1000.0
    };
    let mean = if lat.is_empty() { 0.0 } else { lat.iter().sum::<u64>() as f64 / lat.len() as f64 / 1000.0 };
    let errors = t.bad_status + t.bad_body + t.io_errors + t.timeouts + t.abandoned;
    println!(
        "{{\"url\":{},\"connections\":{},\"warmup_s\":{},\"window_s\":{:.4},\"rps\":{:.1},\"ok\":{},\"errors\":{},\
         \"bad_status\":{},\"bad_body\":{},\"io_errors\":{},\"timeouts\":{},\"abandoned\":{},\"warmup_ok\":{},\"warmup_errors\":{},\
         \"connects\":{},\"hard_stopped\":{},\"p50_us\":{:.1},\"p90_us\":{:.1},\"p99_us\":{:.1},\"max_us\":{:.1},\
         \"mean_us\":{:.1},\"rate\":{},\"send_lag_p99_us\":{},\"first_error\":{}}}",
        json_str(&cfg.url),
        cfg.conns,
        cfg.warmup.as_secs_f64(),
        window,
        t.ok as f64 / window,
        t.ok,
        errors,
        t.bad_status,
        t.bad_body,
        t.io_errors,
        t.timeouts,
        t.abandoned,
        t.warmup_ok,
        t.warmup_errors,
        t.connects,
        hard_stopped,
        pct(0.50),
        pct(0.90),
        pct(0.99),
        pct(1.0),
        mean,
        cfg.rate.map_or("null".into(), |r| format!("{r}")),
        lag_p99,
        t.first_error.as_deref().map(json_str).unwrap_or_else(|| "null".into()),
    );
}
