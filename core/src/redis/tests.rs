//! Against a real `redis-server` (its own, on a free loopback port): see `testing.rs`.

use super::testing::{eventually, RedisServer};
use super::*;
use std::time::Duration;

async fn next(rx: &mut broadcast::Receiver<Incoming>) -> Incoming {
    tokio::time::timeout(Duration::from_secs(10), rx.recv())
        .await
        .expect("a message within 10 s")
        .expect("an open channel")
}

#[tokio::test]
async fn commands_run_and_keys_carry_the_prefix() {
    let srv = RedisServer::start();
    let r = Redis::open(&srv.url(), "t1:").unwrap();
    assert_eq!(r.key("x"), "t1:x");
    assert!(r.ping().await);
    let mut set = ::redis::cmd("SET");
    set.arg(r.key("x")).arg("v");
    r.query::<()>(set).await.unwrap();
    let mut get = ::redis::cmd("GET");
    get.arg("t1:x");
    assert_eq!(r.query::<String>(get).await.unwrap(), "v");
    // Two handles are two replicas.
    let other = Redis::open(&srv.url(), "t1:").unwrap();
    assert_ne!(r.replica(), other.replica());
}

#[tokio::test]
async fn a_message_reaches_every_subscriber_of_its_channel() {
    let srv = RedisServer::start();
    let a = Redis::open(&srv.url(), DEFAULT_PREFIX).unwrap();
    let b = Redis::open(&srv.url(), DEFAULT_PREFIX).unwrap();
    let mut on_b = b.subscribe("chan");
    let mut on_a = a.subscribe("chan");
    let mut elsewhere = b.subscribe("other");
    // The subscriptions are made by the subscriber task: publish until one arrives.
    eventually(async || {
        a.publish("chan", b"hello".to_vec()).await.unwrap();
        matches!(on_b.try_recv(), Ok(Incoming::Message(_)))
    })
    .await;
    a.publish("chan", b"second".to_vec()).await.unwrap();
    loop {
        if next(&mut on_b).await == Incoming::Message(b"second"[..].into()) {
            break;
        }
    }
    // The publisher's own subscribers hear it too (the bus skips its own by replica id).
    loop {
        if next(&mut on_a).await == Incoming::Message(b"second"[..].into()) {
            break;
        }
    }
    assert!(elsewhere.try_recv().is_err());
}

#[tokio::test]
async fn the_subscriber_comes_back_after_a_redis_restart() {
    let mut srv = RedisServer::start();
    let a = Redis::open(&srv.url(), DEFAULT_PREFIX).unwrap();
    let mut rx = a.subscribe("restart");
    eventually(async || {
        a.publish("restart", b"1".to_vec()).await.unwrap();
        matches!(rx.try_recv(), Ok(Incoming::Message(_)))
    })
    .await;
    srv.stop();
    // Commands fail fast while it is down (no hang).
    let t = std::time::Instant::now();
    assert!(!a.ping().await);
    assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());
    srv.restart();
    // The subscriber reconnects, subscribes again, and says so.
    loop {
        if next(&mut rx).await == Incoming::Resubscribed {
            break;
        }
    }
    eventually(async || {
        let _ = a.publish("restart", b"2".to_vec()).await;
        matches!(rx.try_recv(), Ok(Incoming::Message(m)) if &*m == b"2")
    })
    .await;
}

#[test]
fn passwords_stay_out_of_logs() {
    assert_eq!(
        redact("redis://:s3cret@10.0.0.1:6379/0"),
        "redis://:***@10.0.0.1:6379/0"
    );
    assert_eq!(redact("redis://user:pw@h/"), "redis://user:***@h/");
    assert_eq!(redact("redis://127.0.0.1:6379/"), "redis://127.0.0.1:6379/");
    assert_eq!(
        redact("unix:///run/redis.sock?db=2&pass=s3cret&user=app"),
        "unix:///run/redis.sock?db=2&pass=***&user=app"
    );
    assert_eq!(
        redact("redis://u:pw@h/?password=x"),
        "redis://u:***@h/?password=***"
    );
}

// ---- RedisBus ---------------------------------------------------------------------------------

