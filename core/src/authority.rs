//! `Host` and `Origin` values parsed, not pattern-matched: the DNS-rebinding guard decides on
//! what a value *is* (an IP address, or a registered name) rather than on how it starts. A name
//! such as `127.attacker.example` is a name that an attacker's DNS can point anywhere, so only an
//! address that parses as an IP and `is_loopback()`, or the exact name `localhost`, counts as
//! loopback.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// The host part of an authority (`host[:port]`), parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Host {
    Ip(IpAddr),
    /// A registered name, lower-cased.
    Name(String),
}

/// A parsed `host[:port]` authority (a `Host` header, or the part of an `Origin` after `://`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Authority {
    pub host: Host,
    pub port: Option<u16>,
}

impl Authority {
    /// Parse `host[:port]`: an IPv4 address, an IPv6 address in brackets, or a registered name
    /// (letters, digits, `-`, `.`, `_`), with an optional decimal port. `None` for anything
    /// else (userinfo, a path, a bare IPv6 address, an empty host, a port over 65535).
    pub fn parse(s: &str) -> Option<Self> {
        let (host, port) = if let Some(rest) = s.strip_prefix('[') {
            let (ip, after) = rest.split_once(']')?;
            let ip: Ipv6Addr = ip.parse().ok()?;
            (Host::Ip(IpAddr::V6(ip)), port_of(after)?)
        } else {
            let (h, port) = match s.split_once(':') {
                Some((h, p)) => (h, port_of_digits(p)?),
                None => (s, None),
            };
            if h.is_empty() {
                return None;
            }
            if let Ok(ip) = h.parse::<Ipv4Addr>() {
                (Host::Ip(IpAddr::V4(ip)), port)
            } else if h
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_'))
                // Not a dotted-number form that some resolvers read as an address (`0x7f.1`,
                // `2130706433`): a name must hold a letter that is not part of a hex prefix.
                && !h.split('.').all(|l| {
                    l.bytes().all(|b| b.is_ascii_digit())
                        || l.strip_prefix("0x").or_else(|| l.strip_prefix("0X")).is_some_and(
                            |x| x.bytes().all(|b| b.is_ascii_hexdigit()),
                        )
                })
            {
                (Host::Name(h.to_ascii_lowercase()), port)
            } else {
                return None;
            }
        };
        Some(Self { host, port })
    }

    /// Whether `host[:port]` parses to a loopback authority: `parse(s).is_some_and(is_loopback)`,
    /// with the two spellings a local client sends (`127.0.0.1`, `localhost`, each with an
    /// optional port) answered without building an `Authority` (every request asks).
    pub fn is_loopback_str(s: &str) -> bool {
        let rest = s
            .strip_prefix("127.0.0.1")
            .or_else(|| s.strip_prefix("localhost"));
        match rest {
            Some("") => true,
            Some(r) if r.starts_with(':') => port_of_digits(&r[1..]).is_some(),
            _ => Self::parse(s).is_some_and(|a| a.is_loopback()),
        }
    }

    /// An IP address that is loopback (IPv4-mapped IPv6 included), or exactly `localhost`.
    pub fn is_loopback(&self) -> bool {
        match &self.host {
            Host::Ip(ip) => ip.to_canonical().is_loopback(),
            Host::Name(n) => n == "localhost",
        }
    }

    /// Does an `allowed_hosts` entry name this authority? An entry with a port must match host
    /// and port; an entry without one matches the host on any port; `host:*` matches the host
    /// with any explicit port.
    pub fn matches_entry(&self, entry: &str) -> bool {
        self.matches_entry_as(entry, PortlessEntry::AnyPort)
    }

    /// [`Self::matches_entry`], with `portless` saying what an entry without a port matches.
    pub fn matches_entry_as(&self, entry: &str, portless: PortlessEntry) -> bool {
        let entry = entry.trim();
        if let Some(base) = entry.strip_suffix(":*") {
            return self.port.is_some()
                && Authority::parse(base).is_some_and(|e| e.port.is_none() && e.host == self.host);
        }
        match Authority::parse(entry) {
            Some(e) => {
                e.host == self.host
                    && match e.port {
                        Some(p) => self.port == Some(p),
                        None => portless == PortlessEntry::AnyPort || self.port.is_none(),
                    }
            }
            None => false,
        }
    }
}

