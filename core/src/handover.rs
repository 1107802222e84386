//! The one-CPU hand-over the bindings share: when the process may use one CPU only (`taskset`,
//! a one-CPU cgroup quota), the host's thread (Python's pool threads, Node's JS thread) cannot
//! run beside the runtime's worker, so calls made on the worker are held and handed to the host
//! together, once the worker has read every request that came in.
//!
//! Each binding keeps its own holding (Python's per-pool queues, Node's one inbox); this module
//! holds what they must agree on: whether there is one CPU, how long a hold may last, and when
//! the worker has run out of new requests.

use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// How long held calls wait for the worker to run out of new requests before they are handed
/// over anyway (requests that never stop coming).
pub const HOLD_BOUND: Duration = Duration::from_millis(1);

/// Whether host threads can run beside the runtime's workers: false when this process may use
/// one CPU only. Read once.
pub fn parallel() -> bool {
    static P: OnceLock<bool> = OnceLock::new();
    *P.get_or_init(|| std::thread::available_parallelism().map_or(true, |n| n.get() > 1))
}

/// Wait, from a first held call, until a poll of the sockets brings no new call (`count`, the
/// calls held since the start, is the same across it), or [`HOLD_BOUND`] has passed.
///
/// A yielded task waits for the worker's next driver poll, and is then woken ahead of the tasks
/// that poll woke (the worker's LIFO slot): the second yield lets those tasks run, and polls
/// once more. (Handing over when the worker was about to park split each round of requests in
/// two: those read before the last poll, and those that came in while they were read.)
pub async fn settled(count: impl Fn() -> u64) {
    let since = Instant::now();
    loop {
        let seen = count();
        tokio::task::yield_now().await;
        tokio::task::yield_now().await;
        if count() == seen || since.elapsed() >= HOLD_BOUND {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::Arc;

    /// Calls that keep coming are handed over after the bound, not held for ever; calls that
    /// stop are handed over at the next quiet poll.
    #[tokio::test(flavor = "current_thread")]
    async fn a_hold_ends_when_calls_stop_or_at_the_bound() {
        let n = Arc::new(AtomicU64::new(0));
        let busy = {
            let n = n.clone();
            tokio::spawn(async move {
                loop {
                    n.fetch_add(1, Ordering::AcqRel);
                    tokio::task::yield_now().await;
                }
            })
        };
        let t = Instant::now();
        settled(|| n.load(Ordering::Acquire)).await;
        assert!(t.elapsed() >= HOLD_BOUND, "held while calls kept coming");
        busy.abort();
        let _ = busy.await;
        let before = n.load(Ordering::Acquire);
        settled(|| n.load(Ordering::Acquire)).await;
        assert_eq!(n.load(Ordering::Acquire), before);
    }
}
