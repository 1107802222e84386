//! The Redis backends of tasks (feature `redis`), built on the server's [`crate::redis::Redis`]
//! handle: [`RedisTaskStore`] (task records any replica reads) and [`RedisTaskQuota`] (each
//! caller's count of tasks, held for the replicas together). `ServerBuilder::redis` uses them
//! unless a store was set with `TaskConfig::store`.
//!
//! This module sits a layer above the rest of `tasks` (see `scripts/check-layers.py`): it uses
//! the Redis plumbing, which the task records and engine below it never see.

mod quota;
mod store;

pub use quota::RedisTaskQuota;
pub use store::RedisTaskStore;

#[cfg(test)]
mod tests;
