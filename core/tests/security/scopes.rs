//! Per-primitive required scopes over HTTP: the step-up challenge (byte for byte the TS SDK's),
//! a retry with a token that holds the scope, and lists that show or hide what a caller's
//! scopes do not cover (`hide_out_of_scope`).

use super::common::*;
use super::oauth::{claims, jwk, protected, sign, ISSUER, K1_DER, K1_X, META_URL, RESOURCE};

const CHALLENGE_BODY: &str =
    r#"{"error":"insufficient_scope","error_description":"Insufficient scope"}"#;

fn challenge(scope: &str) -> String {
    format!(
        r#"Bearer error="insufficient_scope", error_description="Insufficient scope", scope="{scope}", resource_metadata="{META_URL}""#
    )
}

fn scoped_server(options: ServerOptions) -> Server {
    let text = |s: &'static str| {
        move |_a: Map<String, Value>, _c: Context| async move {
            let mut r = PromptResult::new(vec![]);
            r.description = Some(s.into());
            Ok::<_, ToolError>(r)
        }
    };
    Server::builder("scopes", "1.0.0")
        .options(options)
        .tool(echo("open"))
        .tool(echo("deploy").required_scopes(["deploy:run", "deploy:read"]))
        .resource(Resource::text("mem://open", "o", "text/plain", "open"))
        .resource(
            Resource::text("mem://payroll", "p", "text/plain", "salaries")
                .required_scopes(["hr:read"]),
        )
        .resource_template(
            oxmcp::ResourceTemplate::new("mem://hr/{id}", "hr")
                .required_scopes(["hr:read"])
                .handler(
                    |uri: String, _v: Map<String, Value>, _c: Context| async move {
                        Ok::<_, ToolError>(vec![oxmcp::protocol::ResourceContents::text(
                            uri,
                            "text/plain",
                            "person",
                        )])
                    },
                ),
        )
        .prompt(Prompt::new("plain").handler(text("plain")))
        .prompt(
            Prompt::new("review")
                .required_scopes(["hr:read"])
                .handler(text("review")),
        )
        .build()
        .unwrap()
}

fn names(r: &Resp, member: &str, key: &str) -> Vec<String> {
    let v = r.json();
    v["result"][member]
        .as_array()
        .unwrap_or_else(|| panic!("no {member} in {v}"))
        .iter()
        .map(|t| t[key].as_str().unwrap().to_string())
        .collect()
}

async fn start(options: ServerOptions) -> Running {
    let jwks = json!({"keys": [jwk("k1", K1_X)]});
    let auth = Auth::new()
        .jwt(JwtValidator::with_jwks(ISSUER, RESOURCE, &jwks).unwrap())
        .resource(protected());
    serve(
        scoped_server(options),
        HttpConfig::new(loopback()).auth(Arc::new(auth)),
    )
    .await
}

fn token(scope: &str) -> String {
    sign(K1_DER, "k1", claims(json!({"scope": scope})))
}

#[tokio::test]
async fn a_call_without_the_scope_gets_the_step_up_challenge_and_a_retry_with_it_runs() {
    let _serial = serial().await;
    let s = start(ServerOptions::default()).await;
    let weak = token("mcp:tools deploy:read");

    // Every scope the tool needs is named, not only the missing one (the TS SDK's choice).
    let r = tool_call(s.addr, Some(&weak), "deploy").await;
    assert_eq!(r.status, 403, "{}", r.body);
    assert_eq!(
        r.header("www-authenticate"),
        challenge("deploy:run deploy:read")
    );
    assert_eq!(r.header("content-type"), "application/json");
    assert_eq!(r.body, CHALLENGE_BODY);

    let refused = [
        ("resources/read", json!({"uri": "mem://payroll"})),
        ("resources/read", json!({"uri": "mem://hr/7"})),
        ("prompts/get", json!({"name": "review"})),
    ];
    for (method, params) in &refused {
        let r = call(s.addr, Some(&weak), method, params.clone()).await;
        assert_eq!(r.status, 403, "{method} {params}: {}", r.body);
        assert_eq!(r.header("www-authenticate"), challenge("hr:read"));
        assert_eq!(r.body, CHALLENGE_BODY);
    }
    // What needs no scope is not affected.
    assert_eq!(tool_call(s.addr, Some(&weak), "open").await.status, 200);

    // The client stepped up: a token with the union of what it had and what was asked.
    let strong = token("mcp:tools deploy:read deploy:run hr");
    let r = tool_call(s.addr, Some(&strong), "deploy").await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["result"]["content"][0]["text"], "deploy for carol");
    let r = call(
        s.addr,
        Some(&strong),
        "resources/read",
        json!({"uri": "mem://hr/7"}),
    )
    .await;
    assert_eq!(
        r.json()["result"]["contents"][0]["text"],
        "person",
        "{}",
        r.body
    );
    let r = call(
        s.addr,
        Some(&strong),
        "prompts/get",
        json!({"name": "review"}),
    )
    .await;
    assert_eq!(r.json()["result"]["description"], "review", "{}", r.body);
}

