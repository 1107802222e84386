//! Awaitables for Python whose work runs on the tokio runtime.
//!
//! An asyncio future is created on the caller's running loop; the Rust task settles it with
//! `call_soon_threadsafe` through the engine's gate (never a bare `Python::attach` on a runtime
//! thread, which could race the interpreter's finalization). Cancelling the asyncio future
//! (the client went away, a timeout) aborts the Rust task, which drops whatever it awaited.

use crate::engine::{attach, runtime};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyCFunction, PyTuple};
use std::future::Future;

/// Builds the result object once the task is back with the GIL.
pub(crate) type Convert = Box<dyn FnOnce(Python<'_>) -> PyResult<Py<PyAny>> + Send>;

/// `oxmcp._runtime.deliver(loop, future, ok, value)`.
static DELIVER: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// `None` in Python.
pub(crate) fn none() -> Convert {
    Box::new(|py| Ok(py.None()))
}

/// Run `work` on the runtime; return an asyncio future (of the caller's loop) for its result.
pub(crate) fn spawn<'py, F>(py: Python<'py>, work: F) -> PyResult<Bound<'py, PyAny>>
where
    F: Future<Output = PyResult<Convert>> + Send + 'static,
{
    let deliver = DELIVER
        .import(py, "oxmcp._runtime", "deliver")?
        .clone()
        .unbind();
    let event_loop = py.import("asyncio")?.call_method0("get_running_loop")?;
    let fut = event_loop.call_method0("create_future")?;
    let (target, lp) = (fut.clone().unbind(), event_loop.unbind());
    let task = runtime().spawn(async move {
        let r = work.await;
        attach(move |py| {
            let (ok, v) = match r.and_then(|c| c(py)) {
                Ok(v) => (true, v),
                Err(e) => (false, e.into_value(py).into_any()),
            };
            if let Err(e) = deliver.call1(py, (lp, target, ok, v)) {
                e.print(py);
            }
        });
    });
    let abort = task.abort_handle();
    let on_done = PyCFunction::new_closure(
        py,
        None,
        None,
        move |args: &Bound<'_, PyTuple>, _kw| -> PyResult<()> {
            if args.get_item(0)?.call_method0("cancelled")?.is_truthy()? {
                abort.abort();
            }
            Ok(())
        },
    )?;
    fut.call_method1("add_done_callback", (on_done,))?;
    Ok(fut)
}
