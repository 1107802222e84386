//! The task engine against a store that goes away and comes back: the outbox, the leases,
//! progress that never waits.

use super::keeper::OUTBOX_MAX_BYTES;
use super::*;
use crate::tasks::store::{InMemoryTaskStore, StoreError, TaskStore};
use crate::BoxFuture;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// The in-memory store, unreachable while `down` is set.
#[derive(Default)]
struct Flaky {
    inner: InMemoryTaskStore,
    down: AtomicBool,
    gets: AtomicU64,
}

impl Flaky {
    fn check(&self) -> Result<(), StoreError> {
        match self.down.load(Ordering::SeqCst) {
            true => Err(StoreError("unreachable".into())),
            false => Ok(()),
        }
    }
}

impl TaskStore for Flaky {
    fn insert(&self, rec: TaskRecord) -> BoxFuture<Result<(), StoreError>> {
        match self.check() {
            Ok(()) => self.inner.insert(rec),
            Err(e) => Box::pin(async move { Err(e) }),
        }
    }
    fn get(&self, id: &str) -> BoxFuture<Result<Option<TaskRecord>, StoreError>> {
        self.gets.fetch_add(1, Ordering::SeqCst);
        match self.check() {
            Ok(()) => self.inner.get(id),
            Err(e) => Box::pin(async move { Err(e) }),
        }
    }
    fn replace(&self, rec: TaskRecord, expected: u64) -> BoxFuture<Result<bool, StoreError>> {
        match self.check() {
            Ok(()) => self.inner.replace(rec, expected),
            Err(e) => Box::pin(async move { Err(e) }),
        }
    }
    fn remove(&self, id: &str) -> BoxFuture<Result<(), StoreError>> {
        self.inner.remove(id)
    }
    fn purge_expired(&self, now_ms: u64) -> BoxFuture<Result<usize, StoreError>> {
        self.inner.purge_expired(now_ms)
    }
}

fn engine(store: Arc<Flaky>, lease: Duration) -> Arc<TaskEngine> {
    let config = TaskConfig::default().store(store).lease(lease);
    Arc::new(TaskEngine::new(
        config,
        Arc::new(crate::bus::InMemoryBus::new(64)),
    ))
}

#[tokio::test]
async fn an_end_the_store_refuses_is_held_and_written_once_it_is_back() {
    let store = Arc::new(Flaky::default());
    let e = engine(store.clone(), Duration::from_millis(300));
    let rec = e
        .create("", None, 0, CancellationToken::new())
        .await
        .unwrap();
    store.down.store(true, Ordering::SeqCst);
    let result = serde_json::json!({"content": [{"type": "text", "text": "done"}]});
    e.finish(
        &rec.id,
        TaskStatus::Completed,
        Some(result.clone()),
        None,
        None,
    )
    .await;
    assert!(e.holds(&rec.id), "held while the store is down");
    assert_eq!(e.outbox().ends.len(), 1);
    tokio::time::sleep(Duration::from_millis(300)).await;
    store.down.store(false, Ordering::SeqCst);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(3);
    loop {
        let now = store.inner.get(&rec.id).await.unwrap().unwrap();
        if now.status == TaskStatus::Completed {
            assert_eq!(now.result, Some(result));
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "never written: {now:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(!e.holds(&rec.id) && e.outbox().bytes == 0);
}

#[tokio::test]
async fn the_outbox_is_bounded_in_bytes() {
    let store = Arc::new(Flaky::default());
    let e = engine(store.clone(), Duration::from_secs(30));
    let a = e
        .create("", None, 0, CancellationToken::new())
        .await
        .unwrap();
    let b = e
        .create("", None, 0, CancellationToken::new())
        .await
        .unwrap();
    store.down.store(true, Ordering::SeqCst);
    let big = Value::String("x".repeat(OUTBOX_MAX_BYTES / 2 + 1));
    e.finish(&a.id, TaskStatus::Completed, Some(big.clone()), None, None)
        .await;
    e.finish(&b.id, TaskStatus::Completed, Some(big), None, None)
        .await;
    assert!(e.holds(&a.id), "the first fits");
    assert!(
        !e.holds(&b.id),
        "the second is past the bytes bound: dropped"
    );
    assert!(e.outbox().bytes <= OUTBOX_MAX_BYTES);
}

#[tokio::test]
async fn progress_never_waits_on_the_store_and_only_the_latest_is_written() {
    let store = Arc::new(Flaky::default());
    let e = engine(store.clone(), Duration::from_secs(30));
    let rec = e
        .create("", None, 0, CancellationToken::new())
        .await
        .unwrap();
    store.down.store(true, Ordering::SeqCst);
    let t0 = std::time::Instant::now();
    for i in 0..1000 {
        e.set_message(&rec.id, format!("step {i}"));
    }
    assert!(t0.elapsed() < Duration::from_millis(500), "progress waited");
    tokio::time::sleep(Duration::from_millis(50)).await;
    store.down.store(false, Ordering::SeqCst);
    e.set_message(&rec.id, "latest".into());
    let deadline = tokio::time::Instant::now() + Duration::from_secs(3);
    loop {
        let now = store.inner.get(&rec.id).await.unwrap().unwrap();
        if now.status_message.as_deref() == Some("latest") {
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "{now:?}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    // Coalesced: far fewer store reads than messages.
    assert!(store.gets.load(Ordering::SeqCst) < 100);
}
