//! Sealed MRTR `requestState`: HMAC-SHA256 over the state, the method, the primitive's name, the
//! caller and an expiry. The client only echoes it; anything it changes fails verification.

use crate::error::McpError;
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use base64::Engine;
use hmac::{Hmac, Mac};
use serde_json::{json, Value};
use sha2::Sha256;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

type HmacSha256 = Hmac<Sha256>;

pub(crate) struct StateSealer {
    key: Vec<u8>,
    ttl: Duration,
}

fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

fn rejected() -> McpError {
    // One generic message: do not reveal which check failed.
    McpError::invalid_params("Invalid or expired requestState")
}

impl StateSealer {
    /// With no configured key a random per-process key is used (and the caller warns).
    pub(crate) fn new(key: Option<Vec<u8>>, ttl: Duration) -> Self {
        let key = key.unwrap_or_else(|| {
            use rand::RngCore;
            let mut k = vec![0u8; 32];
            rand::thread_rng().fill_bytes(&mut k);
            k
        });
        Self { key, ttl }
    }

    fn mac(&self, data: &[u8]) -> HmacSha256 {
        let mut m = HmacSha256::new_from_slice(&self.key).expect("HMAC takes any key length");
        m.update(data);
        m
    }

    pub(crate) fn seal(
        &self,
        method: &str,
        name: &str,
        caller: Option<&str>,
        payload: Value,
    ) -> String {
        use rand::RngCore;
        let mut nonce = [0u8; 8];
        rand::thread_rng().fill_bytes(&mut nonce);
        let body = json!({
            "m": method, "n": name, "c": caller, "x": now_secs() + self.ttl.as_secs(),
            "r": B64.encode(nonce), "p": payload,
        });
        let bytes = serde_json::to_vec(&body).unwrap_or_default();
        let tag = self.mac(&bytes).finalize().into_bytes();
        format!("{}.{}", B64.encode(&bytes), B64.encode(tag))
    }

    pub(crate) fn open(
        &self,
        token: &str,
        method: &str,
        name: &str,
        caller: Option<&str>,
    ) -> Result<Value, McpError> {
        let (body, tag) = token.split_once('.').ok_or_else(rejected)?;
        let body = B64.decode(body).map_err(|_| rejected())?;
        let tag = B64.decode(tag).map_err(|_| rejected())?;
        // Constant-time comparison inside `verify_slice`.
        self.mac(&body).verify_slice(&tag).map_err(|_| rejected())?;
        let v: Value = serde_json::from_slice(&body).map_err(|_| rejected())?;
        let ok = v["m"] == method
            && v["n"] == name
            && v["c"].as_str() == caller
            && v["x"].as_u64().is_some_and(|x| x >= now_secs());
        if !ok {
            return Err(rejected());
        }
        Ok(v["p"].clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_tamper() {
        let s = StateSealer::new(Some(b"k".to_vec()), Duration::from_secs(60));
        let t = s.seal("tools/call", "a", None, json!({"x":1}));
        assert_eq!(s.open(&t, "tools/call", "a", None).unwrap(), json!({"x":1}));
        assert!(s.open(&t, "tools/call", "b", None).is_err(), "other tool");
        assert!(
            s.open(&t, "prompts/get", "a", None).is_err(),
            "other method"
        );
        assert!(
            s.open(&t, "tools/call", "a", Some("eve")).is_err(),
            "other caller"
        );
        assert!(s
            .open(&format!("{t}-TAMPERED"), "tools/call", "a", None)
            .is_err());
        let other = StateSealer::new(Some(b"k2".to_vec()), Duration::from_secs(60));
        assert!(
            other.open(&t, "tools/call", "a", None).is_err(),
            "other key"
        );
        let expired = StateSealer::new(Some(b"k".to_vec()), Duration::from_secs(0));
        let t = expired.seal("tools/call", "a", None, json!(1));
        std::thread::sleep(Duration::from_millis(1100));
        assert!(
            expired.open(&t, "tools/call", "a", None).is_err(),
            "expired"
        );
    }
}
