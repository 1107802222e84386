//! Tool search over real HTTP: relevance on the shared 1,000-tool fixture, hidden tools never
//! found nor reached, the index following adds and removes, bounded regex patterns.

use super::common::*;
use oxmcp::config::ServerConfig;
use std::time::Instant;

fn fixture() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/config/tools-1000.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn tool_of(def: &Value) -> Tool {
    let name = def["name"].as_str().unwrap().to_string();
    let n = name.clone();
    Tool::new(name, def["inputSchema"].clone())
        .description(def["description"].as_str().unwrap())
        .handler(move |_a: Map<String, Value>, _c: Context| {
            let n = n.clone();
            async move { Ok::<_, ToolError>(ToolResult::text(format!("ran {n}"))) }
        })
}

/// The fixture's tools on a server with these options.
fn server(options: Value) -> Server {
    let mut o = json!({"name": "search", "version": "1.0.0"});
    o.as_object_mut()
        .unwrap()
        .extend(options.as_object().unwrap().clone());
    let mut b = ServerConfig::from_json(o).unwrap().builder().unwrap();
    for t in fixture()["tools"].as_array().unwrap() {
        b = b.tool(tool_of(t));
    }
    b.build().unwrap()
}

fn names_in(tools: &Value) -> Vec<String> {
    tools
        .as_array()
        .unwrap_or_else(|| panic!("no tools: {tools}"))
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect()
}

/// Alice may use the Slack tools only.
fn auth() -> Arc<Auth> {
    Arc::new(
        Auth::new().tokens(
            NamedTokens::new()
                .token("alice", "alice-token")
                .allow("alice", Allow::none().tools(["slack_*"]))
                .token("root", "root-token"),
        ),
    )
}

#[tokio::test]
async fn ranks_the_fixture_and_keeps_hidden_tools_hidden() {
    let s = server(
        json!({"tool_search": "bm25", "tool_search_method": true, "tool_search_max_results": 3}),
    );
    let run = serve(s.clone(), HttpConfig::new(loopback()).auth(auth())).await;
    let root = Some("root-token");

    // The list is the two search tools, and the method is declared.
    let r = call(run.addr, root, "tools/list", json!({})).await;
    assert_eq!(tool_names(&r), ["search_tools", "call_tool"]);
    let r = call(run.addr, root, "server/discover", json!({})).await;
    assert_eq!(
        r.json()["result"]["capabilities"]["experimental"]["oxmcp/toolSearch"]["method"],
        "oxmcp/tools/search"
    );

    for q in fixture()["queries"].as_array().unwrap() {
        let want: Vec<String> = serde_json::from_value(q["top"].clone()).unwrap();
        let r = call(
            run.addr,
            root,
            "oxmcp/tools/search",
            json!({"query": q["query"], "limit": 3}),
        )
        .await;
        let got = names_in(&r.json()["result"]["tools"]);
        assert_eq!(
            &got[..want.len()],
            &want[..],
            "query {}: {got:?}",
            q["name"]
        );
        // search_tools answers the same ranking, FastMCP's way.
        let r = call(
            run.addr,
            root,
            "tools/call",
            json!({"name": "search_tools", "arguments": {"query": q["query"]}}),
        )
        .await;
        let v = r.json();
        assert_eq!(
            names_in(&v["result"]["structuredContent"]["result"]),
            got,
            "{v}"
        );
        let text: Value =
            serde_json::from_str(v["result"]["content"][0]["text"].as_str().unwrap()).unwrap();
        assert_eq!(text, v["result"]["structuredContent"]["result"]);
    }

    // call_tool reaches a tool that is not listed.
    let r = call(run.addr, root, "tools/call", json!({"name": "call_tool", "arguments": {"name": "k8s_delete_pod", "arguments": {"id": "p1", "confirm": "yes"}}})).await;
    assert_eq!(
        r.json()["result"]["content"][0]["text"],
        "ran k8s_delete_pod",
        "{}",
        r.body
    );
    let r = call(
        run.addr,
        root,
        "tools/call",
        json!({"name": "call_tool", "arguments": {"name": "search_tools"}}),
    )
    .await;
    assert_eq!(r.json()["result"]["isError"], true);

    // Alice sees only Slack tools, whatever she asks.
    let alice = Some("alice-token");
    for q in [
        "delete a kubernetes pod",
        "slack message",
        "k8s_delete_pod",
        "list",
    ] {
        let r = call(
            run.addr,
            alice,
            "oxmcp/tools/search",
            json!({"query": q, "limit": 50}),
        )
        .await;
        let got = names_in(&r.json()["result"]["tools"]);
        assert!(got.iter().all(|n| n.starts_with("slack_")), "{q}: {got:?}");
        let r = call(
            run.addr,
            alice,
            "tools/call",
            json!({"name": "search_tools", "arguments": {"query": q}}),
        )
        .await;
        let got = names_in(&r.json()["result"]["structuredContent"]["result"]);
        assert!(got.iter().all(|n| n.starts_with("slack_")), "{q}: {got:?}");
    }
    let r = call(
        run.addr,
        alice,
        "oxmcp/tools/search",
        json!({"pattern": "k8s|pod"}),
    )
    .await;
    assert_eq!(names_in(&r.json()["result"]["tools"]), Vec::<String>::new());
    // The proxy refuses a hidden tool as a direct call does: as an unknown one.
    let r = call(run.addr, alice, "tools/call", json!({"name": "call_tool", "arguments": {"name": "k8s_delete_pod", "arguments": {"id": "p1"}}})).await;
    let direct = call(
        run.addr,
        alice,
        "tools/call",
        json!({"name": "k8s_delete_pod", "arguments": {"id": "p1"}}),
    )
    .await;
    assert_eq!(
        r.json()["error"]["message"],
        "Unknown tool: k8s_delete_pod",
        "{}",
        r.body
    );
    assert_eq!(r.json()["error"], direct.json()["error"]);
    let r = call(run.addr, alice, "tools/call", json!({"name": "call_tool", "arguments": {"name": "slack_get_message", "arguments": {"id": "m"}}})).await;
    assert_eq!(
        r.json()["result"]["content"][0]["text"],
        "ran slack_get_message"
    );
}

