//! The tokio runtime the addon's transports and `#[napi] async fn`s run on. napi's own default is
//! `Builder::new_multi_thread().enable_all()`; this one is the same plus a park hook: a worker
//! about to park hands the tool calls waiting in a batch to the JS thread (`batch.rs`: on one CPU
//! that is the moment the JS thread can run without preempting the worker).

use std::sync::atomic::{AtomicBool, Ordering};

/// The runtime with the park hook was handed to napi (napi falls back to its own default when
/// an environment is re-created after it was shut down: then `batch.rs` does not wait for parks).
static HOOKED: AtomicBool = AtomicBool::new(false);

std::thread_local! {
    /// This thread was started by the hooked runtime.
    static ON_HOOKED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether the current thread belongs to the runtime whose workers call `before_park`.
pub(crate) fn parks_hooked() -> bool {
    HOOKED.load(Ordering::Relaxed) && ON_HOOKED.with(|h| h.get())
}

#[napi_derive::module_init]
fn init() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .on_thread_start(|| ON_HOOKED.with(|h| h.set(true)))
        .on_thread_park(crate::batch::before_park)
        .build();
    if let Ok(rt) = rt {
        napi::bindgen_prelude::create_custom_tokio_runtime(rt);
        HOOKED.store(true, Ordering::Relaxed);
    }
}
