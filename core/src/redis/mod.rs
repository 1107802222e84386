//! Redis, shared by the replicas of one deployment (feature `redis`): one [`Redis`] handle per
//! server holds the connection for commands, the pub/sub subscriber, the key prefix and this
//! process's replica id. What is built on it here: [`RedisBus`] (change events on every
//! replica), the shared rate-limit bucket (`limits`) and used-once ids (`auth`). The features
//! build their own stores on the same handle, beside the rest of the feature: task records and
//! quotas in `crate::tasks::redis`, legacy sessions in `RedisSessionStore`.
//!
//! Why a runtime of its own: `publish` is called from any thread (a Python handler's worker
//! thread, Node's event loop, a Rust task), most with no tokio runtime of ours entered. All Redis
//! I/O runs on one small current-thread runtime on a thread of its own ("oxmcp-redis"), started
//! on first use (a server that never needs Redis never starts it) and started again in a forked
//! child (whose copy of the thread does not exist). Callers on any runtime await its results.
//!
//! Why nothing connects eagerly: a 2026-07-28 stateless request needs no Redis, so a server must
//! start and serve those while Redis is down. The command connection is a lazy
//! `ConnectionManager` (it reconnects by itself after an I/O error); the subscriber task
//! reconnects with backoff and subscribes again to every channel it had.

mod bus;
mod rate;
mod seen;

pub use bus::RedisBus;
pub(crate) use rate::SharedRateLimit;
pub(crate) use seen::RedisSeen;

use ::redis::aio::{ConnectionManager, ConnectionManagerConfig};
use futures::future::BoxFuture;
use futures::StreamExt;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::Duration;
use tokio::sync::{broadcast, mpsc};

pub use ::redis::RedisError;

/// The key prefix by default: every key and channel of oxmcp starts with it.
pub const DEFAULT_PREFIX: &str = "oxmcp:";

/// How long one command (or a connection attempt) may take before it counts as a failure, by
/// default: a replica whose Redis is slow answers with its fallback instead of hanging its
/// clients. [`Redis::set_timeout`] changes it (a Redis further away than one round trip in this).
pub const COMMAND_TIMEOUT: Duration = Duration::from_secs(1);

/// Longest wait between two reconnection attempts of the subscriber.
const MAX_BACKOFF: Duration = Duration::from_secs(5);

/// How often the subscriber pings Redis (a half-open connection is noticed within this).
const PING_EVERY: Duration = Duration::from_secs(5);

/// What a channel's local receivers get.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Incoming {
    /// A message's payload, as published (by any replica, this one included).
    Message(Arc<[u8]>),
    /// The subscriber was disconnected and is subscribed again: messages published in between
    /// were missed (Redis pub/sub keeps nothing). Users that can, resynchronise (the bus tells
    /// listeners to re-list).
    Resubscribed,
}

struct Channels {
    map: Mutex<HashMap<String, broadcast::Sender<Incoming>>>,
}

impl Channels {
    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<String, broadcast::Sender<Incoming>>> {
        self.map.lock().unwrap_or_else(|e| e.into_inner())
    }
}

struct Shared {
    client: ::redis::Client,
    /// The URL without its password, for logs and errors.
    shown: String,
    prefix: String,
    replica: String,
    /// The I/O runtime of this process (pid) and, on it, the command connection.
    io: Mutex<Option<Io>>,
    channels: Arc<Channels>,
    /// Failed publishes since the last warning, and when that was (ms since `epoch`): one
    /// warning per 10 s, not one per event (a server registering 50 tools while Redis is down).
    unpublished: std::sync::atomic::AtomicU64,
    warned_ms: std::sync::atomic::AtomicU64,
    epoch: std::time::Instant,
    /// The command timeout, in ms (see [`COMMAND_TIMEOUT`]).
    timeout_ms: std::sync::atomic::AtomicU64,
    /// The server's Redis counters, when it keeps metrics (shared with the subscriber task).
    metrics: Arc<OnceLock<crate::metrics::RedisMetrics>>,
}

#[derive(Clone)]
struct Io {
    pid: u32,
    rt: tokio::runtime::Handle,
    conn: ConnectionManager,
    /// New channels for the subscriber task.
    subscribe: mpsc::UnboundedSender<String>,
}

