//! The `oxmcp` command for Node: argv and the host's launchers in, the core's outcome out.

use napi_derive::napi;
use oxmcp::cli::{self, Launchers, Outcome};

/// What `cliMain` answers: an exit code, or (for `run`/`dev`) the plan the host serves.
#[napi(object)]
pub struct NativeCliOutcome {
    pub code: i32,
    pub plan: Option<serde_json::Value>,
}

/// Run the command (the core's `oxmcp::cli`). It blocks the JS thread until the verb is done: the
/// command does nothing else meanwhile, and `run`/`dev` come back at once with their plan.
#[napi]
pub fn cli_main(
    argv: Vec<String>,
    run: Vec<String>,
    python: Vec<String>,
    node: Vec<String>,
) -> NativeCliOutcome {
    let launchers = Launchers::new(run, python, node);
    match cli::main(argv, &launchers) {
        Outcome::Exit(code) => NativeCliOutcome { code, plan: None },
        Outcome::Serve(plan) => NativeCliOutcome {
            code: 0,
            plan: Some(plan),
        },
        _ => NativeCliOutcome {
            code: 1,
            plan: None,
        },
    }
}
