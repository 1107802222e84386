//! Where Python code runs, and when native threads may enter Python at all.
//!
//! Tokio workers never take the GIL for handler work:
//! - sync handlers go to a bounded pool of plain threads (each holds one Python thread state for
//!   its life and takes the GIL for one call at a time);
//! - async handlers, and every callback into Python, go to one dispatcher thread that only
//!   schedules work onto the asyncio loop (`call_soon_threadsafe`) and returns at once.
//!
//! **The gate.** Every native thread (pool, dispatcher, tokio) enters Python only through
//! [`attach`]. [`quiesce`], run by an `atexit` hook, closes the gate and waits (GIL released)
//! for the threads inside to leave. `atexit` runs before `Py_Finalize` tears thread states
//! down, so no thread of ours is inside Python — or can get in — while the interpreter
//! finalizes. (Without it a thread settling a last future during a fast exit re-took the GIL
//! mid-finalization and the process aborted in `PyGILState_Release`.)
//!
//! **One CPU.** When the process may use one CPU only (`taskset`, a one-CPU cgroup quota), a pool
//! thread cannot run beside the tokio worker that made the call: sending each call at once woke
//! a pool thread that preempted the worker, ran one call and handed the GIL on, per call. There
//! a sync call is held until a worker is about to park (`on_thread_park`; or [`PARK_BOUND`] at
//! most), and the calls held together go to one pool thread as a [`Batch`], run one after
//! another under one GIL hold. The same rule as the Node binding's dispatcher
//! (`bindings-node/src/batch.rs`).
//!
//! **One process.** The pool, the dispatcher and the tokio runtime belong to the process that
//! started them. `os.fork()` runs [`after_fork`] in the child (`os.register_at_fork`), which
//! bumps a generation: the next use starts fresh threads and a fresh runtime there. The
//! parent's, whose threads do not exist in the child, are leaked, never joined.

use pyo3::prelude::*;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock};
use std::thread;
use std::time::{Duration, Instant};