/// A parsed `Origin` header: `scheme://host[:port]` (RFC 6454). The opaque origin `null` and
/// anything with a path, query or userinfo parse as `None`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    pub scheme: String,
    pub authority: Authority,
}

impl Origin {
    pub fn parse(s: &str) -> Option<Self> {
        let (scheme, rest) = s.split_once("://")?;
        if scheme.is_empty()
            || !scheme
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'))
        {
            return None;
        }
        // Browsers never send a trailing slash, but some clients do; tolerate exactly one.
        let rest = rest.strip_suffix('/').unwrap_or(rest);
        Some(Self {
            scheme: scheme.to_ascii_lowercase(),
            authority: Authority::parse(rest)?,
        })
    }
}

/// How an `allowed_hosts` entry without a port matches a `Host`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PortlessEntry {
    /// The host on any port, or none (the listener's `allowed_hosts`).
    AnyPort,
    /// The host sent without a port only (the `mcp` SDK's `TransportSecuritySettings`, where
    /// `host:*` is the spelling for any port).
    NoPort,
}

/// Which header an allow-list check refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    Host,
    Origin,
}

/// Does an `allowed_origins` entry name the `Origin` `raw` (`parsed`, when it parses)? An entry
/// is a whole origin (case-insensitive, one trailing slash tolerated), or `scheme://host:*`: that
/// scheme and host on any explicit port.
pub fn origin_entry_matches(entry: &str, raw: &str, parsed: Option<&Origin>) -> bool {
    let entry = entry.trim().trim_end_matches('/');
    if let Some(base) = entry.strip_suffix(":*") {
        return match (Origin::parse(base), parsed) {
            (Some(b), Some(p)) => {
                b.authority.port.is_none()
                    && p.authority.port.is_some()
                    && b.scheme == p.scheme
                    && b.authority.host == p.authority.host
            }
            _ => false,
        };
    }
    entry.eq_ignore_ascii_case(raw.trim_end_matches('/'))
}

/// The DNS-rebinding check against explicit allow-lists: `host` must match an `allowed_hosts`
/// entry (no entry, no host: refused), and `origin`, when sent, an `allowed_origins` entry
/// ([`origin_entry_matches`]). Host first, as a rebound request is refused for its Host.
pub fn check_allow_lists(
    host: Option<&str>,
    origin: Option<&str>,
    allowed_hosts: &[String],
    allowed_origins: &[String],
    portless: PortlessEntry,
) -> Result<(), Refused> {
    let parsed = host.filter(|h| !h.is_empty()).and_then(Authority::parse);
    let host_ok = parsed.as_ref().is_some_and(|a| {
        allowed_hosts
            .iter()
            .any(|e| a.matches_entry_as(e, portless))
    });
    if !host_ok {
        return Err(Refused::Host);
    }
    match origin.filter(|o| !o.is_empty()) {
        None => Ok(()),
        Some(o) => {
            let p = Origin::parse(o);
            if allowed_origins
                .iter()
                .any(|e| origin_entry_matches(e, o, p.as_ref()))
            {
                Ok(())
            } else {
                Err(Refused::Origin)
            }
        }
    }
}

fn port_of(after: &str) -> Option<Option<u16>> {
    match after {
        "" => Some(None),
        _ => port_of_digits(after.strip_prefix(':')?),
    }
}