/// The search tool's own answers are audited as calls, as every other tool's are.
#[tokio::test]
async fn a_search_is_audited_as_a_call() {
    let _serial = serial().await;
    let cap = Capture::default();
    let _g = tracing::subscriber::set_default(cap.subscriber());
    let run = serve(
        server(json!({"tool_search": "bm25"})),
        HttpConfig::new(loopback()),
    )
    .await;
    let r = call(
        run.addr,
        None,
        "tools/call",
        json!({"name": "search_tools", "arguments": {"query": "slack message"}}),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let audit = cap
        .lines()
        .into_iter()
        .find(|l| l["fields"]["name"] == "search_tools")
        .expect("an audit record for the search");
    assert_eq!(audit["fields"]["method"], "tools/call", "{audit}");
    assert_eq!(audit["fields"]["outcome"], "ok", "{audit}");
}

#[tokio::test]
async fn the_index_follows_adds_and_removes() {
    let s = server(json!({"tool_search": "bm25", "tool_search_method": true}));
    let run = serve(s.clone(), HttpConfig::new(loopback())).await;
    let find = |q: &'static str| {
        let addr = run.addr;
        async move {
            let r = call(addr, None, "oxmcp/tools/search", json!({"query": q})).await;
            names_in(&r.json()["result"]["tools"])
        }
    };
    assert!(find("quantum flux capacitor").await.is_empty());
    s.add_tool(tool_of(&json!({"name": "quantum_flux", "description": "Charge the flux capacitor", "inputSchema": {"type": "object"}}))).unwrap();
    assert_eq!(find("quantum flux capacitor").await, ["quantum_flux"]);
    assert!(s.remove_tool("quantum_flux"));
    assert!(find("quantum flux capacitor").await.is_empty());
    assert!(s.remove_tool("slack_get_message"));
    assert!(!find("slack_get_message")
        .await
        .contains(&"slack_get_message".to_string()));
}

#[tokio::test]
async fn regex_patterns_are_bounded() {
    let s = server(json!({"tool_search": "regex", "tool_search_method": true}));
    let run = serve(s, HttpConfig::new(loopback())).await;
    let r = call(run.addr, None, "tools/list", json!({})).await;
    assert_eq!(
        r.json()["result"]["tools"][0]["inputSchema"]["required"],
        json!(["pattern"])
    );
    let r = call(
        run.addr,
        None,
        "tools/call",
        json!({"name": "search_tools", "arguments": {"pattern": "^k8s_delete_"}}),
    )
    .await;
    assert_eq!(
        names_in(&r.json()["result"]["structuredContent"]["result"]),
        [
            "k8s_delete_pod",
            "k8s_delete_deployment",
            "k8s_delete_service",
            "k8s_delete_namespace",
            "k8s_delete_configmap"
        ]
    );
    let started = Instant::now();
    for (pattern, refused) in [
        ("((a{100}){100}){100}".to_string(), true),
        ("x".repeat(1001), true),
        ("(a|b|ab)*(?=c)".to_string(), true),
        ("(a+)+$".to_string(), false),
        ("(.*a){20}z".to_string(), false),
    ] {
        let r = call(
            run.addr,
            None,
            "oxmcp/tools/search",
            json!({"pattern": pattern}),
        )
        .await;
        let v = r.json();
        assert_eq!(v["error"].is_object(), refused, "{pattern}: {v}");
        if refused {
            assert_eq!(v["error"]["code"], -32602);
        }
        // search_tools answers an empty list for a refused pattern, as FastMCP does.
        let r = call(
            run.addr,
            None,
            "tools/call",
            json!({"name": "search_tools", "arguments": {"pattern": pattern}}),
        )
        .await;
        assert_eq!(r.json()["result"]["isError"], false);
    }
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
}

/// A search result carries the digest its definition has in `tools/list`, so a client can match
/// a found tool to the one it pinned; with `catalog_digests` off, neither carries one.
#[tokio::test]
async fn found_tools_carry_their_listed_digests() {
    for digests in [true, false] {
        let s = server(json!({"tool_search_method": true, "catalog_digests": digests}));
        let run = serve(s, HttpConfig::new(loopback())).await;
        let listed = call(run.addr, None, "tools/list", json!({})).await.json();
        let first = &listed["result"]["tools"][0];
        let name = first["name"].as_str().unwrap();
        let r = call(
            run.addr,
            None,
            "oxmcp/tools/search",
            json!({"query": name, "limit": 1}),
        )
        .await
        .json();
        let found = &r["result"]["tools"][0];
        assert_eq!(found["name"], name, "{r}");
        let digest = &found["_meta"]["io.oxmcp/digest"];
        assert_eq!(digest, &first["_meta"]["io.oxmcp/digest"], "{r}");
        assert_eq!(digest.is_string(), digests, "{r}");
    }
}
