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
//! **One process.** The pool, the dispatcher and the tokio runtime belong to the process that
//! started them. `os.fork()` runs [`after_fork`] in the child (`os.register_at_fork`), which
//! bumps a generation: the next use starts fresh threads and a fresh runtime there. The
//! parent's, whose threads do not exist in the child, are leaked, never joined.

use pyo3::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread;
use std::time::{Duration, Instant};

pub(crate) type Job = Box<dyn FnOnce(Python<'_>) + Send + 'static>;

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
fn next_job(rx: &Mutex<mpsc::Receiver<Job>>) -> (Option<Job>, Leave) {
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
    // Leaked on purpose: a runtime lives as long as its process, and in a forked child the old
    // one must never be dropped (dropping joins threads that are not there).
    let rt: &'static tokio::runtime::Runtime =
        Box::leak(Box::new(b.build().expect("cannot start the tokio runtime")));
    *slot = Some((generation, rt));
    rt
}

// ---- the pool and the dispatcher ---------------------------------------------------------------------

struct Pool {
    generation: u64,
    sync_tx: mpsc::Sender<Job>,
    async_tx: mpsc::Sender<Job>,
}

impl Pool {
    fn start(workers: usize, generation: u64) -> Self {
        let (sync_tx, srx) = mpsc::channel::<Job>();
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
                                Some(job) => job(py),
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

    fn send(&self, job: Job, sync: bool) -> bool {
        let generation = GENERATION.load(Ordering::Acquire);
        let mut pool = lock(&self.pool);
        if pool.as_ref().is_none_or(|p| p.generation != generation) {
            *pool = Some(Pool::start(self.workers, generation));
        }
        let Some(p) = pool.as_ref() else { return false };
        if sync {
            p.sync_tx.send(job).is_ok()
        } else {
            p.async_tx.send(job).is_ok()
        }
    }

    /// Run a sync handler on the bounded pool.
    pub(crate) fn run_sync(&self, job: Job) -> bool {
        self.send(job, true)
    }

    /// Run a short piece of Python (scheduling onto the loop, a callback) on the dispatcher thread.
    pub(crate) fn dispatch(&self, job: Job) -> bool {
        self.send(job, false)
    }

    pub(crate) fn event_loop(&self, py: Python<'_>) -> Option<Py<PyAny>> {
        lock(&self.event_loop).as_ref().map(|l| l.clone_ref(py))
    }

    pub(crate) fn set_event_loop(&self, lp: Option<Py<PyAny>>) {
        *lock(&self.event_loop) = lp;
    }
}
