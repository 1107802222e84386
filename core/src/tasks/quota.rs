//! How many tasks each caller holds: a task counts against its caller from creation until its
//! record expires (a finished task's result is kept for the TTL, so it is held as long as a
//! running one). [`TaskQuota`] is that count; the engine asks it before a task is stored.
//!
//! In memory by default (one process); with Redis (`tasks/redis/quota.rs`) the count is shared, so a
//! caller cannot spread its tasks over the replicas to hold more.

use super::store::StoreError;
use crate::BoxFuture;
use std::collections::HashMap;
use std::sync::Mutex;

/// The tasks each caller holds, by the key its budget is counted against
/// (`access::budget_key`). Every method is one round trip on a remote store.
pub trait TaskQuota: Send + Sync + 'static {
    /// Count task `id` against `key` until `expires_at_ms` (`None`: until it is released), unless
    /// `key` holds `max` unexpired tasks already: then `Ok(false)` and nothing is counted.
    fn take(
        &self,
        key: &str,
        id: &str,
        expires_at_ms: Option<u64>,
        max: usize,
        now_ms: u64,
    ) -> BoxFuture<Result<bool, StoreError>>;
    /// Stop counting task `id` (it was dropped before its TTL).
    fn release(&self, key: &str, id: &str) -> BoxFuture<Result<(), StoreError>>;
}

/// One caller's tasks: each one's id and expiry.
type Held = Vec<(String, Option<u64>)>;

/// The default: counts in this process.
#[derive(Default)]
pub struct InMemoryTaskQuota {
    map: Mutex<HashMap<String, Held>>,
}

impl InMemoryTaskQuota {
    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<String, Held>> {
        self.map.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl TaskQuota for InMemoryTaskQuota {
    fn take(
        &self,
        key: &str,
        id: &str,
        expires_at_ms: Option<u64>,
        max: usize,
        now_ms: u64,
    ) -> BoxFuture<Result<bool, StoreError>> {
        let mut map = self.map();
        // Expired entries go as the caller's next task is counted, and callers with none left
        // go with them: the map holds only callers with live tasks (and the one counted now).
        map.retain(|_, held| {
            held.retain(|(_, e)| e.is_none_or(|e| e > now_ms));
            !held.is_empty()
        });
        let held = map.entry(key.to_string()).or_default();
        let ok = held.len() < max;
        if ok {
            held.push((id.to_string(), expires_at_ms));
        } else if held.is_empty() {
            map.remove(key);
        }
        Box::pin(async move { Ok(ok) })
    }

    fn release(&self, key: &str, id: &str) -> BoxFuture<Result<(), StoreError>> {
        let mut map = self.map();
        if let Some(held) = map.get_mut(key) {
            held.retain(|(i, _)| i != id);
            if held.is_empty() {
                map.remove(key);
            }
        }
        Box::pin(async { Ok(()) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_caller_holds_at_most_max_tasks_until_they_expire_or_are_released() {
        let q = InMemoryTaskQuota::default();
        assert!(q.take("a", "1", Some(100), 2, 0).await.unwrap());
        assert!(q.take("a", "2", None, 2, 0).await.unwrap());
        assert!(!q.take("a", "3", None, 2, 0).await.unwrap(), "at the cap");
        assert!(
            q.take("b", "4", None, 2, 0).await.unwrap(),
            "another caller"
        );
        assert!(
            q.take("a", "3", None, 2, 100).await.unwrap(),
            "task 1 expired"
        );
        assert!(!q.take("a", "5", None, 2, 100).await.unwrap());
        q.release("a", "2").await.unwrap();
        assert!(
            q.take("a", "5", None, 2, 100).await.unwrap(),
            "task 2 released"
        );
    }
}