/// The handle on one Redis (cheap to clone). See the module docs.
#[derive(Clone)]
pub struct Redis {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for Redis {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Redis")
            .field("url", &self.shared.shown)
            .field("prefix", &self.shared.prefix)
            .field("replica", &self.shared.replica)
            .finish()
    }
}

/// 64 random bits, hex.
fn replica_id() -> String {
    use rand::RngCore;
    let mut b = [0u8; 8];
    rand::thread_rng().fill_bytes(&mut b);
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// `text` (an error about `url`) with the URL's password, as written and percent-decoded,
/// replaced by `***`: an error text goes to logs and to whoever started the server.
pub fn scrub(text: &str, url: &str) -> String {
    let head = url.split_once('?').map_or(url, |(h, _)| h);
    let password = match (head.find("://"), head.rfind('@')) {
        (Some(s), Some(at)) if at > s + 3 => head[s + 3..at].split_once(':').map(|(_, p)| p),
        _ => None,
    };
    let mut out = text.replace(url, &redact(url));
    if let Some(p) = password.filter(|p| !p.is_empty()) {
        out = out.replace(p, "***");
        let decoded = percent_decode(p);
        if !decoded.is_empty() {
            out = out.replace(&decoded, "***");
        }
    }
    out
}

fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        match (
            b[i],
            b.get(i + 1).copied().and_then(hex),
            b.get(i + 2).copied().and_then(hex),
        ) {
            (b'%', Some(h), Some(l)) => {
                out.push((h * 16 + l) as u8);
                i += 3;
            }
            (c, _, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `redis://:secret@host/` → `redis://:***@host/`.
fn redact(url: &str) -> String {
    // `unix:///path?pass=...` carries the password in the query, as redis-rs reads it there.
    let (head, query) = match url.split_once('?') {
        Some((h, q)) => (h, Some(q)),
        None => (url, None),
    };
    let mut out = match (head.find("://"), head.rfind('@')) {
        (Some(s), Some(at)) if at > s + 3 => match head[s + 3..at].split_once(':') {
            Some((user, _)) => format!("{}{user}:***{}", &head[..s + 3], &head[at..]),
            None => head.to_string(),
        },
        _ => head.to_string(),
    };
    if let Some(q) = query {
        let pairs: Vec<String> = q
            .split('&')
            .map(|pair| match pair.split_once('=') {
                Some((k, _))
                    if k.eq_ignore_ascii_case("pass") || k.eq_ignore_ascii_case("password") =>
                {
                    format!("{k}=***")
                }
                _ => pair.to_string(),
            })
            .collect();
        out.push('?');
        out.push_str(&pairs.join("&"));
    }
    out
}

impl Redis {
    /// A handle on the Redis at `url` (`redis://host:port/db`, `unix:///path`), every key and
    /// channel under `prefix`. Only parses: nothing connects until a command or a subscription
    /// needs it.
    pub fn open(url: &str, prefix: impl Into<String>) -> Result<Self, RedisError> {
        Self::open_tls(url, prefix, None)
    }

    /// [`Redis::open`], a `rediss://` URL's server checked against the CA certificates in PEM
    /// `ca` (a private CA) rather than the system's roots.
    pub fn open_tls(
        url: &str,
        prefix: impl Into<String>,
        ca: Option<Vec<u8>>,
    ) -> Result<Self, RedisError> {
        let client = match ca {
            None => ::redis::Client::open(url)?,
            #[cfg(not(feature = "tls"))]
            Some(_) => {
                return Err(RedisError::from((
                    ::redis::ErrorKind::InvalidClientConfig,
                    "redis_tls_ca needs oxmcp built with the `tls` feature",
                )))
            }
            #[cfg(feature = "tls")]
            Some(pem) => ::redis::Client::build_with_tls(
                url,
                ::redis::TlsCertificates {
                    client_tls: None,
                    root_cert: Some(pem),
                },
            )?,
        };
        Ok(Self {
            shared: Arc::new(Shared {
                client,
                shown: redact(url),
                prefix: prefix.into(),
                replica: replica_id(),
                io: Mutex::new(None),
                channels: Arc::new(Channels {
                    map: Mutex::new(HashMap::new()),
                }),
                unpublished: Default::default(),
                warned_ms: Default::default(),
                epoch: std::time::Instant::now(),
                timeout_ms: (COMMAND_TIMEOUT.as_millis() as u64).into(),
                metrics: Default::default(),
            }),
        })
    }

    /// Count round trips, errors and reconnects in `m` (the server's metrics; the first wins).
    pub(crate) fn set_metrics(&self, m: crate::metrics::RedisMetrics) {
        let _ = self.shared.metrics.set(m);
    }

    /// How long one command or connection attempt may take (by default [`COMMAND_TIMEOUT`]).
    /// Set it before the first command: the connection is configured when it starts.
    pub fn set_timeout(&self, t: Duration) {
        let ms = (t.as_millis() as u64).max(1);
        self.shared
            .timeout_ms
            .store(ms, std::sync::atomic::Ordering::Relaxed);
    }
    /// The command timeout.
    pub fn timeout(&self) -> Duration {
        Duration::from_millis(
            self.shared
                .timeout_ms
                .load(std::sync::atomic::Ordering::Relaxed),
        )
    }

    /// The URL, its password hidden.
    pub fn url(&self) -> &str {
        &self.shared.shown
    }
    pub fn prefix(&self) -> &str {
        &self.shared.prefix
    }
    /// This process's id among the replicas (random per handle): a message carrying it is this
    /// replica's own.
    pub fn replica(&self) -> &str {
        &self.shared.replica
    }
    /// `name` under the prefix: the key (or channel) oxmcp uses for it.
    pub fn key(&self, name: &str) -> String {
        format!("{}{name}", self.shared.prefix)
    }

    /// The I/O side of this process, started on first use (and again after a fork).
    fn io(&self) -> Io {
        let mut io = self.shared.io.lock().unwrap_or_else(|e| e.into_inner());
        let pid = std::process::id();
        if let Some(io) = io.as_ref().filter(|io| io.pid == pid) {
            return io.clone();
        }
        let started = self.start(pid);
        *io = Some(started.clone());
        started
    }

    fn start(&self, pid: u32) -> Io {
        let (htx, hrx) = std::sync::mpsc::channel();
        std::thread::Builder::new()
            .name("oxmcp-redis".into())
            .spawn(move || {
                let rt = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .expect("the oxmcp-redis runtime");
                let _ = htx.send(rt.handle().clone());
                // Runs until the process exits: the thread is parked in here, serving the
                // connection's and the subscriber's tasks.
                rt.block_on(futures::future::pending::<()>());
            })
            .expect("the oxmcp-redis thread");
        let rt = hrx.recv().expect("the oxmcp-redis runtime handle");
        let timeout = self.timeout();
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(timeout))
            .set_response_timeout(Some(timeout))
            .set_number_of_retries(2)
            .set_max_delay(Duration::from_millis(500));
        let conn = {
            let _enter = rt.enter();
            ConnectionManager::new_lazy_with_config(self.shared.client.clone(), config)
                .expect("a lazy connection manager (no push sender)")
        };
        let (stx, srx) = mpsc::unbounded_channel();
        rt.spawn(subscriber(
            self.shared.client.clone(),
            self.shared.prefix.clone(),
            self.shared.shown.clone(),
            timeout,
            Arc::downgrade(&self.shared.channels),
            srx,
            self.shared.metrics.clone(),
        ));
        // The channels subscribed before a fork are subscribed again in the child.
        for ch in self.shared.channels.map().keys() {
            let _ = stx.send(ch.clone());
        }
        Io {
            pid,
            rt,
            conn,
            subscribe: stx,
        }
    }

    /// Run `f` with the command connection on the Redis runtime; fails after twice the command
    /// timeout (the manager retries once within it, and reconnects by itself after an I/O error).
    pub async fn run<T, F>(&self, f: F) -> Result<T, RedisError>
    where
        T: Send + 'static,
        F: FnOnce(ConnectionManager) -> BoxFuture<'static, Result<T, RedisError>> + Send + 'static,
    {
        let io = self.io();
        let fut = f(io.conn.clone());
        let limit = self.timeout() * 2;
        let task = io
            .rt
            .spawn(async move { tokio::time::timeout(limit, fut).await });
        let r = match task.await {
            Ok(Ok(r)) => r,
            Ok(Err(_)) => Err(timeout_error()),
            Err(_) => Err(RedisError::from((
                ::redis::ErrorKind::Io,
                "the oxmcp-redis task stopped",
            ))),
        };
        if let Some(m) = self.shared.metrics.get() {
            m.round_trips.inc();
            if r.is_err() {
                m.errors.inc();
            }
        }
        r
    }

    /// Run `f` on the Redis runtime (a task that lives as long as the process or until it ends).
    pub(crate) fn spawn(&self, f: impl std::future::Future<Output = ()> + Send + 'static) {
        self.io().rt.spawn(f);
    }

    /// One command.
    pub async fn query<T: ::redis::FromRedisValue + Send + 'static>(
        &self,
        cmd: ::redis::Cmd,
    ) -> Result<T, RedisError> {
        self.run(move |mut c| Box::pin(async move { cmd.query_async(&mut c).await }))
            .await
    }

    /// Whether Redis answers a PING within the command timeout.
    pub async fn ping(&self) -> bool {
        self.query::<String>(::redis::cmd("PING")).await.is_ok()
    }

    /// Publish `payload` on channel `name` (under the prefix).
    pub async fn publish(&self, name: &str, payload: Vec<u8>) -> Result<(), RedisError> {
        let mut cmd = ::redis::cmd("PUBLISH");
        cmd.arg(self.key(name)).arg(payload);
        self.query::<i64>(cmd).await.map(|_| ())
    }

    /// [`Redis::publish`] from any thread, without waiting: a failure is logged.
    pub fn publish_detached(&self, name: &str, payload: Vec<u8>) {
        let io = self.io();
        let me = self.clone();
        let name = name.to_string();
        io.rt.spawn(async move {
            if let Err(e) = me.publish(&name, payload).await {
                use std::sync::atomic::Ordering::Relaxed;
                let sh = &me.shared;
                let n = sh.unpublished.fetch_add(1, Relaxed) + 1;
                let now = sh.epoch.elapsed().as_millis() as u64 + 10_000;
                let last = sh.warned_ms.load(Relaxed);
                if now >= last + 10_000
                    && sh.warned_ms.compare_exchange(last, now, Relaxed, Relaxed).is_ok()
                {
                    sh.unpublished.store(0, Relaxed);
                    tracing::warn!(channel = %me.key(&name), url = %me.url(), error = %e, unpublished = n, "redis: messages not published (replicas other than this one miss them)");
                }
            }
        });
    }

    /// The messages on channel `name` (under the prefix) from now on, from any replica, this one
    /// included. The subscriber task subscribes once per channel (and again after a reconnect);
    /// a receiver that falls behind by more than 1024 messages skips the oldest.
    pub fn subscribe(&self, name: &str) -> broadcast::Receiver<Incoming> {
        let channel = self.key(name);
        let mut map = self.shared.channels.map();
        if let Some(tx) = map.get(&channel) {
            return tx.subscribe();
        }
        let (tx, rx) = broadcast::channel(1024);
        map.insert(channel.clone(), tx);
        drop(map);
        let _ = self.io().subscribe.send(channel);
        rx
    }
}

/// A Lua script, run by its SHA (`EVALSHA`) and sent whole (`EVAL`) when this Redis does not
/// know it yet (a fresh or restarted Redis, a `SCRIPT FLUSH`). Redis runs a script atomically.
pub(crate) struct Lua {
    src: &'static str,
    sha: OnceLock<String>,
}

impl Lua {
    pub(crate) const fn new(src: &'static str) -> Self {
        Self {
            src,
            sha: OnceLock::new(),
        }
    }
    fn sha(&self) -> &str {
        self.sha
            .get_or_init(|| ::redis::Script::new(self.src).get_hash().to_string())
    }
}

impl Redis {
    /// Run `lua` with these keys (each under the prefix already) and arguments.
    pub(crate) async fn eval<T: ::redis::FromRedisValue + Send + 'static>(
        &self,
        lua: &'static Lua,
        keys: Vec<String>,
        args: Vec<String>,
    ) -> Result<T, RedisError> {
        let sha = lua.sha().to_string();
        self.run(move |mut c| {
            Box::pin(async move {
                let mut cmd = ::redis::cmd("EVALSHA");
                cmd.arg(&sha).arg(keys.len()).arg(&keys).arg(&args);
                match cmd.query_async::<T>(&mut c).await {
                    Err(e) if e.code() == Some("NOSCRIPT") => {
                        let mut cmd = ::redis::cmd("EVAL");
                        cmd.arg(lua.src).arg(keys.len()).arg(&keys).arg(&args);
                        cmd.query_async(&mut c).await
                    }
                    r => r,
                }
            })
        })
        .await
    }
}

