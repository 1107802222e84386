//! Ids used once, remembered by all the replicas in Redis (DPoP proof ids): `SET NX` with the
//! time the id must be kept, so Redis forgets it by itself and holds at most the ids of one
//! replay window.

use super::Redis;
use crate::auth::{AuthFuture, SeenIds};
use std::time::Duration;

/// [`SeenIds`] in Redis, under `<prefix>seen:<hex id>`.
pub(crate) struct RedisSeen {
    redis: Redis,
}

impl RedisSeen {
    pub(crate) fn new(redis: Redis) -> Self {
        Self { redis }
    }
}

impl SeenIds for RedisSeen {
    fn first_use<'a>(
        &'a self,
        id: [u8; 32],
        keep: Duration,
    ) -> AuthFuture<'a, Result<bool, String>> {
        Box::pin(async move {
            let hex: String = id.iter().map(|b| format!("{b:02x}")).collect();
            let mut cmd = ::redis::cmd("SET");
            cmd.arg(self.redis.key(&format!("seen:{hex}")))
                .arg(1)
                .arg("NX")
                .arg("PX")
                .arg(keep.as_millis().max(1) as u64);
            self.redis
                .query::<Option<String>>(cmd)
                .await
                .map(|set| set.is_some())
                .map_err(|e| e.to_string())
        })
    }
}
