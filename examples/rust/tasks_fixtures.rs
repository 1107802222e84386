//! The Tasks extension fixtures of the conformance suite (`tasks-*` scenarios): `greet`,
//! `slow_compute`, `failing_job`, `protocol_error_job`, `confirm_delete`, `multi_input` and
//! `test_tool_with_task`. The same names and behaviour are in the Python and Node everything
//! servers.

use oxmcp::tasks::TaskSupport;
use oxmcp::{Context, HandlerError, InputRequest, Tool, ToolError};
use serde_json::{json, Map, Value};
use std::time::Duration;

type Args = Map<String, Value>;

/// Sleep `d`, or stop when the call (or its task) is cancelled.
async fn sleep_or_cancel(ctx: &Context, d: Duration) -> Result<(), HandlerError> {
    tokio::select! {
        _ = tokio::time::sleep(d) => Ok(()),
        _ = ctx.cancellation().cancelled() => Err(HandlerError::Cancelled),
    }
}

fn ask_confirm(message: String) -> Value {
    json!({"message": message, "requestedSchema": {"type":"object","properties":{"confirm":{"type":"boolean"}},"required":["confirm"]}})
}

pub(crate) fn tools() -> Vec<Tool> {
    vec![
        Tool::new("greet", json!({"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}))
            .description("Greets by name (never a task)")
            .handler(|a: Args, _: Context| async move {
                Ok::<_, HandlerError>(format!("Hello, {}!", a["name"].as_str().unwrap_or_default()))
            }),
        Tool::new("slow_compute", json!({"type":"object","properties":{"seconds":{"type":"number","minimum":0,"maximum":600},"label":{"type":"string"}}}))
            .description("Sleeps `seconds`, then answers (a task when the client supports them)")
            .task_support(TaskSupport::Optional)
            .handler(|a: Args, ctx: Context| async move {
                let secs = a.get("seconds").and_then(Value::as_f64).unwrap_or(1.0);
                let label = a.get("label").and_then(Value::as_str).unwrap_or("job").to_string();
                let steps = (secs * 4.0).ceil() as u32;
                for i in 0..steps {
                    ctx.progress(f64::from(i), Some(f64::from(steps)), None).await;
                    sleep_or_cancel(&ctx, Duration::from_secs_f64(secs / f64::from(steps))).await?;
                }
                Ok::<_, HandlerError>(format!("Computed {label} in {secs} s"))
            }),
        Tool::new("failing_job", json!({"type":"object","properties":{}}))
            .description("Fails with a tool error after about a second (task only)")
            .task_support(TaskSupport::Required)
            .handler(|_: Args, ctx: Context| async move {
                sleep_or_cancel(&ctx, Duration::from_millis(800)).await?;
                Err::<String, _>(HandlerError::Tool(ToolError::new("The job failed: the input was rejected")))
            }),
        Tool::new("protocol_error_job", json!({"type":"object","properties":{}}))
            .description("Panics: the task ends failed with a JSON-RPC error")
            .task_support(TaskSupport::Optional)
            .handler(|_: Args, ctx: Context| async move {
                sleep_or_cancel(&ctx, Duration::from_millis(200)).await?;
                if true {
                    panic!("protocol_error_job: deliberate failure");
                }
                Ok::<_, HandlerError>("unreachable")
            }),
        Tool::new("confirm_delete", json!({"type":"object","properties":{"filename":{"type":"string"}}}))
            .description("Asks the user to confirm, from inside a task")
            .task_support(TaskSupport::Optional)
            .handler(|a: Args, ctx: Context| async move {
                let file = a.get("filename").and_then(Value::as_str).unwrap_or("file.txt").to_string();
                let r = ctx.elicit("confirm", ask_confirm(format!("Delete {file}?"))).await?;
                let yes = r["action"] == "accept" && r.pointer("/content/confirm") == Some(&json!(true));
                Ok::<_, HandlerError>(if yes { format!("Deleted {file}") } else { format!("Kept {file}") })
            }),
        Tool::new("multi_input", json!({"type":"object","properties":{}}))
            .description("Asks two questions at once, from inside a task")
            .task_support(TaskSupport::Optional)
            .handler(|_: Args, ctx: Context| async move {
                let name = json!({"message":"Your name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}});
                let answers = ctx
                    .inputs(vec![
                        ("name".into(), InputRequest::Elicit(name)),
                        ("confirm".into(), InputRequest::Elicit(ask_confirm("Proceed?".into()))),
                    ])
                    .await?;
                let who = answers[0].pointer("/content/name").and_then(Value::as_str).unwrap_or("?").to_string();
                Ok::<_, HandlerError>(format!("Got {who}, confirmed: {}", answers[1]["action"] == "accept"))
            }),
        Tool::new("test_tool_with_task", json!({"type":"object","properties":{}}))
            .description("Asks for a name by MRTR, then becomes a task for the slow part")
            .task_support(TaskSupport::Required)
            .task_after(Duration::from_millis(300))
            .handler(|_: Args, ctx: Context| async move {
                let r = ctx.elicit("user_name", json!({"message":"What is your name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}})).await?;
                let name = r.pointer("/content/name").and_then(Value::as_str).unwrap_or("stranger").to_string();
                sleep_or_cancel(&ctx, Duration::from_millis(1200)).await?;
                Ok::<_, HandlerError>(format!("Hello, {name}! (finished as a task)"))
            }),
    ]
}
