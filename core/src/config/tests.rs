use super::names::{camel, names, parse};
use super::*;
use crate::server::options::{CacheHint, ValidationMode};
use crate::transport::http::HttpConfig;
use serde_json::json;
use std::net::SocketAddr;
use std::time::Duration;

const CASES: &str = include_str!("../../../tests/config/cases.json");

/// A row's `at` in Rust: the constructor (`server`), a listener or a mount over the row's `server`
/// options (`listen`, `mount`: the same `listen_with`, which `apply` then turns into the mount's
/// `HttpConfig`). Returns the whole configuration the row comes to.
fn replay(c: &Value) -> std::result::Result<Config, ConfigError> {
    let config = c["config"].clone();
    match c["at"].as_str().unwrap() {
        "server" => Config::from_json(config),
        "listen" | "mount" => {
            let base = Config::from_json(c.get("server").cloned().unwrap_or(Value::Null))?;
            let listen = base.listen_with(config)?;
            listen.apply(HttpConfig::mount())?;
            Ok(Config {
                server: base.server,
                listen,
            })
        }
        other => panic!("unknown `at` {other}"),
    }
}

fn rows(table: &Value, key: &str) -> Vec<Value> {
    let hand = table.get(key).and_then(Value::as_array).cloned();
    let edges = table["edges"][key].as_array().cloned();
    hand.into_iter().chain(edges).flatten().collect()
}

/// The shared table: the same text the Python and Node tests expect from their constructors,
/// listeners and mounts.
#[test]
fn shared_cases_give_their_errors() {
    let table: Value = serde_json::from_str(CASES).unwrap();
    let mut cases = table["cases"].as_array().unwrap().clone();
    cases.extend(rows(&table, "refused"));
    assert!(cases.len() > 500);
    for c in &cases {
        let e = replay(c).expect_err(&format!("{c} was accepted"));
        assert_eq!(e.message, c["error"].as_str().unwrap(), "{c}");
        let kind = match c["kind"].as_str().unwrap() {
            "unknown" => ConfigErrorKind::Unknown,
            _ => ConfigErrorKind::Invalid,
        };
        assert_eq!(e.kind, kind, "{c}");
    }
}

/// The table's accepted rows: each builds a server, and the options it names take the effective
/// value the row states (`Config::effective`, which Python and Node read too).
#[test]
fn shared_accepted_rows_take_their_effective_values() {
    let table: Value = serde_json::from_str(CASES).unwrap();
    let accepted = rows(&table, "accepted");
    assert!(accepted.len() > 100);
    for c in &accepted {
        let config = replay(c).unwrap_or_else(|e| panic!("{c}: {e}"));
        let effective = config.effective().unwrap();
        for (k, want) in c["effective"].as_object().into_iter().flatten() {
            assert_eq!(&effective[k], want, "{c}: {k}");
        }
        let mut named = config.server.clone();
        named.name = Some("t".into());
        named.version = Some("1".into());
        named.builder().unwrap().build().unwrap();
    }
}

/// Every field has its camelCase alias (the hosts' spelling) in every struct of the schema.
#[test]
fn every_option_has_its_camel_case_alias() {
    fn check<T: for<'de> Deserialize<'de>>() {
        let names: Vec<_> = names::<T>().collect();
        assert!(names.len() > 1);
        for f in names {
            let mut m = Map::new();
            m.insert(camel(f), Value::Null);
            if let Err(e) = parse::<T>(&m) {
                assert_ne!(e.kind, ConfigErrorKind::Unknown, "{f}: {e}");
            }
        }
    }
    check::<ServerConfig>();
    check::<ListenOptions>();
    check::<OAuthConfig>();
    check::<AllowConfig>();
    check::<CacheHintConfig>();
    check::<RateTable>();
    assert_eq!(camel("max_body_bytes"), "maxBodyBytes");
    assert_eq!(snake("maxBodyBytes"), "max_body_bytes");
}

