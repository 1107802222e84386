//! The core's single-key rate limits (`oxmcp::limits::TokenBucket`, `SlidingWindow`) for the
//! compatibility layers whose framework keeps one limiter per key it chooses (FastMCP's rate
//! limiting middleware). The host reads its monotonic clock and passes the reading; whether a
//! request is admitted is the core's arithmetic.

use oxmcp::limits::{SlidingWindow, TokenBucket};
use pyo3::prelude::*;
use std::sync::{Mutex, MutexGuard};

#[pyclass(module = "oxmcp._oxmcp", name = "NativeTokenBucket", frozen)]
pub(crate) struct NativeTokenBucket(Mutex<TokenBucket>);

impl NativeTokenBucket {
    fn get(&self) -> MutexGuard<'_, TokenBucket> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[pymethods]
impl NativeTokenBucket {
    /// A full bucket of `capacity` tokens refilled at `rate` per second, as of `now`.
    #[new]
    fn new(capacity: f64, rate: f64, now: f64) -> Self {
        Self(Mutex::new(TokenBucket::new(capacity, rate, now)))
    }
    /// Take `n` tokens at `now`: all of them, or none and `False`.
    fn take(&self, n: f64, now: f64) -> bool {
        self.get().take(n, now)
    }
    #[getter]
    fn capacity(&self) -> f64 {
        self.get().capacity
    }
    #[getter]
    fn rate(&self) -> f64 {
        self.get().rate
    }
    #[getter]
    fn tokens(&self) -> f64 {
        self.get().tokens
    }
    #[setter]
    fn set_tokens(&self, v: f64) {
        self.get().tokens = v;
    }
    #[getter]
    fn at(&self) -> f64 {
        self.get().at
    }
    #[setter]
    fn set_at(&self, v: f64) {
        self.get().at = v;
    }
}

#[pyclass(module = "oxmcp._oxmcp", name = "NativeSlidingWindow", frozen)]
pub(crate) struct NativeSlidingWindow(Mutex<SlidingWindow>);

impl NativeSlidingWindow {
    fn get(&self) -> MutexGuard<'_, SlidingWindow> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[pymethods]
impl NativeSlidingWindow {
    /// At most `max` requests in any `window` seconds (a negative `max` admits none, as 0).
    #[new]
    fn new(max: i64, window: f64) -> Self {
        Self(Mutex::new(SlidingWindow::new(
            u64::try_from(max).unwrap_or(0),
            window,
        )))
    }
    /// Admit one request at `now`, or `False`.
    fn allow(&self, now: f64) -> bool {
        self.get().allow(now)
    }
    fn __len__(&self) -> usize {
        self.get().len()
    }
}