use crate::bus::{Event, EventBus};
use futures::stream::BoxStream;
use futures::StreamExt;

async fn event(s: &mut BoxStream<'static, Event>) -> Event {
    tokio::time::timeout(Duration::from_secs(10), s.next())
        .await
        .expect("an event within 10 s")
        .expect("an open stream")
}

/// Drain what is queued on `s` (nothing for `quiet`).
async fn drain(s: &mut BoxStream<'static, Event>, quiet: Duration) -> Vec<Event> {
    let mut out = Vec::new();
    while let Ok(Some(e)) = tokio::time::timeout(quiet, s.next()).await {
        out.push(e);
    }
    out
}

/// Publish on `from` until `to` hears it: the subscriptions are made by the subscriber tasks.
async fn until_heard(
    from: &RedisBus,
    on_from: &mut BoxStream<'static, Event>,
    on_to: &mut BoxStream<'static, Event>,
) {
    for n in 0..50 {
        let e = Event::ResourceUpdated(format!("warm:{n}"));
        from.publish(e.clone());
        let own = drain(on_from, Duration::from_millis(100)).await;
        assert!(
            own.contains(&e),
            "the publisher's own listener hears it at once: {own:?}"
        );
        if drain(on_to, Duration::from_millis(200)).await.contains(&e) {
            return;
        }
    }
    panic!("never heard across replicas");
}

/// Two replicas' buses on one Redis: each listener gets every event once, from either side.
#[tokio::test]
async fn events_reach_every_replica_once() {
    let srv = RedisServer::start();
    let a = RedisBus::new(Redis::open(&srv.url(), "bus1:").unwrap());
    let b = RedisBus::new(Redis::open(&srv.url(), "bus1:").unwrap());
    let mut on_a = a.subscribe();
    let mut on_b = b.subscribe();
    until_heard(&a, &mut on_a, &mut on_b).await;
    until_heard(&b, &mut on_b, &mut on_a).await;
    drain(&mut on_a, Duration::from_millis(300)).await;
    drain(&mut on_b, Duration::from_millis(300)).await;
    let task = Event::TaskStatus {
        owner: "alice".into(),
        task: serde_json::json!({"taskId": "t1", "status": "working"}),
    };
    b.publish(task.clone());
    a.publish(Event::ToolsListChanged);
    // Each listener: B's task event and A's list_changed, once each (one came from Redis, the
    // other locally; the own message echoed by Redis was skipped).
    let key = |e: &Event| format!("{e:?}");
    let mut want = vec![task.clone(), Event::ToolsListChanged];
    want.sort_by_key(key);
    for on in [&mut on_a, &mut on_b] {
        let mut got = drain(on, Duration::from_millis(500)).await;
        got.sort_by_key(key);
        assert_eq!(got, want);
    }
}

/// Redis down: local listeners still hear local events; after Redis is back, listeners are told
/// to re-list, and events cross replicas again.
#[tokio::test]
async fn listeners_survive_a_redis_restart() {
    let mut srv = RedisServer::start();
    let a = RedisBus::new(Redis::open(&srv.url(), "bus2:").unwrap());
    let b = RedisBus::new(Redis::open(&srv.url(), "bus2:").unwrap());
    let mut on_a = a.subscribe();
    let mut on_b = b.subscribe();
    until_heard(&b, &mut on_b, &mut on_a).await;
    srv.stop();
    a.publish(Event::ResourceUpdated("local".into()));
    assert_eq!(
        event(&mut on_a).await,
        Event::ResourceUpdated("local".into())
    );
    srv.restart();
    // The resync after the subscriber is back: all three lists.
    let mut seen = Vec::new();
    while seen.len() < 3 {
        let e = event(&mut on_a).await;
        if matches!(
            e,
            Event::ToolsListChanged | Event::PromptsListChanged | Event::ResourcesListChanged
        ) && !seen.contains(&e)
        {
            seen.push(e);
        }
    }
    // B's publish while Redis was down failed (logged); once both are back, events cross again.
    until_heard(&b, &mut on_b, &mut on_a).await;
}

// ---- shared rate limits -----------------------------------------------------------------------

use crate::limits::{RateLimit, RateLimiter};