fn port_of_digits(p: &str) -> Option<Option<u16>> {
    if p.is_empty() || p.len() > 5 || !p.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    p.parse().ok().map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_short_loopback_check_answers_as_parse_does() {
        for s in [
            "localhost",
            "LOCALHOST:8080",
            "127.0.0.1",
            "127.0.0.1:3000",
            "127.0.0.1:",
            "127.0.0.1:65535",
            "127.0.0.1:65536",
            "127.0.0.1:123456",
            "127.0.0.1:80x",
            "127.0.0.1:+80",
            "127.0.0.1x",
            "127.0.0.10",
            "127.0.0.1.attacker.example",
            "localhost:",
            "localhost:0",
            "localhost.attacker.example",
            "localhostx:80",
            "[::1]:80",
            "10.0.0.1",
            "",
        ] {
            assert_eq!(
                Authority::is_loopback_str(s),
                Authority::parse(s).is_some_and(|a| a.is_loopback()),
                "{s}"
            );
        }
    }

    #[test]
    fn loopback_is_an_address_or_exactly_localhost() {
        for ok in [
            "localhost",
            "LOCALHOST:8080",
            "127.0.0.1",
            "127.0.0.1:3000",
            "127.9.8.7",
            "[::1]",
            "[::1]:80",
            "[::ffff:127.0.0.1]:1",
        ] {
            assert!(Authority::parse(ok).unwrap().is_loopback(), "{ok}");
        }
        for bad in [
            "127.attacker.example",
            "127.attacker.example:80",
            "127.0.0.1.attacker.example",
            "localhost.attacker.example",
            "attacker.localhost",
            "10.0.0.1",
            "[::2]",
            "example.com",
        ] {
            assert!(
                !Authority::parse(bad).is_some_and(|a| a.is_loopback()),
                "{bad}"
            );
        }
        for invalid in [
            "",
            ":80",
            "::1",
            "[::1",
            "[::1]x",
            "a:b",
            "a:99999",
            "a:80:80",
            "user@127.0.0.1",
            "127.0.0.1/x",
            "0x7f.0.0.1",
            "2130706433",
            "127.1",
            "a b",
        ] {
            assert!(Authority::parse(invalid).is_none(), "{invalid}");
        }
    }

    #[test]
    fn origins_and_allowed_host_entries() {
        let o = Origin::parse("http://127.0.0.1:8080").unwrap();
        assert!(o.authority.is_loopback());
        assert_eq!(o.authority.port, Some(8080));
        assert!(Origin::parse("http://127.attacker.example:8080")
            .is_some_and(|o| !o.authority.is_loopback()));
        for bad in ["null", "127.0.0.1", "http://", "http://a/b", "ht tp://a"] {
            assert!(Origin::parse(bad).is_none(), "{bad}");
        }
        let a = Authority::parse("api.example.com:8443").unwrap();
        assert!(a.matches_entry("API.example.com"));
        assert!(a.matches_entry("api.example.com:8443"));
        assert!(!a.matches_entry("api.example.com:80"));
        assert!(!a.matches_entry("example.com"));
        assert!(a.matches_entry("api.example.com:*"));
        assert!(!Authority::parse("api.example.com")
            .unwrap()
            .matches_entry("api.example.com:*"));
        assert!(!a.matches_entry_as("api.example.com", PortlessEntry::NoPort));
        assert!(Authority::parse("api.example.com")
            .unwrap()
            .matches_entry_as("api.example.com", PortlessEntry::NoPort));
    }

    #[test]
    fn origin_entries_with_any_port() {
        let o = |s: &str| Origin::parse(s);
        let m = |e: &str, raw: &str| origin_entry_matches(e, raw, o(raw).as_ref());
        assert!(m("http://localhost:*", "http://localhost:3000"));
        assert!(m("http://localhost:*", "http://LOCALHOST:3000"));
        assert!(!m("http://localhost:*", "http://localhost"));
        assert!(!m("http://localhost:*", "https://localhost:3000"));
        assert!(!m(
            "http://localhost:*",
            "http://localhost.evil.example:3000"
        ));
        assert!(m("https://app.example", "https://app.example/"));
        assert!(!m("https://app.example", "https://app.example:444"));
    }

    #[test]
    fn explicit_allow_lists_check_host_then_origin() {
        let hosts = ["good.example".to_string(), "wild.example:*".to_string()];
        let origins = [
            "http://good.example".to_string(),
            "http://wild.example:*".to_string(),
        ];
        let check = |h: Option<&str>, o: Option<&str>| {
            check_allow_lists(h, o, &hosts, &origins, PortlessEntry::NoPort)
        };
        assert_eq!(check(None, None), Err(Refused::Host));
        assert_eq!(check(Some("evil.example"), None), Err(Refused::Host));
        assert_eq!(check(Some("evil.example:9000"), None), Err(Refused::Host));
        assert_eq!(check(Some("good.example:9000"), None), Err(Refused::Host));
        assert_eq!(check(Some("good.example"), None), Ok(()));
        assert_eq!(check(Some("wild.example:9000"), None), Ok(()));
        assert_eq!(
            check(Some("good.example"), Some("http://evil.example")),
            Err(Refused::Origin)
        );
        assert_eq!(
            check(Some("good.example"), Some("http://wild.example:9000")),
            Ok(())
        );
        assert_eq!(
            check(Some("evil.example"), Some("http://good.example")),
            Err(Refused::Host)
        );
        assert_eq!(
            check_allow_lists(Some("a"), None, &[], &[], PortlessEntry::AnyPort),
            Err(Refused::Host)
        );
    }
}