/// Each option reaches the core setting it names, in both spellings.
#[test]
fn every_option_round_trips() {
    for (key_style, cfg) in [
        (
            "snake",
            serde_json::from_str::<Value>(
                r#"{
                "name": "n", "version": "1", "title": "T", "instructions": "I", "website_url": "https://x",
                "validation": "jsonrpc_error", "lenient_coercion": true, "cache_ttl_ms": 5,
                "cache_scope": "public", "cache": {"tools/list": {"ttl_ms": 9}, "default": {"scope": "public"}},
                "page_size": 3, "state_key": "0123456789abcdef", "state_ttl_ms": 7, "include_server_info": false,
                "tool_timeout_ms": 1500, "max_listeners": 4, "session_idle_ms": 11, "max_sessions": 12,
                "legacy_stateless": true, "expose_internal_errors": true, "force_private_cache": true,
                "max_in_flight": 13, "max_uri_len": 14, "task_ttl_ms": 15, "task_poll_interval_ms": 16,
                "host": "127.0.0.1", "port": 9, "path": "/x", "allowed_origins": ["https://a"],
                "allowed_hosts": ["h"], "allow_any_host": true, "max_body_bytes": 100, "max_string_bytes": 101, "max_line_bytes": 102,
                "keep_alive_ms": 103, "header_timeout_ms": 104, "drain_timeout_ms": 105,
                "body_timeout_ms": 106, "max_headers": 107, "max_header_bytes": 108,
                "tokens": "alice=a-token", "rate_limit": {"rate": 2.5, "burst": 4, "per_caller": {"bob": 1}}, "auth_failure_limit": false
                }"#,
            )
            .unwrap(),
        ),
        (
            "camel",
            serde_json::from_str::<Value>(
                r#"{
                "name": "n", "version": "1", "title": "T", "instructions": "I", "websiteUrl": "https://x",
                "validation": "jsonRpcError", "lenientCoercion": true, "cacheTtlMs": 5,
                "cacheScope": "public", "cache": {"tools/list": {"ttlMs": 9}, "default": {"cacheScope": "public"}},
                "pageSize": 3.0, "stateKey": "0123456789abcdef", "stateTtlMs": 7, "includeServerInfo": false,
                "toolTimeoutMs": 1500, "maxListeners": 4, "sessionIdleMs": 11, "maxSessions": 12,
                "legacyStateless": true, "exposeInternalErrors": true, "forcePrivateCache": true,
                "maxInFlight": 13, "maxUriLen": 14, "taskTtlMs": 15, "taskPollIntervalMs": 16,
                "host": "127.0.0.1", "port": 9, "path": "/x", "allowedOrigins": ["https://a"],
                "allowedHosts": ["h"], "allowAnyHost": true, "maxBodyBytes": 100, "maxStringBytes": 101, "maxLineBytes": 102,
                "keepAliveMs": 103, "headerTimeoutMs": 104, "drainTimeoutMs": 105,
                "bodyTimeoutMs": 106, "maxHeaders": 107, "maxHeaderBytes": 108,
                "tokens": {"alice": "a-token"}, "rateLimit": {"rate": 2.5, "burst": 4, "perCaller": {"bob": 1}}, "authFailureLimit": false
                }"#,
            )
            .unwrap(),
        ),
    ] {
        let c = Config::from_json(cfg).unwrap_or_else(|e| panic!("{key_style}: {e}"));
        let o = c.server.server_options().unwrap();
        assert_eq!(o.validation, ValidationMode::JsonRpcError);
        assert!(o.lenient_coercion && o.legacy_stateless && o.expose_internal_errors);
        assert!(o.force_private_cache && !o.include_server_info);
        assert_eq!(
            o.cache_default,
            CacheHint {
                ttl_ms: 5,
                scope: CacheScope::Public
            }
        );
        assert_eq!(
            o.cache["tools/list"],
            CacheHint {
                ttl_ms: 9,
                scope: CacheScope::Public
            }
        );
        assert_eq!(o.page_size, 3);
        assert_eq!(o.state_key.as_deref(), Some(&b"0123456789abcdef"[..]));
        assert_eq!(o.state_ttl, Duration::from_millis(7));
        assert_eq!(o.tool_timeout, Some(Duration::from_millis(1500)));
        assert_eq!(
            (o.max_listeners, o.max_sessions, o.max_in_flight),
            (4, 12, Some(13))
        );
        assert_eq!(o.session_idle, Duration::from_millis(11));
        assert_eq!(o.max_uri_len, 14);
        assert_eq!(c.server.task_ttl_ms, Some(15));
        assert_eq!(c.server.task_poll_interval_ms, Some(16));
        c.server.builder().unwrap().build().unwrap();

        let h = c
            .listen
            .http_config(SocketAddr::from(([127, 0, 0, 1], 8000)))
            .unwrap();
        assert_eq!(h.addr, SocketAddr::from(([127, 0, 0, 1], 9)));
        assert_eq!(h.path, "/x");
        assert_eq!(h.allowed_origins, ["https://a"]);
        assert_eq!(h.allowed_hosts, ["h"]);
        assert!(h.allow_any_host);
        assert_eq!((h.max_body, h.max_string), (100, 101));
        assert_eq!(h.keep_alive, Duration::from_millis(103));
        assert_eq!(h.header_timeout, Duration::from_millis(104));
        assert_eq!(h.drain_timeout, Duration::from_millis(105));
        assert_eq!(h.body_timeout, Duration::from_millis(106));
        assert_eq!((h.max_headers, h.max_header_bytes), (107, 108));
        assert!(h.auth.is_some());
        assert!(h.auth_failure_limit.is_none());
        let rl = h.rate_limit.unwrap();
        assert!(rl.check("bob").is_ok());
        assert!(rl.check("bob").is_err(), "bob's own limit is 1/s, burst 1");
        let s = c.listen.stdio_config();
        assert_eq!((s.max_line, s.max_string), (102, 101));
        assert_eq!(s.drain_timeout, Duration::from_millis(105));
    }
}