fn timeout_error() -> RedisError {
    RedisError::from((::redis::ErrorKind::Io, "redis command timed out"))
}

/// The subscriber: one pub/sub connection, every channel of `channels` subscribed, messages
/// fanned out to the channel's local receivers. Reconnects with exponential backoff (100 ms to
/// 5 s) and logs each loss and recovery once. Ends when the handle is gone.
async fn subscriber(
    client: ::redis::Client,
    prefix: String,
    shown: String,
    timeout: Duration,
    channels: Weak<Channels>,
    mut new: mpsc::UnboundedReceiver<String>,
    metrics: Arc<OnceLock<crate::metrics::RedisMetrics>>,
) {
    let mut backoff = Duration::from_millis(100);
    let mut connected_once = false;
    let mut failing = false;
    loop {
        let Some(chans) = channels.upgrade() else {
            return;
        };
        // Drain the requests queued while disconnected: the table holds every channel anyway.
        while new.try_recv().is_ok() {}
        let names: Vec<String> = chans.map().keys().cloned().collect();
        drop(chans);
        let attempt = async {
            let ps = client.get_async_pubsub().await?;
            let (mut sink, stream) = ps.split();
            for n in &names {
                sink.subscribe(n).await?;
            }
            Ok::<_, RedisError>((sink, stream))
        };
        match tokio::time::timeout(timeout, attempt).await {
            Ok(Ok((mut sink, mut stream))) => {
                if failing || connected_once {
                    tracing::info!(url = %shown, "redis: subscriber connected again");
                    if let Some(m) = metrics.get() {
                        m.reconnects.inc();
                    }
                    if let Some(chans) = channels.upgrade() {
                        for tx in chans.map().values() {
                            let _ = tx.send(Incoming::Resubscribed);
                        }
                    }
                }
                connected_once = true;
                backoff = Duration::from_millis(100);
                let mut ping = tokio::time::interval(PING_EVERY);
                ping.tick().await;
                loop {
                    tokio::select! {
                        m = stream.next() => match m {
                            Some(msg) => {
                                let Some(chans) = channels.upgrade() else { return };
                                let tx = chans.map().get(msg.get_channel_name()).cloned();
                                if let Some(tx) = tx {
                                    let _ = tx.send(Incoming::Message(msg.get_payload_bytes().into()));
                                }
                            }
                            None => break,
                        },
                        n = new.recv() => match n {
                            Some(n) => {
                                if tokio::time::timeout(timeout, sink.subscribe(&n)).await.map_or(true, |r| r.is_err()) {
                                    break;
                                }
                            }
                            None => return,
                        },
                        _ = ping.tick() => {
                            let ok = tokio::time::timeout(timeout, sink.ping::<::redis::Value>()).await;
                            if !matches!(ok, Ok(Ok(_))) {
                                break;
                            }
                        }
                    }
                }
                tracing::warn!(url = %shown, prefix = %prefix, "redis: subscriber disconnected; reconnecting with backoff (events from other replicas are missed meanwhile)");
                failing = true;
            }
            Ok(Err(e)) => {
                if !failing {
                    tracing::warn!(url = %shown, error = %e, "redis: subscriber cannot connect; retrying with backoff");
                }
                failing = true;
            }
            Err(_) => {
                if !failing {
                    tracing::warn!(url = %shown, "redis: subscriber connection timed out; retrying with backoff");
                }
                failing = true;
            }
        }
        tokio::time::sleep(backoff).await;
        backoff = (backoff * 2).min(MAX_BACKOFF);
    }
}

#[cfg(test)]
pub(crate) mod testing;

#[cfg(test)]
mod tests;
