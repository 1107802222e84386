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
//! a sync call is held until the workers have read every request that came in (a poll of the
//! sockets finds none new; or [`HOLD_BOUND`](oxmcp::handover::HOLD_BOUND) at most), and the
//! calls held together are queued at once. One pool thread runs every queued call, in the order
//! the calls were made, under one GIL hold (see [`Queue`]). The rule is the core's
//! `oxmcp::handover`, which the Node binding's dispatcher (`bindings-node/src/batch.rs`) uses too.
//!
//! **One process.** The pool, the dispatcher and the tokio runtime belong to the process that
//! started them. `os.fork()` runs [`after_fork`] in the child (`os.register_at_fork`), which
//! bumps a generation: the next use starts fresh threads and a fresh runtime there. The
//! parent's, whose threads do not exist in the child, are leaked, never joined.

use pyo3::prelude::*;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
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

/// A pool worker's next turn, waited for without the GIL; false when the server is gone. The
/// worker is inside again when this returns: once the gate is closed it never returns (it parks
/// for the rest of the process rather than take the GIL back from a finalizing interpreter).
fn next_turn(queue: &Queue) -> (bool, Leave) {
    let turn = queue.wait_turn();
    match enter() {
        Some(inside) => (turn, inside),
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
    // Two workers, or one on one CPU: there a second worker only takes turns with the first,
    // and splits the requests that came in together between two hand-overs.
    let n = std::env::var("OXMCP_IO_THREADS")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .unwrap_or(if parallel() { 2 } else { 1 });
    b.worker_threads(n.max(1));
    // One hold per runtime (not a static): a forked child's runtime starts with its own.
    let hold = (!parallel()).then(|| Arc::new(Hold::default()));
    if let Some(h) = &hold {
        let mine = h.clone();
        b.on_thread_start(move || WORKER_HOLD.with(|w| drop(w.set(mine.clone()))));
    }
    // Leaked on purpose: a runtime lives as long as its process, and in a forked child the old
    // one must never be dropped (dropping joins threads that are not there).
    let rt: &'static tokio::runtime::Runtime =
        Box::leak(Box::new(b.build().expect("cannot start the tokio runtime")));
    if let Some(h) = hold {
        rt.spawn(h.hand_overs());
    }
    *slot = Some((generation, rt));
    rt
}

// ---- one CPU: calls held until the workers have nothing new ------------------------------------

// Whether there is one CPU, the hold's bound and when it ends: the core's, shared with Node.
use oxmcp::handover::{parallel, settled};

thread_local! {
    /// The hold of the runtime this thread is a worker of (one CPU only).
    static WORKER_HOLD: std::cell::OnceCell<Arc<Hold>> = const { std::cell::OnceCell::new() };
}

/// Sync calls made on the runtime's workers, in order, with the pool each goes to.
///
/// They are handed over once a poll of the sockets (the runtime's driver) finds no new call: a
/// worker that ran out of tasks first looks again, so the requests that came in while it read
/// the others join the same turn instead of waiting a whole turn more. (Handing over when a
/// worker was about to park split each round of requests in two: those read before the last
/// poll, and those that came in while they were read.)
#[derive(Default)]
struct Hold {
    calls: Mutex<Vec<(Arc<Queue>, Job)>>,
    /// Calls held since the start: compared across a driver poll.
    count: AtomicU64,
    holding: AtomicBool,
    /// A first call was held.
    started: tokio::sync::Notify,
}

impl Hold {
    fn hold(&self, queue: Arc<Queue>, job: Job) {
        let first = {
            let mut c = lock(&self.calls);
            c.push((queue, job));
            self.count.fetch_add(1, Ordering::AcqRel);
            !self.holding.swap(true, Ordering::AcqRel)
        };
        if first {
            self.started.notify_one();
        }
    }

    /// Queue what is held, each pool's consecutive calls at once.
    fn hand_over(&self) {
        let calls = {
            let mut c = lock(&self.calls);
            self.holding.store(false, Ordering::Release);
            std::mem::take(&mut *c)
        };
        let mut calls = calls.into_iter().peekable();
        while let Some((queue, job)) = calls.next() {
            let mut jobs = vec![job];
            while let Some((_, j)) = calls.next_if(|(q, _)| Arc::ptr_eq(q, &queue)) {
                jobs.push(j);
            }
            queue.push(jobs);
        }
    }

    /// The runtime's hand-over task: from a first held call, hand over when a driver poll brought
    /// no new call, or [`HOLD_BOUND`](oxmcp::handover::HOLD_BOUND) after it.
    async fn hand_overs(self: Arc<Self>) {
        loop {
            self.started.notified().await;
            settled(|| self.count.load(Ordering::Acquire)).await;
            self.hand_over();
        }
    }
}

/// A pool's sync calls, in the order they were made, and its threads waiting for a turn.
///
/// With more than one CPU each call is a turn of its own: a pool thread takes the GIL for one
/// call. On one CPU a turn runs every call queued, front first, under one GIL hold, so calls run
/// in the order they were made whichever thread runs them.
///
/// So that a call that blocks (its GIL released) does not hold up the calls behind it, a thread
/// taking a call with more left behind it calls one more thread. That one waits for the GIL and
/// goes on with the rest as soon as the first lets it go. Blocked calls so still run side by side
/// up to the pool size.
struct Queue {
    state: Mutex<QueueState>,
    turn: Condvar,
    /// One CPU: a turn runs every queued call.
    drain: bool,
}

struct QueueState {
    jobs: VecDeque<Job>,
    /// Turns given and not yet taken by a thread: one per call, or on one CPU one at most.
    turns: usize,
    /// One CPU: threads that took a turn and wait for the GIL (one at most). While one waits, no
    /// other is called: it goes on with whatever is queued once it has the GIL.
    waiting: usize,
    /// The pool is gone: its threads end.
    closed: bool,
}

impl Queue {
    fn new(drain: bool) -> Self {
        Self {
            state: Mutex::new(QueueState {
                jobs: VecDeque::new(),
                turns: 0,
                waiting: 0,
                closed: false,
            }),
            turn: Condvar::new(),
            drain,
        }
    }

    /// Queue calls; false (the calls dropped, which answers them) once the pool is gone.
    fn push(&self, jobs: impl IntoIterator<Item = Job>) -> bool {
        let mut s = lock(&self.state);
        if s.closed {
            drop(s);
            drop(jobs.into_iter());
            return false;
        }
        let before = s.jobs.len();
        s.jobs.extend(jobs);
        let calls = s.jobs.len() - before;
        let turns = if self.drain {
            usize::from(s.turns == 0 && s.waiting == 0)
        } else {
            calls
        };
        s.turns += turns;
        drop(s);
        for _ in 0..turns {
            self.turn.notify_one();
        }
        true
    }

    /// Wait (GIL released) for a turn; false once the pool is gone.
    fn wait_turn(&self) -> bool {
        let mut s = lock(&self.state);
        loop {
            if s.closed {
                return false;
            }
            if s.turns > 0 {
                s.turns -= 1;
                if self.drain {
                    s.waiting += 1;
                }
                return true;
            }
            s = self.turn.wait(s).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// A turn, with the GIL: one call, or on one CPU every call queued.
    fn run_turn(&self, py: Python<'_>) {
        if !self.drain {
            if let Some(job) = self.next() {
                job(py);
            }
            return;
        }
        {
            let mut s = lock(&self.state);
            s.waiting = s.waiting.saturating_sub(1);
        }
        while let Some(job) = self.next() {
            job(py);
        }
    }

    fn next(&self) -> Option<Job> {
        if lock(&GATE).closed {
            // The interpreter is shutting down: what is queued is dropped (answered).
            let left = std::mem::take(&mut lock(&self.state).jobs);
            drop(left);
            return None;
        }
        let mut s = lock(&self.state);
        let job = s.jobs.pop_front()?;
        let call = self.drain && s.turns == 0 && s.waiting == 0 && !s.jobs.is_empty();
        if call {
            s.turns = 1;
        }
        drop(s);
        if call {
            self.turn.notify_one();
        }
        Some(job)
    }

    fn close(&self) {
        let left = {
            let mut s = lock(&self.state);
            s.closed = true;
            std::mem::take(&mut s.jobs)
        };
        self.turn.notify_all();
        drop(left);
    }
}

// ---- the pool and the dispatcher ---------------------------------------------------------------------

struct Pool {
    generation: u64,
    sync: Arc<Queue>,
    async_tx: mpsc::Sender<Job>,
}

impl Drop for Pool {
    fn drop(&mut self) {
        self.sync.close();
    }
}

impl Pool {
    fn start(workers: usize, generation: u64) -> Self {
        let sync = Arc::new(Queue::new(!parallel()));
        let (async_tx, arx) = mpsc::channel::<Job>();
        for i in 0..workers {
            let queue = sync.clone();
            let _ = thread::Builder::new()
                .name(format!("oxmcp-py-{i}"))
                .spawn(move || {
                    // One Python thread state for the worker's life: `Python::attach` per job
                    // (PyGILState_Ensure/Release) created and destroyed a thread state each
                    // time, a large part of a small call. Between jobs the worker waits
                    // detached (GIL released) and does not count as inside (`next_turn`).
                    let Some(inside) = enter() else { return };
                    let last = Python::attach(move |py| {
                        let mut inside = inside;
                        loop {
                            drop(inside);
                            let (turn, now) = py.detach(|| next_turn(&queue));
                            inside = now;
                            if !turn {
                                return inside; // the server is gone
                            }
                            queue.run_turn(py);
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
            sync,
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
            // The parent's, whose threads are not in this process: leaked, not dropped (its
            // queue's lock may have been held by one of them at the fork).
            std::mem::forget(pool.take());
        }
        f(pool.get_or_insert_with(|| Pool::start(self.workers, generation)))
    }

    /// Run a sync handler on the bounded pool: at once, or on one CPU once the worker has read the
    /// requests that came in with it ([`Hold`]).
    pub(crate) fn run_sync(&self, job: Job) -> bool {
        WORKER_HOLD.with(|h| match h.get() {
            Some(hold) => {
                hold.hold(self.with_pool(|p| p.sync.clone()), job);
                true
            }
            None => self.with_pool(|p| p.sync.push(std::iter::once(job))),
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
