//! Where task records live. The trait is shaped for a shared store (Redis, a database): whole
//! records in and out as serde data, async, and compare-and-set on a version instead of closures,
//! so a task handle can outlive the replica that created it. Only the *running* side of a task
//! (its handler future, the channels that wake it) is per-process; the record is not.

use super::record::TaskRecord;
use crate::BoxFuture;
use std::collections::HashMap;
use std::sync::Mutex;

/// A store failure (a network error talking to Redis, say). Maps to JSON-RPC -32603.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreError(pub String);

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "task store: {}", self.0)
    }
}
impl std::error::Error for StoreError {}

/// Durable task records. Every method is one round trip on a remote store.
pub trait TaskStore: Send + Sync + 'static {
    /// Store a new record. It must be readable by `get` (from any replica) once this resolves:
    /// the server answers `CreateTaskResult` only after that (spec: durable create).
    fn insert(&self, rec: TaskRecord) -> BoxFuture<Result<(), StoreError>>;
    fn get(&self, id: &str) -> BoxFuture<Result<Option<TaskRecord>, StoreError>>;
    /// The records of `ids`, in order (`None` for each that is gone). A remote store reads
    /// them in one round trip (Redis `MGET`); this default reads them one by one.
    fn get_many(&self, ids: &[String]) -> BoxFuture<Result<Vec<Option<TaskRecord>>, StoreError>> {
        let gets: Vec<_> = ids.iter().map(|id| self.get(id)).collect();
        Box::pin(async move {
            let mut out = Vec::with_capacity(gets.len());
            for g in gets {
                out.push(g.await?);
            }
            Ok(out)
        })
    }
    /// Replace the record if its stored `version` is still `expected`; `Ok(false)` when someone
    /// else changed it first (the caller re-reads and retries).
    fn replace(&self, rec: TaskRecord, expected: u64) -> BoxFuture<Result<bool, StoreError>>;
    fn remove(&self, id: &str) -> BoxFuture<Result<(), StoreError>>;
    /// Drop records past their TTL; returns how many. A store with native expiry (Redis
    /// `PEXPIREAT`) can make this a no-op.
    fn purge_expired(&self, now_ms: u64) -> BoxFuture<Result<usize, StoreError>>;
    /// Renew for `lease` the leases of these tasks, whose handlers run (or whose ends wait to be
    /// written) in this process. A store that only this process reads keeps no leases: the
    /// default does nothing.
    fn renew_leases(
        &self,
        ids: Vec<String>,
        lease: std::time::Duration,
    ) -> BoxFuture<Result<(), StoreError>> {
        let _ = (ids, lease);
        Box::pin(async { Ok(()) })
    }
    /// Which of these tasks (each stored with a `lease_ms`) have no lease any more: the process
    /// running them stopped renewing it. The default (no leases kept): none.
    fn lapsed(&self, ids: Vec<String>) -> BoxFuture<Result<Vec<String>, StoreError>> {
        let _ = ids;
        Box::pin(async { Ok(Vec::new()) })
    }
}

/// The default: a map in this process (lost on restart).
#[derive(Default)]
pub struct InMemoryTaskStore {
    map: Mutex<HashMap<String, TaskRecord>>,
}

impl InMemoryTaskStore {
    pub fn new() -> Self {
        Self::default()
    }
    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<String, TaskRecord>> {
        self.map.lock().unwrap_or_else(|e| e.into_inner())
    }
    /// How many records are held (expired ones included until purged).
    pub fn len(&self) -> usize {
        self.map().len()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl TaskStore for InMemoryTaskStore {
    fn insert(&self, rec: TaskRecord) -> BoxFuture<Result<(), StoreError>> {
        let r = match self.map().entry(rec.id.clone()) {
            std::collections::hash_map::Entry::Occupied(_) => {
                Err(StoreError("duplicate task id".into()))
            }
            std::collections::hash_map::Entry::Vacant(v) => {
                v.insert(rec);
                Ok(())
            }
        };
        Box::pin(async move { r })
    }
    fn get(&self, id: &str) -> BoxFuture<Result<Option<TaskRecord>, StoreError>> {
        let r = self.map().get(id).cloned();
        Box::pin(async move { Ok(r) })
    }
    fn replace(&self, rec: TaskRecord, expected: u64) -> BoxFuture<Result<bool, StoreError>> {
        let mut map = self.map();
        let ok = match map.get_mut(&rec.id) {
            Some(cur) if cur.version == expected => {
                *cur = rec;
                true
            }
            _ => false,
        };
        drop(map);
        Box::pin(async move { Ok(ok) })
    }
    fn remove(&self, id: &str) -> BoxFuture<Result<(), StoreError>> {
        self.map().remove(id);
        Box::pin(async move { Ok(()) })
    }
    fn purge_expired(&self, now_ms: u64) -> BoxFuture<Result<usize, StoreError>> {
        let mut map = self.map();
        let before = map.len();
        map.retain(|_, r| !r.is_expired(now_ms));
        let n = before - map.len();
        drop(map);
        Box::pin(async move { Ok(n) })
    }
}
