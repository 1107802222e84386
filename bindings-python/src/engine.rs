//! Where Python code runs. Tokio workers never take the GIL for handler work:
//! - sync handlers go to a bounded pool of plain threads (each takes the GIL for one call);
//! - async handlers, and every callback into Python, go to one dispatcher thread that only
//!   schedules work onto the asyncio loop (`call_soon_threadsafe`) and returns at once.

use pyo3::prelude::*;
use std::sync::mpsc;
use std::sync::{Arc, Mutex, OnceLock};
use std::thread;

pub(crate) type Job = Box<dyn FnOnce(Python<'_>) + Send + 'static>;

pub(crate) struct Engine {
    sync_tx: Mutex<Option<mpsc::Sender<Job>>>,
    async_tx: Mutex<Option<mpsc::Sender<Job>>>,
    workers: usize,
    started: OnceLock<()>,
    sync_rx: Mutex<Option<mpsc::Receiver<Job>>>,
    async_rx: Mutex<Option<mpsc::Receiver<Job>>>,
    /// The asyncio loop async handlers run on (the caller's loop under `run_async`).
    pub(crate) event_loop: Mutex<Option<Py<PyAny>>>,
}

impl Engine {
    pub(crate) fn new(workers: usize) -> Arc<Self> {
        let (stx, srx) = mpsc::channel();
        let (atx, arx) = mpsc::channel();
        Arc::new(Self {
            sync_tx: Mutex::new(Some(stx)),
            async_tx: Mutex::new(Some(atx)),
            workers: workers.max(1),
            started: OnceLock::new(),
            sync_rx: Mutex::new(Some(srx)),
            async_rx: Mutex::new(Some(arx)),
            event_loop: Mutex::new(None),
        })
    }

    /// Threads start on first use, not at import, so a `fork()` after import is safe.
    fn start(&self) {
        self.started.get_or_init(|| {
            let srx = Arc::new(Mutex::new(self.sync_rx.lock().unwrap_or_else(|e| e.into_inner()).take()));
            for i in 0..self.workers {
                let rx = srx.clone();
                let _ = thread::Builder::new().name(format!("oxmcp-py-{i}")).spawn(move || loop {
                    let job = {
                        let guard = rx.lock().unwrap_or_else(|e| e.into_inner());
                        match guard.as_ref().map(|r| r.recv()) {
                            Some(Ok(job)) => job,
                            _ => return,
                        }
                    };
                    Python::attach(|py| job(py));
                });
            }
            if let Some(arx) = self.async_rx.lock().unwrap_or_else(|e| e.into_inner()).take() {
                let _ = thread::Builder::new().name("oxmcp-py-dispatch".into()).spawn(move || {
                    while let Ok(first) = arx.recv() {
                        // Take the GIL once for everything queued.
                        Python::attach(|py| {
                            first(py);
                            while let Ok(job) = arx.try_recv() {
                                job(py);
                            }
                        });
                    }
                });
            }
        });
    }

    /// Run a sync handler on the bounded pool.
    pub(crate) fn run_sync(&self, job: Job) -> bool {
        self.start();
        let tx = self.sync_tx.lock().unwrap_or_else(|e| e.into_inner());
        tx.as_ref().is_some_and(|t| t.send(job).is_ok())
    }

    /// Run a short piece of Python (scheduling onto the loop, a callback) on the dispatcher thread.
    pub(crate) fn dispatch(&self, job: Job) -> bool {
        self.start();
        let tx = self.async_tx.lock().unwrap_or_else(|e| e.into_inner());
        tx.as_ref().is_some_and(|t| t.send(job).is_ok())
    }

    pub(crate) fn event_loop(&self, py: Python<'_>) -> Option<Py<PyAny>> {
        self.event_loop.lock().unwrap_or_else(|e| e.into_inner()).as_ref().map(|l| l.clone_ref(py))
    }

    pub(crate) fn set_event_loop(&self, lp: Option<Py<PyAny>>) {
        *self.event_loop.lock().unwrap_or_else(|e| e.into_inner()) = lp;
    }
}

/// The tokio runtime the core runs on: pyo3-async-runtimes' global one, built on first use.
pub(crate) fn runtime() -> &'static tokio::runtime::Runtime {
    static INIT: OnceLock<()> = OnceLock::new();
    INIT.get_or_init(|| {
        let mut b = tokio::runtime::Builder::new_multi_thread();
        b.enable_all().thread_name("oxmcp-io");
        if let Some(n) = std::env::var("OXMCP_IO_THREADS").ok().and_then(|v| v.parse::<usize>().ok()) {
            b.worker_threads(n.max(1));
        } else {
            b.worker_threads(2);
        }
        pyo3_async_runtimes::tokio::init(b);
    });
    pyo3_async_runtimes::tokio::get_runtime()
}
