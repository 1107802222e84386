//! The credentials of a request: the scheme and token of its `Authorization` header.

use super::Scheme;
use http::{header, HeaderMap};

/// Several `Authorization` headers, or one that is not `<scheme> <credentials>` in visible
/// ASCII, or a bearer token outside RFC 6750's `b64token` characters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct MalformedAuthorization;

impl std::fmt::Display for MalformedAuthorization {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("malformed Authorization header")
    }
}

impl std::error::Error for MalformedAuthorization {}

/// The token of an `Authorization: Bearer <token>` header (RFC 6750 §2.1); `Ok(None)` when
/// there is no such header or it names another scheme.
pub fn bearer_token(headers: &HeaderMap) -> Result<Option<&str>, MalformedAuthorization> {
    Ok(credentials(headers)?.and_then(|(s, t)| (s == Scheme::Bearer).then_some(t)))
}

/// The scheme and token of an `Authorization: Bearer <token>` or `DPoP <token>` header;
/// `Ok(None)` when there is none or it names another scheme.
pub(super) fn credentials(
    headers: &HeaderMap,
) -> Result<Option<(Scheme, &str)>, MalformedAuthorization> {
    let mut all = headers.get_all(header::AUTHORIZATION).iter();
    let Some(v) = all.next() else { return Ok(None) };
    if all.next().is_some() {
        return Err(MalformedAuthorization);
    }
    let v = v.to_str().map_err(|_| MalformedAuthorization)?;
    let (scheme, token) = v.trim().split_once(' ').ok_or(MalformedAuthorization)?;
    let scheme = if scheme.eq_ignore_ascii_case("bearer") {
        Scheme::Bearer
    } else if scheme.eq_ignore_ascii_case("dpop") {
        Scheme::Dpop
    } else {
        return Ok(None);
    };
    let token = token.trim();
    let b64token = |c: char| c.is_ascii_alphanumeric() || "-._~+/=".contains(c);
    if token.is_empty() || !token.chars().all(b64token) {
        return Err(MalformedAuthorization);
    }
    Ok(Some((scheme, token)))
}