#[test]
fn listen_overrides_replace_the_servers_options_key_by_key() {
    let c = Config::from_json(json!({"maxBodyBytes": 10, "keepAliveMs": 20})).unwrap();
    let l = c
        .listen_with(json!({"max_body_bytes": 30, "port": 0}))
        .unwrap();
    let h = l
        .http_config(SocketAddr::from(([127, 0, 0, 1], 8000)))
        .unwrap();
    assert_eq!(h.max_body, 30);
    assert_eq!(h.keep_alive, Duration::from_millis(20));
    assert_eq!(h.addr.port(), 0);
    // Nothing given: the server's own.
    let l = c.listen_with(Value::Null).unwrap();
    assert_eq!(l.max_body_bytes, Some(10));
}

#[test]
fn state_key_as_bytes_and_null() {
    let c = Config::from_json(json!({"state_key": (0..16).collect::<Vec<u8>>()})).unwrap();
    assert_eq!(
        c.server.server_options().unwrap().state_key.unwrap().len(),
        16
    );
    let e = Config::from_json(json!({"stateKey": [1, 2, 300]})).unwrap_err();
    assert_eq!(e.message, "stateKey bytes must be integers 0..255");
    let c = Config::from_json(json!({"stateKey": null})).unwrap();
    assert!(c.server.server_options().unwrap().state_key.is_none());
}

#[test]
fn a_state_key_ring_and_its_audience() {
    let long = "k".repeat(32);
    let c = Config::from_json(json!({"state_keys": [long, vec![7u8; 40]], "state_audience": "a"}))
        .unwrap();
    let o = c.server.server_options().unwrap();
    assert_eq!(o.state_keys, vec![long.as_bytes().to_vec(), vec![7u8; 40]]);
    assert_eq!(o.state_audience.as_deref(), Some("a"));
    let e = Config::from_json(json!({"stateKeys": [long, "short"]})).unwrap_err();
    assert_eq!(
        e.message,
        "stateKeys[1] must be at least 32 bytes of secret randomness; it is 5 bytes"
    );
    let e = Config::from_json(json!({"state_keys": [], "state_key": null})).unwrap_err();
    assert_eq!(e.message, "state_keys needs at least one key");
    let e = Config::from_json(json!({"state_keys": [long], "state_key": long})).unwrap_err();
    assert_eq!(e.message, "state_keys and state_key are exclusive");
}

