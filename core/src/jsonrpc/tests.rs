//! Parsing and classifying, message for message.

use super::*;
use crate::error::ErrorCode;
use serde_json::json;

#[test]
fn parse_reads_what_serde_json_reads() {
    for doc in [
        r#"{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":[1,-2,3.5,1e300,true,null,"s\u00e9\n"],"b":{}}}"#,
        r#"[{"a":1},{"a":1}]"#,
        r#""only a string""#,
        "18446744073709551615",
        "-9223372036854775808",
        " {\"k\" : [ ] } ",
    ] {
        let ours = parse(doc.as_bytes(), 1 << 20).unwrap();
        let theirs: Value = serde_json::from_str(doc).unwrap();
        assert_eq!(ours, theirs, "{doc}");
    }
}

#[test]
fn parse_refuses_duplicate_keys_long_strings_and_junk() {
    let dup = parse(br#"{"a":{"name":"x","name":"y"}}"#, 100).unwrap_err();
    assert_eq!(dup, ParseError::DuplicateKey("name".into()));
    assert_eq!(dup.to_mcp().code, ErrorCode::PARSE_ERROR);
    // Same key in sibling objects is fine.
    assert!(parse(br#"[{"a":1},{"a":2}]"#, 100).is_ok());
    let long = parse(br#"{"a":"0123456789"}"#, 9).unwrap_err();
    assert_eq!(long, ParseError::StringTooLong { len: 10, max: 9 });
    assert_eq!(long.to_mcp().code, ErrorCode::INVALID_REQUEST);
    // Keys count too, and escapes are counted after decoding.
    assert!(matches!(
        parse(br#"{"0123456789":1}"#, 9),
        Err(ParseError::StringTooLong { len: 10, .. })
    ));
    assert!(parse(br#""\u0041\u0041""#, 2).is_ok());
    assert_eq!(
        parse("{\"é\":\"日本\"}".as_bytes(), 100).unwrap(),
        serde_json::json!({"é": "日本"})
    );
    // Invalid UTF-8 anywhere (in a key, a value, between tokens, a lone continuation byte, an
    // overlong or surrogate encoding) is a syntax error, as serde_json's per-string check had it.
    for junk in [
        &b"{"[..],
        b"{\"a\":1} x",
        b"\xff",
        b"",
        b"[1,]",
        b"NaN",
        b"{\"a\xff\":1}",
        b"{\"a\":\"\xc3\"}",
        b"{\"a\":\"\xed\xa0\x80\"}",
        b"{\"a\":\"\xc0\xaf\"}",
        b"{\"a\":1}\x80",
        b"\xef\xbb\xbf{\"a\":1}",
    ] {
        assert!(
            matches!(parse(junk, 100), Err(ParseError::Syntax(_))),
            "{junk:?}"
        );
    }
    let deep = "[".repeat(10_000) + &"]".repeat(10_000);
    assert!(matches!(
        parse(deep.as_bytes(), 100),
        Err(ParseError::Syntax(_))
    ));
}

/// `parse_incoming` is `parse` then `classify`, message for message: the same answers,
/// the same refusals, the same era test as reading `params._meta` of the parsed value.
#[test]
fn incoming_reads_what_parse_and_classify_read() {
    let docs = [
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#,
        r#"{"method":"x","jsonrpc":"2.0","id":"s","extra":[1,{"k":2}]}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/x"}"#,
        r#"{"jsonrpc":"2.0","id":3,"result":{},"params":{"p":1},"other":true}"#,
        r#"{"jsonrpc":"2.0","id":3,"error":{"code":1,"message":"m"}}"#,
        r#"{"\u0069d":5,"jsonrpc":"2.0","method":"escaped key"}"#,
        r#"{"jsonrpc":"2.0","id":null,"method":"x"}"#,
        r#"{"jsonrpc":"2.0","id":1.5,"method":"x"}"#,
        r#"{"jsonrpc":"1.0","id":1,"method":"x"}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":7}"#,
        r#"{"jsonrpc":"2.0","id":1}"#,
        r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"x"}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"x","more":1,"more":2}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":1,"a":2}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"0123456789abcdef"}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"x","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"a":1},"progressToken":"t"},"a":1}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"x","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":7}}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"x","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01"}}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"x","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"x","io.modelcontextprotocol/protocolVersion":"x"}}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"x","params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"x","params":{"_meta":{"k":1,"k":2}}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"x","params":{"_meta":{},"_meta":{}}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"x","params":{"_meta":5,"_meta":{}}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"x","params":{"_meta":[{"a":1}]}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"x","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"0123456789abcdef"}}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"x","params":{"_meta":{"0123456789abcdef":1}}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"x","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}},"params":{}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"x","params":[{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}]}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/x","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"b":2}}"#,
        r#"{"jsonrpc":"2.0","id":3,"result":{},"params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#,
        r#"{"jsonrpc":"2\u002e0","id":1,"method":"tools\/call"}"#,
        r#"{"jsonrpc":"2.0","jsonrpc":"2.0","id":1,"method":"x"}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"x","method":"x"}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":null}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":{"a":1,"a":2}}"#,
        r#"{"jsonrpc":["0123456789abcdef"],"id":1,"method":"x"}"#,
        r#"{"jsonrpc":2.0,"id":1,"method":["tools/call"]}"#,
        r#"{"0123456789abcdef":1}"#,
        r#""0123456789abcdef""#,
        r#""short""#,
        "42",
        "true",
        "null",
        "{}",
        "[]",
        r#"[{"jsonrpc":"2.0","id":1,"method":"x"},{"a":1}]"#,
        "{",
        r#"{"a":1} x"#,
    ];
    for (doc, max) in docs.iter().flat_map(|d| [(d, 12), (d, 1 << 20)]) {
        let old = parse(doc.as_bytes(), max).map(|v| {
            let modern = v
                .get("params")
                .and_then(|p| p.get("_meta"))
                .and_then(|m| m.get(crate::protocol::META_PROTOCOL_VERSION))
                .is_some()
                && v.get("method").is_some();
            match v {
                Value::Array(b) => format!("batch {b:?}"),
                v => format!("{modern} {:?}", classify(v)),
            }
        });
        let new = parse_incoming(doc.as_bytes(), max).map(|i| match i {
            Incoming::Batch(b) => format!("batch {b:?}"),
            Incoming::One(e) => format!("{} {:?}", e.is_modern(), e.classify()),
        });
        assert_eq!(new, old, "{doc} (strings up to {max} bytes)");
    }
}

