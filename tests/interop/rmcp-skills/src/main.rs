//! `rmcp-skills-interop [--era legacy|modern] -- SERVER [ARGS...]`
//!
//! Spawns SERVER over stdio with rmcp's child-process transport and drives the Skills extension
//! with rmcp's own client: `list_all_skills`, `get_skill` on each SKILL.md URI, and a
//! `resources/read` of every file in each manifest, checked with `SkillResource::verify` (size and
//! `sha256:` digest). Prints one JSON summary line on stdout; exits 1 on any mismatch or error.

use std::process::ExitCode;

use base64::Engine as _;
use rmcp::model::{
    ClientConfig, GetSkillRequestParams, ProtocolVersion, ReadResourceRequestParams,
    ResourceContents, SkillResources,
};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt as _};
use rmcp::transport::TokioChildProcess;
use rmcp::ClientHandler;
use serde_json::{json, Value};
use tokio::process::Command;

#[derive(Clone)]
struct Client(ProtocolVersion);

impl ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        let mut info = ClientConfig::default();
        info.protocol_version = self.0.clone();
        info
    }
}

fn bytes_of(contents: &[ResourceContents], uri: &str) -> Result<Vec<u8>, String> {
    let [one] = contents else {
        return Err(format!("{uri}: {} contents, expected one", contents.len()));
    };
    match one {
        ResourceContents::TextResourceContents { text, .. } => Ok(text.clone().into_bytes()),
        ResourceContents::BlobResourceContents { blob, .. } => {
            base64::engine::general_purpose::STANDARD
                .decode(blob)
                .map_err(|e| format!("{uri}: bad base64: {e}"))
        }
        other => Err(format!("{uri}: unexpected contents {other:?}")),
    }
}

async fn run(modern: bool, server: &[String]) -> Result<Value, String> {
    let mut cmd = Command::new(&server[0]);
    cmd.args(&server[1..]);
    let transport = TokioChildProcess::new(cmd).map_err(|e| format!("spawn: {e}"))?;
    let (version, lifecycle) = if modern {
        let v = ProtocolVersion::V_2026_07_28;
        (
            v.clone(),
            ClientLifecycleMode::Discover {
                preferred_versions: vec![v],
            },
        )
    } else {
        (
            ProtocolVersion::V_2025_11_25,
            ClientLifecycleMode::Initialize,
        )
    };
    let client = Client(version)
        .serve_with_lifecycle(transport, lifecycle)
        .await
        .map_err(|e| format!("connect: {e}"))?;
    let info = client.peer_info().ok_or("no server info")?;
    let protocol = info.protocol_version.to_string();
    let directory_read = info.capabilities.supports_directory_read();

    let skills = client
        .list_all_skills()
        .await
        .map_err(|e| format!("skills/list: {e}"))?;
    let mut summary = Vec::new();
    let mut files = 0usize;
    for listed in &skills {
        let got = client
            .get_skill(GetSkillRequestParams::new(listed.uri.clone()))
            .await
            .map_err(|e| format!("skills/get {}: {e}", listed.uri))?
            .skill;
        if got != *listed {
            return Err(format!(
                "skills/get {} differs from skills/list: {got:?}",
                listed.uri
            ));
        }
        got.validate().map_err(|e| format!("{}: {e}", got.uri))?;
        let entry = match &got.resources {
            SkillResources::Dynamic => {
                // No manifest to check; SKILL.md must still be readable.
                let read = client
                    .read_resource(ReadResourceRequestParams::new(got.uri.clone()))
                    .await
                    .map_err(|e| format!("resources/read {}: {e}", got.uri))?;
                bytes_of(&read.contents, &got.uri)?;
                json!({"name": got.name(), "uri": got.uri, "dynamic": true})
            }
            SkillResources::Files(manifest) => {
                if !manifest.iter().any(|r| r.uri == got.uri) {
                    return Err(format!("{}: the manifest does not list SKILL.md", got.uri));
                }
                let mut sizes = serde_json::Map::new();
                for r in manifest {
                    let read = client
                        .read_resource(ReadResourceRequestParams::new(r.uri.clone()))
                        .await
                        .map_err(|e| format!("resources/read {}: {e}", r.uri))?;
                    let bytes = bytes_of(&read.contents, &r.uri)?;
                    r.verify(&bytes).map_err(|e| e.to_string())?;
                    sizes.insert(r.uri.clone(), json!(r.size));
                    files += 1;
                }
                json!({"name": got.name(), "uri": got.uri, "files": sizes})
            }
            other => return Err(format!("{}: unexpected resources {other:?}", got.uri)),
        };
        summary.push(entry);
    }
    client.cancel().await.map_err(|e| format!("close: {e}"))?;
    Ok(
        json!({"protocol": protocol, "directoryRead": directory_read, "skills": summary,
              "files": files, "ok": true}),
    )
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (era, rest) = match args.as_slice() {
        [flag, era, rest @ ..] if flag == "--era" => (era.as_str(), rest),
        rest => ("modern", rest),
    };
    let server = match rest {
        [dash, server @ ..] if dash == "--" && !server.is_empty() => server,
        _ => {
            eprintln!("usage: rmcp-skills-interop [--era legacy|modern] -- SERVER [ARGS...]");
            return ExitCode::from(2);
        }
    };
    let modern = match era {
        "modern" => true,
        "legacy" => false,
        other => {
            eprintln!("unknown era {other:?}");
            return ExitCode::from(2);
        }
    };
    match run(modern, server).await {
        Ok(summary) => {
            println!("{summary}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            println!("{}", json!({"ok": false, "error": e}));
            eprintln!("rmcp-skills-interop: {e}");
            ExitCode::FAILURE
        }
    }
}