#[test]
fn the_environment_reader() {
    let vars = |v: &[(&str, &str)]| {
        v.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect::<Vec<_>>()
    };
    let c = Config::from_vars(vars(&[
        ("OXMCP_PAGE_SIZE", "2"),
        ("OXMCP_VALIDATION", "jsonrpc"),
        ("OXMCP_LENIENT_COERCION", "true"),
        // Digits only, yet a string option: read as text.
        ("OXMCP_STATE_KEY", "12345678901234567890"),
        ("OXMCP_MAX_BODY_BYTES", "1000"),
        ("OXMCP_ALLOWED_HOSTS", "a, b"),
        ("OXMCP_ALLOW_ANY_HOST", "1"),
        ("OXMCP_RATE_LIMIT", "{\"rate\": 3}"),
        ("OXMCP_TOKENS", "alice=tok-a"),
        ("OXMCP_RESOURCE", "https://mcp.example.com"),
        ("OXMCP_SCOPES", "a b"),
        ("OTHER", "ignored"),
    ]))
    .unwrap();
    let o = c.server.server_options().unwrap();
    assert_eq!(o.page_size, 2);
    assert_eq!(o.validation, ValidationMode::JsonRpcError);
    assert!(o.lenient_coercion);
    assert_eq!(o.state_key.unwrap(), b"12345678901234567890");
    assert_eq!(c.listen.max_body_bytes, Some(1000));
    assert_eq!(
        c.listen.allowed_hosts.as_deref(),
        Some(&["a".to_string(), "b".into()][..])
    );
    assert_eq!(c.listen.allow_any_host, Some(true));
    assert_eq!(c.listen.rate_limit.as_ref().unwrap().rate, 3.0);
    assert_eq!(
        c.listen.oauth.as_ref().unwrap().scopes.as_ref().unwrap().0,
        ["a", "b"]
    );
    assert!(c
        .listen
        .http_config(SocketAddr::from(([127, 0, 0, 1], 0)))
        .unwrap()
        .auth
        .is_some());

    let e = Config::from_vars(vars(&[("OXMCP_PAGE_SIZE", "0")])).unwrap_err();
    assert_eq!(
        e.message,
        "in the OXMCP_* environment: page_size must be at least 1"
    );
    let e = Config::from_vars(vars(&[("OXMCP_MAX_SESSIONS", "many")])).unwrap_err();
    assert_eq!(
        e.message,
        "in the OXMCP_* environment: max_sessions: invalid type: string \"many\", expected usize"
    );
    // No variables: every default.
    let c = Config::from_vars(vars(&[])).unwrap();
    assert!(c
        .listen
        .http_config(SocketAddr::from(([127, 0, 0, 1], 0)))
        .unwrap()
        .auth
        .is_none());
}

/// docs/OPTIONS.md, the one list users read, names every option of the schema.
#[test]
fn the_options_doc_names_every_option() {
    let doc = include_str!("../../../docs/OPTIONS.md");
    for f in names::<ServerConfig>().chain(names::<ListenOptions>()) {
        assert!(
            doc.contains(&format!("`{f}`")),
            "docs/OPTIONS.md lacks `{f}`"
        );
    }
}

#[test]
fn the_auth_failure_limit() {
    let l =
        ListenOptions::from_json(json!({"authFailureLimit": {"rate": 0.5, "burst": 3}})).unwrap();
    let h = l.apply(HttpConfig::mount()).unwrap();
    let r = h.auth_failure_limit.unwrap();
    assert_eq!((r.rate, r.burst), (0.5, 3));
    // Unset: the core's default.
    let h = ListenOptions::default().apply(HttpConfig::mount()).unwrap();
    assert!(h.auth_failure_limit.is_some());
}

#[test]
fn a_host_builder_declares_by_name_and_refuses_an_unknown_capability() {
    let c = Config::from_json(json!({"name": "h", "version": "1"})).unwrap();
    let s = c
        .server
        .host_builder(&["prompts"])
        .unwrap()
        .build()
        .unwrap();
    let caps = s.capabilities(&s.snapshot(), false);
    assert!(
        caps.get("tools").is_some() && caps.get("prompts").is_some(),
        "{caps}"
    );
    assert!(caps.get("resources").is_none(), "{caps}");
    let e = c.server.host_builder(&["sampling"]).err().unwrap();
    assert_eq!(
        e.message,
        "declare: unknown capability \"sampling\" (tools, resources or prompts)"
    );
}

#[cfg(feature = "redis")]
#[test]
fn the_config_sets_the_command_timeout() {
    let c = Config::from_json(serde_json::json!({
        "name": "n", "version": "1", "redis_url": "redis://127.0.0.1:1/",
        "state_key": "0123456789abcdef", "redisTimeoutMs": 250
    }))
    .unwrap();
    let r = c.server.redis().unwrap().expect("a handle");
    assert_eq!(r.timeout(), Duration::from_millis(250));
}

#[test]
fn the_sse_transport_is_opt_in_with_distinct_paths() {
    let off = ListenOptions::default().apply(HttpConfig::mount()).unwrap();
    assert!(off.sse.is_none());
    let on = ListenOptions::from_json(json!({"sse": true, "messagesPath": "/m"}))
        .unwrap()
        .apply(HttpConfig::mount())
        .unwrap();
    let sse = on.sse.unwrap();
    assert_eq!(
        (sse.sse_path.as_str(), sse.messages_path.as_str()),
        ("/sse", "/m")
    );
    for bad in [
        json!({"sse_path": "/s"}),
        json!({"sse": true, "sse_path": "s"}),
        json!({"sse": true, "messages_path": "/mcp"}),
        json!({"sse": true, "sse_path": "/x", "messages_path": "/x"}),
    ] {
        let e = ListenOptions::from_json(bad.clone()).err();
        assert!(e.is_some(), "{bad}");
    }
}

