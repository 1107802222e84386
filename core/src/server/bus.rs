//! Change events fanned out to `subscriptions/listen` streams and legacy GET streams. The trait is
//! kept small so a multi-replica implementation (e.g. Redis pub/sub) can replace the in-memory one.

use futures::stream::{BoxStream, StreamExt};
use tokio::sync::broadcast;

#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Event {
    ToolsListChanged,
    PromptsListChanged,
    ResourcesListChanged,
    /// `notifications/resources/updated` for this URI.
    ResourceUpdated(String),
}

pub trait EventBus: Send + Sync + 'static {
    fn publish(&self, event: Event);
    fn subscribe(&self) -> BoxStream<'static, Event>;
}

/// One process: a tokio broadcast channel. A slow listener that falls behind skips the missed
/// events (a list_changed is idempotent; clients re-list).
pub struct InMemoryBus {
    tx: broadcast::Sender<Event>,
}

impl InMemoryBus {
    pub fn new(capacity: usize) -> Self {
        Self {
            tx: broadcast::channel(capacity.max(1)).0,
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
        let _ = self.tx.send(event);
    }
    fn subscribe(&self) -> BoxStream<'static, Event> {
        let rx = self.tx.subscribe();
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