#[tokio::test]
async fn two_replicas_share_one_bucket_and_fall_back_when_redis_is_down() {
    let mut srv = RedisServer::start();
    let limiter = || Arc::new(RateLimiter::new(RateLimit::per_second(0.5, 3)));
    let a = SharedRateLimit::new(Redis::open(&srv.url(), "rate1:").unwrap(), limiter());
    let b = SharedRateLimit::new(Redis::open(&srv.url(), "rate1:").unwrap(), limiter());
    // A burst of 3 over both replicas, then a wait of about 2 s (one token at 0.5/s).
    assert!(a.check_keyed("alice", "alice", 1).await.is_ok());
    assert!(b.check_keyed("alice", "alice", 1).await.is_ok());
    assert!(a.check_keyed("alice", "alice", 1).await.is_ok());
    let wait = b.check_keyed("alice", "alice", 1).await.unwrap_err();
    assert!(
        wait > Duration::from_millis(1500) && wait <= Duration::from_secs(2),
        "{wait:?}"
    );
    // Another caller has its own bucket; a batch bigger than the burst never fits.
    assert!(b.check_keyed("bob", "bob", 2).await.is_ok());
    assert!(b.check_keyed("carol", "carol", 4).await.is_err());
    // The script is loaded again after a SCRIPT FLUSH (EVALSHA falls back to EVAL).
    a.redis
        .query::<()>(::redis::cmd("SCRIPT").arg("FLUSH").clone())
        .await
        .unwrap();
    assert!(a.check_keyed("dave", "dave", 1).await.is_ok());
    // Redis down: each replica counts on its own (fails open per replica, never closed).
    srv.stop();
    let t = std::time::Instant::now();
    assert!(a.check_keyed("alice", "alice", 1).await.is_ok());
    assert!(b.check_keyed("alice", "alice", 1).await.is_ok());
    assert!(t.elapsed() < Duration::from_secs(3));
    // ... with the same limit: a burst of 3 per replica (one spent above).
    assert!(a.check_keyed("alice", "alice", 2).await.is_ok());
    assert!(a.check_keyed("alice", "alice", 1).await.is_err());
}

/// The command timeout is the handle's option: against a Redis that accepts connections and
/// never answers (a partition), a command fails within twice the timeout, not the default's.
#[tokio::test]
async fn the_command_timeout_bounds_a_silent_redis() {
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = silent.local_addr().unwrap();
    let r = Redis::open(&format!("redis://{addr}/"), "t:").unwrap();
    assert_eq!(r.timeout(), COMMAND_TIMEOUT);
    r.set_timeout(Duration::from_millis(150));
    assert_eq!(r.timeout(), Duration::from_millis(150));
    let t0 = std::time::Instant::now();
    assert!(!r.ping().await, "a silent Redis does not answer");
    let took = t0.elapsed();
    assert!(
        took < Duration::from_millis(800),
        "took {took:?}: not bounded by the 150 ms timeout"
    );
    drop(silent);
}

/// Used-once ids (DPoP proof ids) shared by two replicas: the first use is taken, a second one
/// anywhere is not, and an id is forgotten after the time it must be kept. Redis down: an error,
/// promptly (the authenticator then checks against its own cache).
#[tokio::test]
async fn used_once_ids_are_shared_and_expire() {
    use crate::auth::SeenIds;
    use crate::redis::RedisSeen;
    let mut srv = RedisServer::start();
    let a = RedisSeen::new(Redis::open(&srv.url(), "seen1:").unwrap());
    let b = RedisSeen::new(Redis::open(&srv.url(), "seen1:").unwrap());
    let keep = Duration::from_millis(300);
    assert_eq!(a.first_use([1; 32], keep).await, Ok(true));
    assert_eq!(b.first_use([1; 32], keep).await, Ok(false));
    assert_eq!(b.first_use([2; 32], keep).await, Ok(true));
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert_eq!(
        a.first_use([1; 32], keep).await,
        Ok(true),
        "kept no longer than asked"
    );
    srv.stop();
    let t = std::time::Instant::now();
    assert!(a.first_use([3; 32], keep).await.is_err());
    assert!(t.elapsed() < Duration::from_secs(3));
}