/// `uds` replaces `host`/`port`; `uds_mode` is octal text or the mode's number.
#[test]
fn uds_and_its_mode() {
    let at = SocketAddr::from(([127, 0, 0, 1], 8000));
    let listen = |v: Value| Config::default().listen_with(v).unwrap();
    let c = listen(json!({"uds": "/run/mcp.sock"}))
        .http_config(at)
        .unwrap();
    let uds = c.uds.unwrap();
    assert_eq!(uds.path, std::path::Path::new("/run/mcp.sock"));
    assert_eq!(uds.mode, 0o600);
    for (m, want) in [
        (json!("0660"), 0o660),
        (json!("0o640"), 0o640),
        (json!(0o644), 0o644),
    ] {
        let c = listen(json!({"uds": "/s", "udsMode": m}))
            .http_config(at)
            .unwrap();
        assert_eq!(c.uds.unwrap().mode, want, "{m}");
    }
    let e = listen(json!({"uds": "/s", "port": 8000}))
        .http_config(at)
        .err()
        .unwrap();
    assert_eq!(
        e.message,
        "uds replaces host and port: a server listens on a Unix socket or on a TCP address, not both (leave host and port out)"
    );
    // From the environment: the text is octal.
    let c = Config::from_vars([
        ("OXMCP_UDS".to_string(), "/s".to_string()),
        ("OXMCP_UDS_MODE".to_string(), "660".to_string()),
    ])
    .unwrap();
    assert_eq!(c.listen.http_config(at).unwrap().uds.unwrap().mode, 0o660);
}

/// `extensions` are declared beside the ones the registrations need; an id both name is
/// declared with the option's settings.
#[test]
fn declared_extensions_join_the_capabilities() {
    let c = Config::from_json(json!({"name": "h", "version": "1", "extensions": {
        "io.modelcontextprotocol/oauth-client-credentials": {},
        crate::tasks::EXTENSION_ID: {"declared": true},
    }}))
    .unwrap();
    let tool = crate::Tool::new("t", json!({"type": "object"}))
        .task_support(crate::tasks::TaskSupport::Optional)
        .handler(|_a: Map<String, Value>, _c: crate::Context| async {
            Ok::<_, crate::ToolError>(crate::ToolResult::text(""))
        });
    let s = c
        .server
        .host_builder::<&str>(&[])
        .unwrap()
        .tool(tool)
        .build()
        .unwrap();
    for modern in [true, false] {
        let caps = s.capabilities(&s.snapshot(), modern);
        let ext = &caps["extensions"];
        assert_eq!(
            ext["io.modelcontextprotocol/oauth-client-credentials"],
            json!({})
        );
        assert_eq!(
            ext[crate::tasks::EXTENSION_ID],
            json!({"declared": true}),
            "{caps}"
        );
    }
}

/// The table's `tools` rows: a tool's own limits, refused with the same text in every language.
#[test]
fn shared_tool_limit_rows() {
    let table: Value = serde_json::from_str(CASES).unwrap();
    for c in table["tools"].as_array().unwrap() {
        let l = &c["limits"];
        let got = crate::tool::Tool::new("echo", json!({"type": "object"})).limits(
            l["timeout_ms"].as_f64(),
            l["max_concurrency"].as_f64(),
            l["task_after_ms"].as_f64(),
        );
        match c["error"].as_str() {
            Some(e) => assert_eq!(got.unwrap_err().to_string(), e, "{c}"),
            None => assert!(got.is_ok(), "{c}"),
        }
    }
}

#[test]
fn message_streams_are_refused_by_a_server_that_requires_credentials() {
    let open = Config::from_json(json!({"maxLineBytes": 77})).unwrap();
    let m = open.listen.message_streams_config().unwrap();
    assert_eq!(m.max_line, 77);
    assert_eq!(m.drain_timeout, Duration::ZERO);
    assert!(
        !m.owns_server,
        "a host's connection ends itself, not the server"
    );
    let guarded = Config::from_json(json!({"tokens": {"alice": {"tokens": ["t"]}}})).unwrap();
    let e = guarded.listen.message_streams_config().unwrap_err();
    assert!(
        e.message.contains("requires authentication"),
        "{}",
        e.message
    );
    assert!(
        guarded.listen.stdio_config().max_line > 0,
        "stdio itself is served"
    );
}