pub(crate) type Job = Box<dyn FnOnce(Python<'_>) + Send + 'static>;

/// What a pool thread takes from its queue.
enum Work {
    One(Job),
    /// Calls held together on one CPU: run one after another under one GIL hold.
    Batch(Arc<Batch>),
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

// ---- the gate ------------------------------------------------------------------------------------

struct GateState {
    closed: bool,
    inside: usize,
}

static GATE: Mutex<GateState> = Mutex::new(GateState {
    closed: false,
    inside: 0,
});
static LEFT: Condvar = Condvar::new();

struct Leave;

impl Drop for Leave {
    fn drop(&mut self) {
        let mut g = lock(&GATE);
        g.inside = g.inside.saturating_sub(1);
        if g.inside == 0 {
            LEFT.notify_all();
        }
    }
}

/// Count this thread inside Python until the `Leave` is dropped; `None` once the gate is closed.
fn enter() -> Option<Leave> {
    let mut g = lock(&GATE);
    if g.closed {
        return None;
    }
    g.inside += 1;
    Some(Leave)
}

/// Run `f` with the GIL on a native thread, unless the interpreter is shutting down (`None`).
/// The thread counts as inside until `Python::attach` has fully returned (thread state released).
pub(crate) fn attach<R>(f: impl FnOnce(Python<'_>) -> R) -> Option<R> {
    let _leave = enter()?;
    Some(Python::attach(f))
}

/// A pool worker's next job, waited for without the GIL; `None` when the server is gone. The
/// worker is inside again when this returns: once the gate is closed it never returns (it parks
/// for the rest of the process rather than take the GIL back from a finalizing interpreter).
fn next_job(rx: &Mutex<mpsc::Receiver<Work>>) -> (Option<Work>, Leave) {
    let job = lock(rx).recv().ok();
    match enter() {
        Some(inside) => (job, inside),
        None => loop {
            thread::park();
        },
    }
}

/// Close the gate for good and wait up to `timeout` seconds for native threads to leave Python.
/// Returns how many are still inside (a sync handler that ignored cancellation). A signal
/// (a second Ctrl-C) ends the wait early.
#[pyfunction]
pub(crate) fn quiesce(py: Python<'_>, timeout: f64) -> usize {
    let deadline = Instant::now() + Duration::from_secs_f64(timeout.max(0.0));
    loop {
        let inside = py.detach(|| {
            let mut g = lock(&GATE);
            g.closed = true;
            let step = deadline
                .saturating_duration_since(Instant::now())
                .min(Duration::from_millis(50));
            let (g, _) = LEFT
                .wait_timeout_while(g, step, |g| g.inside > 0)
                .unwrap_or_else(|e| e.into_inner());
            g.inside
        });
        if inside == 0 || Instant::now() >= deadline || py.check_signals().is_err() {
            return inside;
        }
    }
}

// ---- one process ---------------------------------------------------------------------------------

static GENERATION: AtomicU64 = AtomicU64::new(0);

/// In the child after `os.fork()`: only the forking thread exists. Forget the parent's threads
/// and runtime (started again on next use) and the parent's count of threads inside Python.
#[pyfunction]
pub(crate) fn after_fork() {
    GENERATION.fetch_add(1, Ordering::AcqRel);
    let mut g = lock(&GATE);
    g.inside = 0;
    g.closed = false;
}

static RUNTIME: Mutex<Option<(u64, &'static tokio::runtime::Runtime)>> = Mutex::new(None);

/// The tokio runtime the core runs on, built on first use in each process.
pub(crate) fn runtime() -> &'static tokio::runtime::Runtime {
    let generation = GENERATION.load(Ordering::Acquire);
    let mut slot = lock(&RUNTIME);
    if let Some((g, rt)) = *slot {
        if g == generation {
            return rt;
        }
    }
    let mut b = tokio::runtime::Builder::new_multi_thread();
    b.enable_all().thread_name("oxmcp-io");
    let n = std::env::var("OXMCP_IO_THREADS")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .unwrap_or(2);
    b.worker_threads(n.max(1));
    // One hold per runtime (not a static): a forked child's runtime starts with its own.
    let hold = (!parallel()).then(|| Arc::new(Hold::default()));
    if let Some(h) = &hold {
        let (mine, park) = (h.clone(), h.clone());
        b.on_thread_start(move || WORKER_HOLD.with(|w| drop(w.set(mine.clone()))));
        b.on_thread_park(move || park.before_park());
    }
    // Leaked on purpose: a runtime lives as long as its process, and in a forked child the old
    // one must never be dropped (dropping joins threads that are not there).
    let rt: &'static tokio::runtime::Runtime =
        Box::leak(Box::new(b.build().expect("cannot start the tokio runtime")));
    if let Some(h) = hold {
        rt.spawn(h.bound());
    }
    *slot = Some((generation, rt));
    rt
}

// ---- one CPU: calls held until a worker parks --------------------------------------------------

/// How long held calls wait for a worker to park before they are handed over anyway (a worker
/// that always has other work).
const PARK_BOUND: Duration = Duration::from_millis(1);

/// Whether pool threads can run beside the runtime's workers: false when this process may use
/// one CPU only. Read once.
fn parallel() -> bool {
    static P: OnceLock<bool> = OnceLock::new();
    *P.get_or_init(|| thread::available_parallelism().map_or(true, |n| n.get() > 1))
}

thread_local! {
    /// The hold of the runtime this thread is a worker of (one CPU only).
    static WORKER_HOLD: std::cell::OnceCell<Arc<Hold>> = const { std::cell::OnceCell::new() };
}

/// Sync calls made on the runtime's workers, in order, with the pool each goes to.
#[derive(Default)]
struct Hold {
    calls: Mutex<Vec<(u64, mpsc::Sender<Work>, Job)>>,
    holding: AtomicBool,
    /// A first call was held: the bound starts.
    started: tokio::sync::Notify,
    /// The calls were handed over at a park: the bound stops.
    handed: tokio::sync::Notify,
}

impl Hold {
    fn hold(&self, pool: u64, tx: mpsc::Sender<Work>, job: Job) {
        let first = {
            let mut c = lock(&self.calls);
            c.push((pool, tx, job));
            !self.holding.swap(true, Ordering::AcqRel)
        };
        if first {
            self.started.notify_one();
        }
    }

    fn before_park(&self) {
        if self.holding.load(Ordering::Acquire) && self.hand_over() {
            self.handed.notify_one();
        }
    }

    /// Send what is held, each pool's consecutive calls as one batch; false if nothing was.
    fn hand_over(&self) -> bool {
        let calls = {
            let mut c = lock(&self.calls);
            self.holding.store(false, Ordering::Release);
            std::mem::take(&mut *c)
        };
        if calls.is_empty() {
            return false;
        }
        let mut calls = calls.into_iter().peekable();
        while let Some((pool, tx, job)) = calls.next() {
            let mut rest = VecDeque::new();
            while let Some((_, _, j)) = calls.next_if(|(p, _, _)| *p == pool) {
                rest.push_back(j);
            }
            let work = if rest.is_empty() {
                Work::One(job)
            } else {
                rest.push_front(job);
                Work::Batch(Arc::new(Batch {
                    jobs: Mutex::new(rest),
                    called: AtomicBool::new(false),
                    tx: tx.clone(),
                }))
            };
            let _ = tx.send(work);
        }
        true
    }

    /// Held calls go at the latest [`PARK_BOUND`] after the first of them.
    async fn bound(self: Arc<Self>) {
        loop {
            self.started.notified().await;
            while self.holding.load(Ordering::Acquire) {
                tokio::select! {
                    () = tokio::time::sleep(PARK_BOUND) => {
                        self.hand_over();
                    }
                    () = self.handed.notified() => {}
                }
            }
        }
    }
}

/// Calls handed over together. The pool thread that takes the batch runs them in order under one
/// GIL hold. So that a call that blocks (its GIL released) does not hold up the ones behind it,
/// a thread taking a call with more left behind it calls one more pool thread to the same batch:
/// that one waits for the GIL and goes on with the rest as soon as the first lets it go.
struct Batch {
    jobs: Mutex<VecDeque<Job>>,
    /// A pool thread has been called to this batch and has not started on it yet.
    called: AtomicBool,
    tx: mpsc::Sender<Work>,
}

impl Batch {
    fn run(self: Arc<Self>, py: Python<'_>) {
        self.called.store(false, Ordering::Release);
        while let Some(job) = self.next() {
            job(py);
        }
    }

    fn next(self: &Arc<Self>) -> Option<Job> {
        if lock(&GATE).closed {
            return None; // the interpreter is shutting down: the rest are dropped (answered)
        }
        let (job, more) = {
            let mut q = lock(&self.jobs);
            let job = q.pop_front()?;
            (job, !q.is_empty())
        };
        if more && !self.called.swap(true, Ordering::AcqRel) {
            let _ = self.tx.send(Work::Batch(self.clone()));
        }
        Some(job)
    }
}

// ---- the pool and the dispatcher ---------------------------------------------------------------------

struct Pool {
    generation: u64,
    /// Tells one pool's calls from another's in a hold (one per server).
    id: u64,
    sync_tx: mpsc::Sender<Work>,
    async_tx: mpsc::Sender<Job>,
}

impl Pool {
    fn start(workers: usize, generation: u64) -> Self {
        static IDS: AtomicU64 = AtomicU64::new(0);
        let (sync_tx, srx) = mpsc::channel::<Work>();
        let (async_tx, arx) = mpsc::channel::<Job>();
        let srx = Arc::new(Mutex::new(srx));
        for i in 0..workers {
            let rx = srx.clone();
            let _ = thread::Builder::new()
                .name(format!("oxmcp-py-{i}"))
                .spawn(move || {
                    // One Python thread state for the worker's life: `Python::attach` per job
                    // (PyGILState_Ensure/Release) created and destroyed a thread state each
                    // time, a large part of a small call. Between jobs the worker waits
                    // detached (GIL released) and does not count as inside (`next_job`).
                    let Some(inside) = enter() else { return };
                    let last = Python::attach(move |py| {
                        let mut inside = inside;
                        loop {
                            drop(inside);
                            let (job, now) = py.detach(|| next_job(&rx));
                            inside = now;
                            match job {
                                Some(Work::One(job)) => job(py),
                                Some(Work::Batch(b)) => b.run(py),
                                None => return inside, // the server is gone
                            }
                        }
                    });
                    drop(last); // after the thread state is released
                });
        }
        let _ = thread::Builder::new()
            .name("oxmcp-py-dispatch".into())
            .spawn(move || {
                while let Ok(first) = arx.recv() {
                    // Take the GIL once for everything queued.
                    let ran = attach(|py| {
                        first(py);
                        while let Ok(job) = arx.try_recv() {
                            job(py);
                        }
                    });
                    if ran.is_none() {
                        return;
                    }
                }
            });
        Self {
            generation,
            id: IDS.fetch_add(1, Ordering::Relaxed),
            sync_tx,
            async_tx,
        }
    }
}

pub(crate) struct Engine {
    workers: usize,
    /// Started on first use (not at import) and again after a fork.
    pool: Mutex<Option<Pool>>,
    /// The asyncio loop async handlers run on (the caller's loop under `run_async`).
    pub(crate) event_loop: Mutex<Option<Py<PyAny>>>,
}

impl Engine {
    pub(crate) fn new(workers: usize) -> Arc<Self> {
        Arc::new(Self {
            workers: workers.max(1),
            pool: Mutex::new(None),
            event_loop: Mutex::new(None),
        })
    }

    /// This process's pool, started on first use and again after a fork.
    fn with_pool<R>(&self, f: impl FnOnce(&Pool) -> R) -> R {
        let generation = GENERATION.load(Ordering::Acquire);
        let mut pool = lock(&self.pool);
        if pool.as_ref().is_some_and(|p| p.generation != generation) {
            *pool = None; // the parent's, whose threads are not in this process
        }
        f(pool.get_or_insert_with(|| Pool::start(self.workers, generation)))
    }

    /// Run a sync handler on the bounded pool: at once, or on one CPU when a worker parks.
    pub(crate) fn run_sync(&self, job: Job) -> bool {
        WORKER_HOLD.with(|h| match h.get() {
            Some(hold) => {
                let (id, tx) = self.with_pool(|p| (p.id, p.sync_tx.clone()));
                hold.hold(id, tx, job);
                true
            }
            None => self.with_pool(|p| p.sync_tx.send(Work::One(job)).is_ok()),
        })
    }

    /// Run a short piece of Python (scheduling onto the loop, a callback) on the dispatcher thread.
    pub(crate) fn dispatch(&self, job: Job) -> bool {
        self.with_pool(|p| p.async_tx.send(job).is_ok())
    }

    pub(crate) fn event_loop(&self, py: Python<'_>) -> Option<Py<PyAny>> {
        lock(&self.event_loop).as_ref().map(|l| l.clone_ref(py))
    }

    pub(crate) fn set_event_loop(&self, lp: Option<Py<PyAny>>) {
        *lock(&self.event_loop) = lp;
    }
}
