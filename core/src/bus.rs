//! Change events fanned out to `subscriptions/listen` streams and legacy GET streams. The trait is
//! kept small so a multi-replica implementation (e.g. Redis pub/sub) can replace the in-memory one.

use futures::stream::{BoxStream, StreamExt};
use std::sync::OnceLock;
use tokio::sync::broadcast;

/// Serde-serialisable, so a bus that spans processes (`oxmcp::redis::RedisBus`) can carry it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub enum Event {
    ToolsListChanged,
    PromptsListChanged,
    ResourcesListChanged,
    /// `notifications/resources/updated` for this URI.
    ResourceUpdated(String),
    /// `notifications/tasks`: a task changed; `task` is its `DetailedTask`, `owner` the caller
    /// it belongs to (only that caller's listen streams get it).
    TaskStatus {
        owner: String,
        task: serde_json::Value,
    },
    /// Not a notification (listeners never see it): a `tasks/cancel` (`responses: None`) or a
    /// `tasks/update` answered by a process that does not run task `id`'s handler, for the one
    /// that does (several replicas on one shared bus).
    TaskControl {
        id: String,
        responses: Option<serde_json::Value>,
    },
}

pub trait EventBus: Send + Sync + 'static {
    fn publish(&self, event: Event);
    fn subscribe(&self) -> BoxStream<'static, Event>;
}

/// One process: a tokio broadcast channel. A slow listener that falls behind skips the missed
/// events (a list_changed is idempotent; clients re-list).
///
/// The channel (its ring of `capacity` slots, 48 KiB at the default 1024) is allocated by the
/// first `subscribe`: a server nobody listens to (stdio, stateless HTTP without
/// `subscriptions/listen`) never pays for it. Events published before that reach nobody, as
/// with a channel that has no receiver.
pub struct InMemoryBus {
    capacity: usize,
    tx: OnceLock<broadcast::Sender<Event>>,
}

impl InMemoryBus {
    pub fn new(capacity: usize) -> Self {
        Self {
            capacity: capacity.max(1),
            tx: OnceLock::new(),
        }
    }
}

impl Default for InMemoryBus {
    fn default() -> Self {
        Self::new(1024)
    }
}

impl EventBus for InMemoryBus {
    fn publish(&self, event: Event) {
        if let Some(tx) = self.tx.get() {
            let _ = tx.send(event);
        }
    }
    fn subscribe(&self) -> BoxStream<'static, Event> {
        let rx = self
            .tx
            .get_or_init(|| broadcast::channel(self.capacity).0)
            .subscribe();
        futures::stream::unfold(rx, |mut rx| async move {
            loop {
                match rx.recv().await {
                    Ok(e) => return Some((e, rx)),
                    Err(broadcast::error::RecvError::Lagged(_)) => continue,
                    Err(broadcast::error::RecvError::Closed) => return None,
                }
            }
        })
        .boxed()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_listener_gets_the_events_published_after_it_subscribed() {
        let bus = InMemoryBus::new(4);
        bus.publish(Event::ToolsListChanged); // nobody listens yet: reaches nobody
        let mut a = bus.subscribe();
        let mut b = bus.subscribe();
        bus.publish(Event::ResourceUpdated("file:///x".into()));
        assert_eq!(
            a.next().await,
            Some(Event::ResourceUpdated("file:///x".into()))
        );
        assert_eq!(
            b.next().await,
            Some(Event::ResourceUpdated("file:///x".into()))
        );
    }
}
