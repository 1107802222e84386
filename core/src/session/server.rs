//! The legacy sessions as the server serves them: the one a request names (loaded from the
//! store when this process has not served it yet), its end on every replica, and the other
//! replicas' signals about the sessions this process holds.

use super::store::SessionSignal;
use super::{LegacySession, StreamNews};
use crate::error::McpError;
use crate::server::Server;
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// The legacy sessions of a [`Server`]: the one looked up for a request, its end, and the other
/// replicas' signals about them.
impl Server {
    /// The live legacy HTTP session with this `Mcp-Session-Id` (expired ones are gone), loaded
    /// from the session store when this process has not served it yet. `Err`: the store is
    /// unreachable (503).
    pub(crate) async fn legacy_session(
        &self,
        id: &str,
        caller: Option<&crate::identity::Caller>,
    ) -> Result<Option<Arc<LegacySession>>, McpError> {
        self.start_session_signals();
        self.inner.sessions.get(id, caller).await
    }

    /// End a legacy HTTP session (DELETE) on every replica; `false` when there was none.
    pub(crate) async fn end_session(&self, id: &str) -> Result<bool, McpError> {
        self.inner.sessions.remove(id).await
    }

    /// With a shared session store: hear the other replicas' signals (once, from the first
    /// legacy session this process serves, so a server that never sees one never listens).
    pub(crate) fn start_session_signals(&self) {
        if !self.inner.sessions.store.is_shared()
            || self.inner.session_signals.swap(true, Ordering::SeqCst)
        {
            return;
        }
        let Some(mut signals) = self.inner.sessions.store.signals() else {
            return;
        };
        let weak = Arc::downgrade(&self.inner);
        let shutdown = self.inner.shutdown.clone();
        tokio::spawn(async move {
            use futures::StreamExt;
            loop {
                let sig = tokio::select! {
                    s = signals.next() => match s { Some(s) => s, None => return },
                    _ = shutdown.cancelled() => return,
                };
                let Some(inner) = weak.upgrade() else { return };
                Server { inner }.session_signal(sig);
            }
        });
    }

    /// Another replica's signal about a session this process may have cached.
    fn session_signal(&self, sig: SessionSignal) {
        use SessionSignal as S;
        let sessions = &self.inner.sessions;
        match sig {
            S::Ended { session } => {
                // Its owner is not in the signal: any caller's repeated DELETE of it succeeds,
                // which tells nothing about a session id only its client knows.
                self.inner.ended_sessions.record(&session, None);
                sessions.evict(&session);
            }
            S::Changed { session, change } => {
                if let Some(s) = sessions.cached(&session) {
                    s.apply(&change);
                }
            }
            S::Response { session, msg } => {
                self.inner
                    .client_requests
                    .resolve(&msg, Some(&session), None);
            }
            S::Outbound { session, msg } => {
                if let Some(out) = sessions.cached(&session).and_then(|s| s.outbound()) {
                    let _ = out.send(msg);
                }
            }
            S::StreamEvent { stream, event } => self
                .inner
                .held_streams
                .tell(&stream, StreamNews::Event(event)),
            S::StreamBound { stream, session } => self
                .inner
                .held_streams
                .tell(&stream, StreamNews::Bound(session)),
            #[allow(unreachable_patterns)]
            _ => {}
        }
    }
}
