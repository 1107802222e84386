//! [`RedisBus`]: the [`EventBus`] of a deployment of replicas, on Redis pub/sub.

use super::{Incoming, Redis};
use crate::bus::{Event, EventBus, InMemoryBus};
use futures::stream::BoxStream;
use serde::{Deserialize, Serialize};
use std::sync::{Arc, OnceLock};
use tokio::sync::broadcast::error::RecvError;

/// The channel (under the prefix) every replica's bus publishes on.
const CHANNEL: &str = "bus";

#[derive(Serialize, Deserialize)]
struct Wire {
    /// The publishing replica ([`Redis::replica`]).
    from: String,
    event: Event,
}

/// Change events on every replica: `publish` delivers to this replica's listeners at once (so
/// they keep working while Redis is down) and publishes on Redis; the messages of other replicas
/// are delivered to the local listeners, this replica's own are skipped (by replica id), so no
/// listener gets an event twice. A message published while Redis is down reaches only this
/// replica's listeners (the failure is logged); after the subscriber reconnects, local listeners
/// are told every list changed, so they re-list what they may have missed.
pub struct RedisBus {
    redis: Redis,
    local: Arc<InMemoryBus>,
    forwarding: OnceLock<()>,
}

impl RedisBus {
    pub fn new(redis: Redis) -> Self {
        Self {
            redis,
            local: Arc::new(InMemoryBus::default()),
            forwarding: OnceLock::new(),
        }
    }

    /// Forward other replicas' events to the local listeners (from the first `subscribe` on:
    /// with no local listener there is nobody to forward to).
    fn forward(&self) {
        self.forwarding.get_or_init(|| {
            let mut rx = self.redis.subscribe(CHANNEL);
            let me = self.redis.replica().to_string();
            let local = Arc::downgrade(&self.local);
            self.redis.spawn(async move {
                loop {
                    let m = match rx.recv().await {
                        Ok(m) => m,
                        Err(RecvError::Lagged(n)) => {
                            tracing::warn!(skipped = n, "redis bus: a slow replica skipped events");
                            continue;
                        }
                        Err(RecvError::Closed) => return,
                    };
                    let Some(local) = local.upgrade() else { return };
                    match m {
                        Incoming::Message(p) => match serde_json::from_slice::<Wire>(&p) {
                            Ok(w) if w.from != me => local.publish(w.event),
                            Ok(_) => {}
                            Err(e) => {
                                tracing::warn!(error = %e, "redis bus: an unreadable message")
                            }
                        },
                        Incoming::Resubscribed => {
                            local.publish(Event::ToolsListChanged);
                            local.publish(Event::PromptsListChanged);
                            local.publish(Event::ResourcesListChanged);
                        }
                    }
                }
            });
        });
    }
}

impl EventBus for RedisBus {
    fn publish(&self, event: Event) {
        let wire = Wire {
            from: self.redis.replica().to_string(),
            event,
        };
        if let Ok(payload) = serde_json::to_vec(&wire) {
            self.redis.publish_detached(CHANNEL, payload);
        }
        self.local.publish(wire.event);
    }

    fn subscribe(&self) -> BoxStream<'static, Event> {
        self.forward();
        self.local.subscribe()
    }
}