/// A request's method is parsed once, as it is read, escaped or not; any other method is kept
/// as it came.
#[test]
fn methods_are_parsed_as_read() {
    let method = |doc: &str| match parse_incoming(doc.as_bytes(), 1 << 20) {
        Ok(Incoming::One(e)) => match e.classify() {
            Ok(Message::Request(Request { method, .. }) | Message::Notification { method, .. }) => {
                method
            }
            other => panic!("{doc}: {other:?}"),
        },
        _ => panic!("{doc}: not one message"),
    };
    for doc in [
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call"}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools\/call"}"#,
    ] {
        assert_eq!(method(doc), Method::ToolsCall, "{doc}");
    }
    let via_value = classify(json!({"jsonrpc":"2.0","method":"tools/list"}));
    assert!(matches!(
        via_value,
        Ok(Message::Notification {
            method: Method::ToolsList,
            ..
        })
    ));
    let doc = r#"{"jsonrpc":"2.0","id":1,"method":"x/unknown"}"#;
    assert_eq!(method(doc), Method::Other("x/unknown".into()));
}

/// A request's object `_meta` is read apart; a notification and a response keep theirs in
/// their params, as sent.
#[test]
fn only_a_request_reads_meta_apart() {
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28", "progressToken": 1});
    let doc =
        |extra: &str| format!(r#"{{"jsonrpc":"2.0",{extra}"params":{{"a":1,"_meta":{meta}}}}}"#);
    let msg = |d: String| match parse_incoming(d.as_bytes(), 1 << 20) {
        Ok(Incoming::One(e)) => e.classify().unwrap(),
        _ => panic!("{d}"),
    };
    match msg(doc(r#""id":1,"method":"x","#)) {
        Message::Request(Request {
            params, meta: m, ..
        }) => {
            assert_eq!(params.map(ParamsIn::into_value), Some(json!({"a": 1})));
            let Value::Object(want) = meta.clone() else {
                unreachable!()
            };
            assert_eq!(m, Some(std::sync::Arc::new(RequestMeta::from_map(want))));
        }
        other => panic!("{other:?}"),
    }
    match msg(doc(r#""method":"notifications/x","#)) {
        Message::Notification { params, .. } => {
            assert_eq!(params, Some(json!({"a": 1, "_meta": meta})))
        }
        other => panic!("{other:?}"),
    }
    match msg(doc(r#""id":1,"result":{},"#)) {
        Message::Response(v) => assert_eq!(v["params"], json!({"a": 1, "_meta": meta})),
        other => panic!("{other:?}"),
    }
}

#[test]
fn classifies_messages() {
    assert!(matches!(
        classify(json!({"jsonrpc":"2.0","id":1,"method":"x"})),
        Ok(Message::Request(_))
    ));
    assert!(matches!(
        classify(json!({"jsonrpc":"2.0","method":"x"})),
        Ok(Message::Notification { .. })
    ));
    assert!(matches!(
        classify(json!({"jsonrpc":"2.0","id":"a","result":{}})),
        Ok(Message::Response(_))
    ));
    for bad in [
        json!([]),
        json!({"id":1,"method":"x"}),
        json!({"jsonrpc":"2.0","id":null,"method":"x"}),
        json!({"jsonrpc":"2.0","id":1.5,"method":"x"}),
        json!({"jsonrpc":"2.0","id":true,"method":"x"}),
        json!({"jsonrpc":"2.0","id":1}),
        json!({"jsonrpc":"2.0","id":1,"method":7}),
    ] {
        let e = classify(bad.clone()).unwrap_err();
        assert_eq!(e.1.code.0, -32600, "{bad}");
    }
}
