//! The Redis task store against a real `redis-server` (see `crate::redis::testing`).

use super::RedisTaskStore;
use crate::redis::testing::{eventually, RedisServer};
use crate::redis::Redis;
use crate::tasks::{TaskRecord, TaskStatus, TaskStore};
use std::time::Duration;

#[tokio::test]
async fn task_records_are_shared_compare_and_set_and_expire() {
    let srv = RedisServer::start();
    let a = RedisTaskStore::new(Redis::open(&srv.url(), "tasks1:").unwrap());
    let b = RedisTaskStore::new(Redis::open(&srv.url(), "tasks1:").unwrap());
    let rec = TaskRecord::new("t-1".into(), "alice".into(), Some(60_000), Some(500));
    a.insert(rec.clone()).await.unwrap();
    assert!(
        a.insert(rec.clone()).await.is_err(),
        "a duplicate id is refused"
    );
    // Another replica reads it.
    let got = b.get("t-1").await.unwrap().unwrap();
    assert_eq!(got, rec);
    // Compare-and-set: the first writer of version 0 wins, the second must re-read.
    let mut done = got.clone();
    done.status = TaskStatus::Completed;
    done.result = Some(serde_json::json!({"content": []}));
    done.version = 1;
    assert!(b.replace(done.clone(), 0).await.unwrap());
    let mut late = rec.clone();
    late.status = TaskStatus::Cancelled;
    late.version = 1;
    assert!(!a.replace(late, 0).await.unwrap());
    assert_eq!(a.get("t-1").await.unwrap().unwrap(), done);
    // The TTL is the key's own (and survives the replace).
    let mut pttl = ::redis::cmd("PTTL");
    pttl.arg("tasks1:task:t-1");
    let ms: i64 = a.redis.query(pttl).await.unwrap();
    assert!(ms > 50_000 && ms <= 60_000, "{ms}");
    a.remove("t-1").await.unwrap();
    assert!(b.get("t-1").await.unwrap().is_none());
    assert!(!a.replace(done, 1).await.unwrap(), "gone");
    // A short TTL: Redis drops the record by itself.
    let short = TaskRecord::new("t-2".into(), "alice".into(), Some(100), None);
    a.insert(short).await.unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(b.get("t-2").await.unwrap().is_none());
}

#[tokio::test]
async fn the_store_fails_fast_while_redis_is_down() {
    let mut srv = RedisServer::start();
    let a = RedisTaskStore::new(Redis::open(&srv.url(), "tasks2:").unwrap());
    a.insert(TaskRecord::new("x".into(), "o".into(), None, None))
        .await
        .unwrap();
    srv.stop();
    let t = std::time::Instant::now();
    assert!(a.get("x").await.is_err());
    assert!(t.elapsed() < Duration::from_secs(3));
    srv.restart();
    // The connection comes back by itself (the record is gone with the unsaved Redis).
    eventually(async || a.get("x").await.is_ok()).await;
}

#[tokio::test]
async fn a_task_lease_lapses_unless_renewed() {
    let server = RedisServer::start();
    let store = RedisTaskStore::new(Redis::open(&server.url(), "t:").unwrap());
    let mut rec = TaskRecord::new("t1".into(), String::new(), Some(60_000), None);
    rec.lease_ms = Some(300);
    store.insert(rec.clone()).await.unwrap();
    let mut other = TaskRecord::new("t2".into(), String::new(), Some(60_000), None);
    other.lease_ms = Some(300);
    store.insert(other).await.unwrap();
    let ids = || vec!["t1".to_string(), "t2".to_string()];
    assert!(
        store.lapsed(ids()).await.unwrap().is_empty(),
        "held from insert on"
    );
    for _ in 0..4 {
        tokio::time::sleep(std::time::Duration::from_millis(150)).await;
        store
            .renew_leases(vec!["t1".into()], std::time::Duration::from_millis(300))
            .await
            .unwrap();
    }
    assert_eq!(store.lapsed(ids()).await.unwrap(), vec!["t2".to_string()]);
    store.remove("t1").await.unwrap();
    assert_eq!(
        store.lapsed(ids()).await.unwrap(),
        ids(),
        "removed with its record"
    );
}