#[tokio::test]
async fn lists_show_scoped_primitives_by_default_and_hide_them_when_asked() {
    let _serial = serial().await;
    let weak = token("mcp:tools");
    let strong = token("deploy:run deploy:read hr:read");
    let lists = |addr, tok: String| async move {
        let t = names(
            &call(addr, Some(&tok), "tools/list", json!({})).await,
            "tools",
            "name",
        );
        let r = names(
            &call(addr, Some(&tok), "resources/list", json!({})).await,
            "resources",
            "uri",
        );
        let rt = names(
            &call(addr, Some(&tok), "resources/templates/list", json!({})).await,
            "resourceTemplates",
            "uriTemplate",
        );
        let p = names(
            &call(addr, Some(&tok), "prompts/list", json!({})).await,
            "prompts",
            "name",
        );
        (t, r, rt, p)
    };
    let all = (
        vec!["open".to_string(), "deploy".into()],
        vec!["mem://open".to_string(), "mem://payroll".into()],
        vec!["mem://hr/{id}".to_string()],
        vec!["plain".to_string(), "review".into()],
    );
    let sorted =
        |(mut a, mut b, mut c, mut d): (Vec<String>, Vec<String>, Vec<String>, Vec<String>)| {
            a.sort();
            b.sort();
            c.sort();
            d.sort();
            (a, b, c, d)
        };

    let shown = start(ServerOptions::default()).await;
    assert_eq!(
        sorted(lists(shown.addr, weak.clone()).await),
        sorted(all.clone())
    );

    let mut options = ServerOptions::default();
    options.hide_out_of_scope = true;
    let hidden = start(options).await;
    assert_eq!(
        sorted(lists(hidden.addr, weak.clone()).await),
        (
            vec!["open".to_string()],
            vec!["mem://open".to_string()],
            vec![],
            vec!["plain".to_string()]
        )
    );
    assert_eq!(sorted(lists(hidden.addr, strong).await), sorted(all));
    // Hidden from the list, the call still answers the challenge a client can act on.
    let r = tool_call(hidden.addr, Some(&weak), "deploy").await;
    assert_eq!(r.status, 403);
    assert_eq!(
        r.header("www-authenticate"),
        challenge("deploy:run deploy:read")
    );
}

#[tokio::test]
async fn named_tokens_carry_their_scopes_and_without_auth_scopes_do_not_apply() {
    let _serial = serial().await;
    let tokens = NamedTokens::new()
        .token("ops", "ops-token")
        .scopes("ops", ["deploy"])
        .token("dev", "dev-token");
    let auth = Auth::new().tokens(tokens).resource(protected());
    let s = serve(
        scoped_server(ServerOptions::default()),
        HttpConfig::new(loopback()).auth(Arc::new(auth)),
    )
    .await;
    // `deploy` covers `deploy:run` and `deploy:read` (scope hierarchy).
    assert_eq!(
        tool_call(s.addr, Some("ops-token"), "deploy").await.status,
        200
    );
    let r = tool_call(s.addr, Some("dev-token"), "deploy").await;
    assert_eq!(r.status, 403);
    assert_eq!(
        r.header("www-authenticate"),
        challenge("deploy:run deploy:read")
    );

    // No auth on the endpoint: no token, so nothing to hold scopes (as in both SDKs).
    let open = serve(
        scoped_server(ServerOptions::default()),
        HttpConfig::new(loopback()),
    )
    .await;
    assert_eq!(tool_call(open.addr, None, "deploy").await.status, 200);
}
