//! The conformance "everything" server: every fixture of the official MCP conformance suite
//! (see tests/conformance), written with the plain oxmcp Rust API.

#![allow(clippy::print_stderr)]
mod cli;
mod tasks_fixtures;

use oxmcp::{
    ClientCapability, Completion, Content, Context, HandlerError, InputRequest, Prompt,
    PromptMessage, PromptResult, Resource, ResourceContents, ResourceTemplate, Server, Tool,
    ToolError, ToolResult,
};
use serde_json::{json, Map, Value};
use std::time::Duration;

/// A 1×1 PNG.
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
/// A silent WAV.
const WAV: &str = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQAAAAA=";

type Args = Map<String, Value>;

fn no_args() -> Value {
    json!({"type":"object","properties":{}})
}

fn string_arg(name: &str) -> Value {
    json!({"type":"object","properties":{name:{"type":"string"}},"required":[name]})
}

fn text_of(v: &Value) -> String {
    v.pointer("/content/text")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string()
}

fn tools() -> Vec<Tool> {
    vec![
        Tool::new("test_simple_text", no_args())
            .description("Returns a simple text response")
            .handler(|_: Args, _: Context| async { Ok::<_, HandlerError>("This is a simple text response for testing.") }),
        Tool::new("test_image_content", no_args())
            .description("Returns an image")
            .handler(|_: Args, _: Context| async { Ok::<_, HandlerError>(Content::image(PNG, "image/png")) }),
        Tool::new("test_audio_content", no_args())
            .description("Returns audio")
            .handler(|_: Args, _: Context| async { Ok::<_, HandlerError>(Content::audio(WAV, "audio/wav")) }),
        Tool::new("test_embedded_resource", no_args()).description("Returns an embedded resource").handler(|_: Args, _: Context| async {
            Ok::<_, HandlerError>(Content::embedded(ResourceContents::text(
                "test://embedded-resource",
                "text/plain",
                "This is an embedded resource content.",
            )))
        }),
        Tool::new("test_multiple_content_types", no_args()).description("Returns text, an image and a resource").handler(
            |_: Args, _: Context| async {
                Ok::<_, HandlerError>(vec![
                    Content::text("Multiple content types test:"),
                    Content::image(PNG, "image/png"),
                    Content::embedded(ResourceContents::text(
                        "test://mixed-content-resource",
                        "application/json",
                        r#"{"test":"data","value":123}"#,
                    )),
                ])
            },
        ),
        Tool::new("test_error_handling", no_args())
            .description("Always fails with a tool error")
            .handler(|_: Args, _: Context| async { Err::<ToolResult, _>(ToolError::new("This tool intentionally returns an error for testing")) }),
        Tool::new("test_tool_with_progress", no_args()).description("Reports progress 0, 50, 100").handler(|_: Args, ctx: Context| async move {
            for p in [0.0, 50.0, 100.0] {
                ctx.progress(p, Some(100.0), Some(format!("Completed step {p}"))).await;
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            Ok::<_, HandlerError>("Progress test completed")
        }),
        Tool::new("test_tool_with_logging", no_args()).description("Logs three messages").handler(|_: Args, ctx: Context| async move {
            for m in ["Tool execution started", "Tool processing data", "Tool execution completed"] {
                ctx.log(oxmcp::LogLevel::Info, json!(m), Some("test_tool_with_logging".into())).await;
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            Ok::<_, HandlerError>("Logging test completed")
        }),
        Tool::new("test_logging_tool", no_args()).description("Logs only when the request asked for logs").handler(
            |_: Args, ctx: Context| async move {
                ctx.log(oxmcp::LogLevel::Info, json!("logging tool ran"), None).await;
                Ok::<_, HandlerError>("Logged")
            },
        ),
        Tool::new("test_sampling", string_arg("prompt")).description("Asks the client's model").handler(|a: Args, ctx: Context| async move {
            let prompt = a["prompt"].as_str().unwrap_or_default().to_string();
            let r = ctx
                .sample(
                    "sampling",
                    json!({"messages":[{"role":"user","content":{"type":"text","text":prompt}}],"maxTokens":100}),
                )
                .await?;
            Ok::<_, HandlerError>(format!("LLM response: {}", text_of(&r)))
        }),
        Tool::new("test_elicitation", string_arg("message")).description("Asks the user").handler(|a: Args, ctx: Context| async move {
            let message = a["message"].as_str().unwrap_or_default().to_string();
            let r = ctx
                .elicit(
                    "elicitation",
                    json!({"message":message,"requestedSchema":{"type":"object","properties":{"username":{"type":"string","description":"User's response"},"email":{"type":"string","description":"User's email address"}},"required":["username","email"]}}),
                )
                .await?;
            Ok::<_, HandlerError>(format!("User response: {r}"))
        }),
        Tool::new("test_elicitation_sep1034_defaults", no_args()).description("Elicitation with defaults (SEP-1034)").handler(
            |_: Args, ctx: Context| async move {
                let r = ctx.elicit("defaults", json!({"message":"Please review and update the form fields with defaults","requestedSchema":{
                    "type":"object","properties":{
                        "name":{"type":"string","description":"User name","default":"John Doe"},
                        "age":{"type":"integer","description":"User age","default":30},
                        "score":{"type":"number","description":"User score","default":95.5},
                        "status":{"type":"string","description":"User status","enum":["active","inactive","pending"],"default":"active"},
                        "verified":{"type":"boolean","description":"Verification status","default":true}}}})).await?;
                Ok::<_, HandlerError>(format!("Elicitation completed: {r}"))
            },
        ),
        Tool::new("test_elicitation_sep1330_enums", no_args()).description("Elicitation with enum schemas (SEP-1330)").handler(
            |_: Args, ctx: Context| async move {
                let r = ctx.elicit("enums", json!({"message":"Please select options from the enum fields","requestedSchema":{
                    "type":"object","properties":{
                        "untitledSingle":{"type":"string","description":"Select one option","enum":["option1","option2","option3"]},
                        "titledSingle":{"type":"string","description":"Select one option with titles","oneOf":[
                            {"const":"value1","title":"First Option"},{"const":"value2","title":"Second Option"},{"const":"value3","title":"Third Option"}]},
                        "legacyEnum":{"type":"string","description":"Select one option (legacy)","enum":["opt1","opt2","opt3"],"enumNames":["Option One","Option Two","Option Three"]},
                        "untitledMulti":{"type":"array","description":"Select multiple options","minItems":1,"maxItems":3,"items":{"type":"string","enum":["option1","option2","option3"]}},
                        "titledMulti":{"type":"array","description":"Select multiple options with titles","minItems":1,"maxItems":3,"items":{"anyOf":[
                            {"const":"value1","title":"First Choice"},{"const":"value2","title":"Second Choice"},{"const":"value3","title":"Third Choice"}]}}}}})).await?;
                Ok::<_, HandlerError>(format!("Elicitation completed: {r}"))
            },
        ),
        Tool::new("test_missing_capability", no_args()).description("Needs the client's sampling capability").handler(
            |_: Args, ctx: Context| async move {
                let r = ctx.sample("needs_sampling", json!({"messages":[{"role":"user","content":{"type":"text","text":"Say hi"}}],"maxTokens":10})).await?;
                Ok::<_, HandlerError>(format!("LLM response: {}", text_of(&r)))
            },
        ),
        Tool::new("test_streaming_elicitation", no_args()).description("Asks the user while streaming").handler(|_: Args, ctx: Context| async move {
            ctx.log(oxmcp::LogLevel::Info, json!("asking"), None).await;
            let r = ctx.elicit("confirm", json!({"message":"Continue?","requestedSchema":{"type":"object","properties":{"ok":{"type":"boolean"}}}})).await?;
            Ok::<_, HandlerError>(format!("Answer: {r}"))
        }),
        Tool::new("test_input_required_result_elicitation", no_args()).description("MRTR: one elicitation").handler(
            |_: Args, ctx: Context| async move {
                let r = ctx.elicit("user_name", json!({"message":"What is your name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}})).await?;
                let name = r.pointer("/content/name").and_then(Value::as_str).unwrap_or("stranger").to_string();
                Ok::<_, HandlerError>(format!("Hello, {name}!"))
            },
        ),
        Tool::new("test_input_required_result_sampling", no_args()).description("MRTR: one sampling request").handler(
            |_: Args, ctx: Context| async move {
                let r = ctx.sample("capital_question", json!({"messages":[{"role":"user","content":{"type":"text","text":"What is the capital of France?"}}],"maxTokens":50})).await?;
                Ok::<_, HandlerError>(format!("The model said: {}", text_of(&r)))
            },
        ),
        Tool::new("test_input_required_result_list_roots", no_args()).description("MRTR: the client's roots").handler(
            |_: Args, ctx: Context| async move {
                let r = ctx.list_roots("client_roots").await?;
                let n = r["roots"].as_array().map_or(0, Vec::len);
                Ok::<_, HandlerError>(format!("The client has {n} roots"))
            },
        ),
        Tool::new("test_input_required_result_request_state", no_args()).description("MRTR with handler state").handler(
            |_: Args, ctx: Context| async move {
                if ctx.request_state().is_none() {
                    ctx.set_request_state(json!({"step": "state-ok"}));
                }
                let r = ctx.elicit("confirm", json!({"message":"Confirm?","requestedSchema":{"type":"object","properties":{"ok":{"type":"boolean"}}}})).await?;
                let state = ctx.request_state().and_then(|s| s["step"].as_str().map(str::to_string)).unwrap_or_default();
                Ok::<_, HandlerError>(format!("{state}: {}", r["action"].as_str().unwrap_or("")))
            },
        ),
        Tool::new("test_input_required_result_multiple_inputs", no_args()).description("MRTR: three inputs in one round").handler(
            |_: Args, ctx: Context| async move {
                let mut asks = Vec::new();
                if ctx.supports(ClientCapability::Elicitation) {
                    asks.push(("user_name".to_string(), InputRequest::Elicit(json!({"message":"Name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}))));
                }
                if ctx.supports(ClientCapability::Sampling) {
                    asks.push(("capital_question".to_string(), InputRequest::Sample(json!({"messages":[{"role":"user","content":{"type":"text","text":"Capital of France?"}}],"maxTokens":50}))));
                }
                if ctx.supports(ClientCapability::Roots) {
                    asks.push(("client_roots".to_string(), InputRequest::ListRoots));
                }
                let answers = ctx.inputs(asks).await?;
                Ok::<_, HandlerError>(format!("Received {} answers", answers.len()))
            },
        ),
        Tool::new("test_input_required_result_multi_round", no_args()).description("MRTR over three rounds").handler(
            |_: Args, ctx: Context| async move {
                let first = ctx.elicit("step1", json!({"message":"Step 1: your name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}})).await?;
                let second = ctx.elicit("step2", json!({"message":"Step 2: your city?","requestedSchema":{"type":"object","properties":{"city":{"type":"string"}}}})).await?;
                Ok::<_, HandlerError>(format!("Completed two rounds: {} / {}", first["content"], second["content"]))
            },
        ),
        Tool::new("test_input_required_result_tampered_state", no_args()).description("MRTR with integrity-protected state").handler(
            |_: Args, ctx: Context| async move {
                ctx.set_request_state(json!({"authorized": false}));
                let r = ctx.elicit("confirm", json!({"message":"Confirm?","requestedSchema":{"type":"object","properties":{"ok":{"type":"boolean"}}}})).await?;
                Ok::<_, HandlerError>(format!("Confirmed: {}", r["action"]))
            },
        ),
        Tool::new("test_input_required_result_capabilities", no_args()).description("MRTR asking only for declared capabilities").handler(
            |_: Args, ctx: Context| async move {
                let answer = if ctx.supports(ClientCapability::Elicitation) {
                    ctx.elicit("user_name", json!({"message":"Name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}})).await?
                } else if ctx.supports(ClientCapability::Sampling) {
                    ctx.sample("capital_question", json!({"messages":[{"role":"user","content":{"type":"text","text":"Capital of France?"}}],"maxTokens":50})).await?
                } else {
                    ctx.list_roots("client_roots").await?
                };
                Ok::<_, HandlerError>(format!("Got: {answer}"))
            },
        ),
        Tool::new("test_trigger_tool_change", no_args()).description("Adds or removes a tool (list_changed)").handler(|_: Args, _: Context| async {
            Ok::<_, HandlerError>("tool list changed")
        }),
        Tool::new("test_trigger_prompt_change", no_args()).description("Adds or removes a prompt (list_changed)").handler(|_: Args, _: Context| async {
            Ok::<_, HandlerError>("prompt list changed")
        }),
        Tool::new("test_trigger_resource_update", no_args()).description("Marks test://watched-resource as updated").handler(|_: Args, _: Context| async {
            Ok::<_, HandlerError>("resource updated")
        }),
        Tool::new("json_schema_2020_12_tool", json!({
            "$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",
            "$defs":{"address":{"$anchor":"addressDef","type":"object","properties":{"street":{"type":"string"},"city":{"type":"string"}}}},
            "properties":{"name":{"type":"string"},"address":{"$ref":"#/$defs/address"},"contactMethod":{"type":"string","enum":["phone","email"]},"phone":{"type":"string"},"email":{"type":"string"}},
            "allOf":[{"anyOf":[{"required":["phone"]},{"required":["email"]}]}],
            "if":{"properties":{"contactMethod":{"const":"phone"}},"required":["contactMethod"]},"then":{"required":["phone"]},"else":{"required":["email"]},
            "additionalProperties":false}))
            .description("Uses JSON Schema 2020-12 keywords")
            .handler(|_: Args, _: Context| async { Ok::<_, HandlerError>("ok") }),
        Tool::new("add", json!({"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]}))
            .description("Add two integers")
            .output_schema(json!({"type":"object","properties":{"result":{"type":"integer"}},"required":["result"]}))
            .handler(|a: Args, _: Context| async move {
                let sum = a["a"].as_i64().unwrap_or(0) + a["b"].as_i64().unwrap_or(0);
                Ok::<_, HandlerError>(ToolResult { content: vec![Content::text(sum.to_string())], structured_content: Some(json!({"result": sum})), ..Default::default() })
            }),
        Tool::new(
            "test_custom_header",
            json!({"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"note":{"type":"string"}},"required":["region"]}),
        )
        .description("Mirrors its region argument into the Mcp-Param-Region header (x-mcp-header)")
        .handler(|a: Args, _: Context| async move { Ok::<_, HandlerError>(format!("region: {}", a["region"].as_str().unwrap_or(""))) }),
        Tool::new("echo", string_arg("text")).description("Echo the text").handler(|a: Args, _: Context| async move {
            Ok::<_, HandlerError>(a["text"].as_str().unwrap_or_default().to_string())
        }),
        Tool::new("test_slow", json!({"type":"object","properties":{"ms":{"type":"integer","minimum":0,"maximum":60000}}}))
            .description("Sleeps, watching for cancellation")
            .handler(|a: Args, ctx: Context| async move {
                let ms = a.get("ms").and_then(Value::as_u64).unwrap_or(1000);
                tokio::select! {
                    _ = tokio::time::sleep(Duration::from_millis(ms)) => Ok::<_, HandlerError>(format!("slept {ms} ms")),
                    _ = ctx.cancellation().cancelled() => {
                        eprintln!("test_slow: cancelled");
                        Err(HandlerError::Cancelled)
                    }
                }
            }),
        Tool::new("test_panic", no_args()).description("Panics (isolation test)").handler(|_: Args, _: Context| async {
            if true {
                panic!("deliberate panic");
            }
            Ok::<_, HandlerError>("unreachable")
        }),
    ]
}

fn prompts() -> Vec<Prompt> {
    vec![
        Prompt::new("test_simple_prompt").description("A simple prompt").handler(|_: Args, _: Context| async {
            Ok::<_, HandlerError>(PromptResult::new(vec![PromptMessage::user(Content::text("This is a simple prompt for testing."))]))
        }),
        Prompt::new("test_prompt_with_arguments")
            .description("A prompt with arguments")
            .argument("arg1", "First test argument", true)
            .argument("arg2", "Second test argument", true)
            .handler(|a: Args, _: Context| async move {
                let text = format!("Prompt with arguments: arg1='{}', arg2='{}'", a["arg1"].as_str().unwrap_or(""), a["arg2"].as_str().unwrap_or(""));
                Ok::<_, HandlerError>(PromptResult::new(vec![PromptMessage::user(Content::text(text))]))
            })
            .complete(|arg: String, value: String, _c: Args, _: Context| async move {
                let pool: &[&str] = if arg == "arg1" { &["paris", "park", "party", "test", "testing"] } else { &["alpha", "beta"] };
                Ok::<_, HandlerError>(Completion::new(pool.iter().filter(|v| v.starts_with(&value)).map(|v| v.to_string()).collect()))
            }),
        Prompt::new("test_prompt_with_embedded_resource")
            .description("A prompt with an embedded resource")
            .argument("resourceUri", "URI of the resource to embed", true)
            .handler(|a: Args, _: Context| async move {
                let uri = a["resourceUri"].as_str().unwrap_or("test://example-resource").to_string();
                Ok::<_, HandlerError>(PromptResult::new(vec![
                    PromptMessage::user(Content::embedded(ResourceContents::text(uri, "text/plain", "Embedded resource content for testing."))),
                    PromptMessage::user(Content::text("Please process the embedded resource above.")),
                ]))
            }),
        Prompt::new("test_prompt_with_image").description("A prompt with an image").handler(|_: Args, _: Context| async {
            Ok::<_, HandlerError>(PromptResult::new(vec![
                PromptMessage::user(Content::image(PNG, "image/png")),
                PromptMessage::user(Content::text("Please analyze the image above.")),
            ]))
        }),
        Prompt::new("test_input_required_result_prompt").description("A prompt that asks the user first (MRTR)").handler(
            |_: Args, ctx: Context| async move {
                let r = ctx.elicit("topic", json!({"message":"Which topic?","requestedSchema":{"type":"object","properties":{"topic":{"type":"string"}}}})).await?;
                let topic = r.pointer("/content/topic").and_then(Value::as_str).unwrap_or("anything").to_string();
                Ok::<_, HandlerError>(PromptResult::new(vec![PromptMessage::user(Content::text(format!("Tell me about {topic}.")))]))
            },
        ),
    ]
}

fn resources() -> (Vec<Resource>, Vec<ResourceTemplate>) {
    let statics = vec![
        Resource::text(
            "test://static-text",
            "Static Text Resource",
            "text/plain",
            "This is the content of the static text resource.",
        )
        .description("A static text resource"),
        Resource::new("test://static-binary", "Static Binary Resource")
            .mime_type("image/png")
            .description("A PNG image")
            .handler(|uri: String, _: Args, _: Context| async move {
                Ok::<_, HandlerError>(vec![ResourceContents::blob(uri, "image/png", PNG)])
            }),
        Resource::text(
            "test://watched-resource",
            "Watched Resource",
            "text/plain",
            "Watched resource content",
        )
        .description("Subscribe to it"),
        Resource::text(
            "test://example-resource",
            "Example Resource",
            "text/plain",
            "Example resource content",
        ),
    ];
    let templates = vec![
        ResourceTemplate::new("test://template/{id}/data", "Template Resource")
            .mime_type("application/json")
            .description("Data for an id")
            .handler(|uri: String, vars: Args, _: Context| async move {
                let id = vars["id"].as_str().unwrap_or_default().to_string();
                let body =
                    json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")});
                Ok::<_, HandlerError>(vec![ResourceContents::text(
                    uri,
                    "application/json",
                    body.to_string(),
                )])
            })
            .complete(
                |_arg: String, value: String, _: Args, _: Context| async move {
                    Ok::<_, HandlerError>(Completion::new(
                        ["1", "2", "3", "123"]
                            .iter()
                            .filter(|v| v.starts_with(&value))
                            .map(|v| v.to_string())
                            .collect(),
                    ))
                },
            ),
    ];
    (statics, templates)
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Every option from the environment (OXMCP_STATE_KEY, OXMCP_VALIDATION, OXMCP_PAGE_SIZE, ...:
    // the knobs the integration tests in tests/it turn).
    let options = cli::config()?.server;
    let (statics, templates) = resources();
    let builder = Server::builder("oxmcp-everything", env!("CARGO_PKG_VERSION"))
        .title("oxmcp everything server")
        .instructions("Conformance fixtures for every MCP feature oxmcp serves.");
    let mut b = options.apply_to(builder)?;
    for t in tools().into_iter().chain(tasks_fixtures::tools()) {
        b = b.tool(t);
    }
    for p in prompts() {
        b = b.prompt(p);
    }
    for r in statics {
        b = b.resource(r);
    }
    for t in templates {
        b = b.resource_template(t);
    }
    // The Skills extension: every skill below examples/skills (OXMCP_SKILLS_DIR moves it), one
    // whose SKILL.md is written per request, and one served unlisted (reached by its URI only).
    let dir = std::env::var("OXMCP_SKILLS_DIR")
        .unwrap_or_else(|_| concat!(env!("CARGO_MANIFEST_DIR"), "/skills").to_string());
    let unlisted =
        oxmcp::skills::load_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/unlisted-skills"))?;
    b = b
        .skills_dir(dir)
        .dynamic_skill(clock_skill()?)
        .skills(unlisted.into_iter().map(oxmcp::Skill::unlisted));
    if std::env::var("OXMCP_EXTRA_FIXTURES").as_deref() == Ok("1") {
        // Not a conformance fixture: a tool that breaks its own outputSchema (tests/it).
        b = b.tool(
            Tool::new("test_bad_output", no_args())
                .description("Returns structuredContent that violates its outputSchema")
                .output_schema(json!({"type":"object","properties":{"result":{"type":"integer"}},"required":["result"]}))
                .handler(|_: Args, _: Context| async {
                    Ok::<_, HandlerError>(ToolResult { content: vec![Content::text("oops")], structured_content: Some(json!({"result": "not a number"})), ..Default::default() })
                }),
        );
    }
    let server = b.build()?;
    install_triggers(&server)?;
    cli::run(server).await
}

/// A dynamic skill (`"resources": "dynamic"`): its SKILL.md is generated on every read.
fn clock_skill() -> Result<oxmcp::DynamicSkill, oxmcp::BuildError> {
    const DESCRIPTION: &str =
        "Tell the server's time. Use when asked what time it is on the server.";
    let mut fm = Map::new();
    fm.insert("name".into(), json!("clock"));
    fm.insert("description".into(), json!(DESCRIPTION));
    let read = |uri: String, vars: Map<String, Value>, _: Context| async move {
        if vars.get("file").and_then(Value::as_str) != Some("SKILL.md") {
            return Err(HandlerError::from(oxmcp::McpError::invalid_params(
                format!("no such file: {uri}"),
            )));
        }
        let secs = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or_default();
        let text = format!(
            "---\nname: clock\ndescription: {DESCRIPTION}\n---\nThe server's clock reads {secs} seconds since the Unix epoch.\n"
        );
        Ok(vec![ResourceContents::text(uri, "text/markdown", text)])
    };
    oxmcp::DynamicSkill::new("live/clock", fm, std::sync::Arc::new(read))
}

/// The trigger tools need the server itself: replace them with versions that change its lists.
fn install_triggers(server: &Server) -> Result<(), oxmcp::BuildError> {
    let s = server.clone();
    server.upsert_tool(
        Tool::new("test_trigger_tool_change", no_args())
            .description("Adds or removes a tool (list_changed)")
            .handler(move |_: Args, _: Context| {
                let s = s.clone();
                async move {
                    if !s.remove_tool("test_dynamic_tool") {
                        s.add_tool(
                            Tool::new("test_dynamic_tool", no_args())
                                .description("Added at runtime")
                                .handler(|_: Args, _: Context| async {
                                    Ok::<_, HandlerError>("dynamic")
                                }),
                        )
                        .map_err(|e| ToolError::new(e.to_string()))?;
                    }
                    Ok::<_, HandlerError>("tool list changed")
                }
            }),
    )?;
    let s = server.clone();
    server.upsert_tool(
        Tool::new("test_trigger_prompt_change", no_args())
            .description("Adds or removes a prompt (list_changed)")
            .handler(move |_: Args, _: Context| {
                let s = s.clone();
                async move {
                    if !s.remove_prompt("test_dynamic_prompt") {
                        s.add_prompt(
                            Prompt::new("test_dynamic_prompt")
                                .description("Added at runtime")
                                .handler(|_: Args, _: Context| async {
                                    Ok::<_, HandlerError>(PromptResult::new(vec![
                                        PromptMessage::user(Content::text("dynamic")),
                                    ]))
                                }),
                        )
                        .map_err(|e| ToolError::new(e.to_string()))?;
                    }
                    Ok::<_, HandlerError>("prompt list changed")
                }
            }),
    )?;
    let s = server.clone();
    server.upsert_tool(
        Tool::new("test_trigger_resource_update", no_args())
            .description("Marks test://watched-resource as updated")
            .handler(move |_: Args, _: Context| {
                let s = s.clone();
                async move {
                    s.notify_resource_updated("test://watched-resource");
                    Ok::<_, HandlerError>("resource updated")
                }
            }),
    )?;
    Ok(())
}
