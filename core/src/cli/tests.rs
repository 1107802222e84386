//! The command line parsed into plans and checked arguments, without a host.
use super::*;

fn words(s: &[&str]) -> Vec<String> {
    s.iter().map(|w| w.to_string()).collect()
}

#[test]
fn the_tool_after_double_dash_is_the_word_before_the_first_pair() {
    let (cmd, rest) = split_command(words(&["python", "s.py", "add", "a=1", "b=2"])).unwrap();
    assert_eq!(
        (cmd, rest),
        (words(&["python", "s.py"]), words(&["add", "a=1", "b=2"]))
    );
    let (cmd, rest) = split_command(words(&["node", "s.mjs", "add"])).unwrap();
    assert_eq!((cmd, rest), (words(&["node", "s.mjs"]), words(&["add"])));
    assert!(split_command(words(&["add", "a=1"])).is_err());
}

#[test]
fn arguments_are_json_unless_the_schema_says_string() {
    let schema = json!({"properties": {"s": {"type": "string"}}});
    let got = parse_arguments(
        &words(&["s=007", "n=007", "x=hi", "o={\"a\":1}"]),
        Some("{\"b\": 5}"),
        &schema,
    )
    .unwrap();
    assert_eq!(
        Value::Object(got),
        json!({"s": "007", "n": "007", "x": "hi", "o": {"a": 1}, "b": 5})
    );
    assert_eq!(
        parse_arguments(&words(&["nope"]), None, &schema)
            .unwrap_err()
            .message,
        "arguments are key=value, got 'nope'"
    );
    assert_eq!(
        parse_arguments(&[], Some("[1]"), &schema)
            .unwrap_err()
            .message,
        "--args must be a JSON object"
    );
}

/// The plan `oxmcp ARGV` hands its host, through the same parsing as the command line.
fn plan(argv: &[&str]) -> Result<Value, String> {
    match run(words(argv), &Launchers::default()) {
        Ok(Outcome::Serve(p)) => Ok(p),
        Err(Failure::Cli(e)) => Err(e.message),
        _ => Err("other".into()),
    }
}

#[test]
fn run_plans() {
    let p = plan(&["run", "pkg.mod:srv"]).unwrap();
    assert_eq!(
        (p["mode"].as_str(), p["spec"].as_str(), p["attr"].as_str()),
        (Some("stdio"), Some("pkg.mod"), Some("srv"))
    );
    assert_eq!(p["file"], Value::Null);
    let p = plan(&["run", "m", "--http", ":9000", "--discover", "d"]).unwrap();
    assert_eq!(
        p["forward"],
        json!([
            "--http",
            "127.0.0.1:9000",
            "--path",
            "/mcp",
            "--discover",
            "d"
        ])
    );
    let p = plan(&["run", "m", "--tls-cert", "c.pem", "--tls-key", "k.pem"]).unwrap();
    assert_eq!(
        (p["mode"].as_str(), &p["options"]),
        (
            Some("http"),
            &json!({"tls_cert": "c.pem", "tls_key": "k.pem"})
        )
    );
    // The app's own command line comes after `--`, and is handed on to the other host.
    let p = plan(&["run", "m", "--", "stdio", "--db", "x.db", "--http"]).unwrap();
    assert_eq!(
        (p["mode"].as_str(), &p["args"]),
        (Some("stdio"), &json!(["stdio", "--db", "x.db", "--http"]))
    );
    assert_eq!(
        p["forward"],
        json!(["--", "stdio", "--db", "x.db", "--http"])
    );
    assert_eq!(plan(&["run", "m"]).unwrap()["args"], json!([]));
    assert_eq!(plan(&["run", "m", "--"]).unwrap()["args"], json!([]));
    assert_eq!(
        plan(&["dev", "app.py", "--", "x"]).unwrap_err(),
        "dev takes no -- ARGS; run, inspect, call and verify do"
    );
    let p = plan(&["run", "m", "--uds", "/tmp/s.sock"]).unwrap();
    assert_eq!(p["options"], json!({"uds": "/tmp/s.sock"}));
    assert_eq!(
        p["forward"],
        json!(["--path", "/mcp", "--uds", "/tmp/s.sock"])
    );
    assert_eq!(
        plan(&["run", "m", "--transport", "stdio", "--http", "h:1"]).unwrap_err(),
        "--transport stdio and --http contradict each other"
    );
    assert_eq!(
        plan(&["run", "m", "--transport", "stdio", "--uds", "s"]).unwrap_err(),
        "--transport stdio and --uds contradict each other"
    );
    assert_eq!(
        plan(&["run", "m", "--http", "nope"]).unwrap_err(),
        "--http wants HOST:PORT, got 'nope'"
    );
    assert_eq!(
        plan(&["dev", "m"]).unwrap_err(),
        "dev wants a file (app.py or app.mjs), not a module name"
    );
    assert_eq!(
        plan(&["run", "missing.py"]).unwrap_err(),
        "no such file: missing.py"
    );
}

#[test]
fn call_words_may_follow_flags() {
    let cli = Cli::try_parse_from(words(&[
        "oxmcp", "call", "--json", "app.py", "add", "--args", "{}", "b=5",
    ]))
    .unwrap();
    let Verb::Call(a) = cli.verb else { panic!() };
    assert_eq!(a.words, words(&["app.py", "add", "b=5"]));
    assert!(a.client.json);
    assert_eq!(a.args_json.as_deref(), Some("{}"));
}
