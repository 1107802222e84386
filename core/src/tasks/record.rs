//! The durable part of a task: what a [`super::TaskStore`] keeps and what `tasks/get` shows.
//! Plain serde data, so a store on another machine (Redis, a database) can hold it as JSON.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::time::{SystemTime, UNIX_EPOCH};

/// The five states of the spec's state machine: `working ⇄ input_required → terminal`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum TaskStatus {
    Working,
    InputRequired,
    Completed,
    Failed,
    Cancelled,
}

impl TaskStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Working => "working",
            Self::InputRequired => "input_required",
            Self::Completed => "completed",
            Self::Failed => "failed",
            Self::Cancelled => "cancelled",
        }
    }
    /// `completed`, `failed` and `cancelled` never change again.
    pub fn is_terminal(self) -> bool {
        matches!(self, Self::Completed | Self::Failed | Self::Cancelled)
    }
}

/// One task as stored. `owner` binds it to the caller that created it: every lookup compares it,
/// and a task of another caller looks exactly like an unknown one.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TaskRecord {
    pub id: String,
    /// The creating caller's identity (`Caller::key()`; empty without auth).
    pub owner: String,
    pub status: TaskStatus,
    pub status_message: Option<String>,
    /// Milliseconds since the Unix epoch.
    pub created_at_ms: u64,
    pub last_updated_at_ms: u64,
    /// From creation; `None`: kept until the server restarts (or the store evicts it).
    pub ttl_ms: Option<u64>,
    pub poll_interval_ms: Option<u64>,
    /// Outstanding server→client requests, by key (`{method, params}` each).
    pub input_requests: Map<String, Value>,
    /// The final result (status `completed`): the `CallToolResult` of the underlying call.
    pub result: Option<Value>,
    /// The JSON-RPC error (status `failed`).
    pub error: Option<Value>,
    /// Bumped by every change: the compare-and-set token of [`super::TaskStore::replace`].
    pub version: u64,
    /// The lease the running process holds on the task, in ms (renewed every third of it); a
    /// shared store keeps the lease beside the record, created with it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lease_ms: Option<u64>,
}

impl TaskRecord {
    pub(crate) fn new(
        id: String,
        owner: String,
        ttl_ms: Option<u64>,
        poll_ms: Option<u64>,
    ) -> Self {
        let now = now_ms();
        Self {
            id,
            owner,
            status: TaskStatus::Working,
            status_message: None,
            created_at_ms: now,
            last_updated_at_ms: now,
            ttl_ms,
            poll_interval_ms: poll_ms,
            input_requests: Map::new(),
            result: None,
            error: None,
            version: 0,
            lease_ms: None,
        }
    }

    /// When the task may be discarded (`None`: never).
    pub fn expires_at_ms(&self) -> Option<u64> {
        self.ttl_ms.map(|t| self.created_at_ms.saturating_add(t))
    }
    pub fn is_expired(&self, now: u64) -> bool {
        self.expires_at_ms().is_some_and(|e| now >= e)
    }

    /// The `Task` object: what `CreateTaskResult` carries (no result, error or inputRequests).
    pub fn task_json(&self) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("taskId".into(), Value::String(self.id.clone()));
        m.insert("status".into(), Value::String(self.status.as_str().into()));
        if let Some(s) = &self.status_message {
            m.insert("statusMessage".into(), Value::String(s.clone()));
        }
        m.insert(
            "createdAt".into(),
            Value::String(iso8601(self.created_at_ms)),
        );
        m.insert(
            "lastUpdatedAt".into(),
            Value::String(iso8601(self.last_updated_at_ms)),
        );
        m.insert(
            "ttlMs".into(),
            self.ttl_ms.map(Value::from).unwrap_or(Value::Null),
        );
        if let Some(p) = self.poll_interval_ms {
            m.insert("pollIntervalMs".into(), Value::from(p));
        }
        m
    }

    /// The `DetailedTask`: the task plus the payload its status calls for. What `tasks/get`
    /// answers and what `notifications/tasks` carries.
    pub fn detailed_json(&self) -> Map<String, Value> {
        let mut m = self.task_json();
        match self.status {
            TaskStatus::InputRequired => {
                m.insert(
                    "inputRequests".into(),
                    Value::Object(self.input_requests.clone()),
                );
            }
            TaskStatus::Completed => {
                m.insert("result".into(), self.result.clone().unwrap_or_default());
            }
            TaskStatus::Failed => {
                m.insert("error".into(), self.error.clone().unwrap_or_default());
            }
            TaskStatus::Working | TaskStatus::Cancelled => {}
        }
        m
    }
}

pub(crate) fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// `YYYY-MM-DDTHH:MM:SS.mmmZ` for milliseconds since the epoch (UTC; Howard Hinnant's
/// days-to-civil algorithm, so no date crate is needed for one format).
pub(crate) fn iso8601(ms: u64) -> String {
    let secs = ms / 1000;
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        ms % 1000
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_utc_timestamps() {
        assert_eq!(iso8601(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso8601(1_764_590_400_123), "2025-12-01T12:00:00.123Z");
        assert_eq!(iso8601(951_782_400_000), "2000-02-29T00:00:00.000Z");
    }

    #[test]
    fn detailed_shape_follows_the_status() {
        let mut r = TaskRecord::new("t".into(), String::new(), Some(1000), Some(50));
        assert!(r.detailed_json().get("result").is_none());
        r.status = TaskStatus::Completed;
        r.result = Some(serde_json::json!({"content": []}));
        let d = r.detailed_json();
        assert_eq!(d["status"], "completed");
        assert!(d.get("result").is_some() && d.get("error").is_none());
        assert_eq!(d["ttlMs"], 1000);
        assert!(r.is_expired(r.created_at_ms + 1000) && !r.is_expired(r.created_at_ms + 999));
    }
}
