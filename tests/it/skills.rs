//! The Skills extension over real HTTP and stdio, both eras: the everything server serves
//! examples/skills (a top-level skill, a nested skill path) and one dynamic skill. Every file
//! read verifies against its manifest entry; hidden skills stay hidden; malformed skills,
//! symlinks and non-UTF-8 SKILL.md files stop the server at start with the file and the rule.

use crate::harness::*;
use base64::Engine;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::time::Duration;

const EXT: &str = "io.modelcontextprotocol/skills";

fn sha(bytes: &[u8]) -> String {
    format!("sha256:{:x}", Sha256::digest(bytes))
}

/// The bytes of a `resources/read` result's one content block.
fn bytes_of(read: &Value) -> Vec<u8> {
    let c = &read["contents"];
    assert_eq!(c.as_array().map(Vec::len), Some(1), "{read}");
    match c[0]["text"].as_str() {
        Some(t) => t.as_bytes().to_vec(),
        None => base64::engine::general_purpose::STANDARD
            .decode(c[0]["blob"].as_str().unwrap())
            .unwrap(),
    }
}

fn uris(list: &Value) -> Vec<String> {
    list["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["uri"].as_str().unwrap().to_string())
        .collect()
}

const ALL: [&str; 3] = [
    "skill://explore-database/SKILL.md",
    "skill://live/clock/SKILL.md",
    "skill://ops/release-notes/SKILL.md",
];

/// Read every file of every static skill in `list` with `read`, checking size and digest.
async fn verify_all<F, Fut>(list: &Value, read: F)
where
    F: Fn(String) -> Fut,
    Fut: std::future::Future<Output = Value>,
{
    let mut files = 0;
    for s in list["skills"].as_array().unwrap() {
        let Some(resources) = s["resources"].as_array() else {
            assert_eq!(s["resources"], "dynamic", "{s}");
            continue;
        };
        assert!(resources.iter().any(|r| r["uri"] == s["uri"]), "{s}");
        for r in resources {
            let got = bytes_of(&read(r["uri"].as_str().unwrap().to_string()).await);
            assert_eq!(r["size"], got.len(), "{r}");
            assert_eq!(r["digest"], sha(&got), "{r}");
            files += 1;
        }
    }
    assert_eq!(files, 5, "every file of examples/skills was read");
}

#[tokio::test]
async fn list_get_and_read_every_file_over_http_in_both_eras() {
    let s = HttpServer::start("everything").await;
    let d = s
        .modern(json!(1), "server/discover", json!({}))
        .await
        .result();
    assert_eq!(
        d["capabilities"]["extensions"][EXT],
        json!({"directoryRead": true})
    );
    let list = s.modern(json!(2), "skills/list", json!({})).await.result();
    assert_eq!(uris(&list), ALL);
    assert_eq!(list["resultType"], "complete");
    assert!(
        list["ttlMs"].is_u64() && list["cacheScope"].is_string(),
        "{list}"
    );
    let e = &list["skills"][0];
    assert_eq!(e["frontmatter"]["name"], "explore-database");
    assert_eq!(
        e["frontmatter"]["metadata"],
        json!({"author": "oxmcp", "version": "1.0"})
    );
    assert_eq!(list["skills"][1]["resources"], "dynamic");
    let s = &s;
    verify_all(&list, |uri| async move {
        s.modern(json!(3), "resources/read", json!({ "uri": uri }))
            .await
            .result()
    })
    .await;

    // skills/get: the same entry; an unknown URI is invalid params.
    let g = s
        .modern(json!(4), "skills/get", json!({"uri": ALL[2]}))
        .await
        .result();
    assert_eq!(g["skill"], list["skills"][2]);
    let r = s
        .modern(
            json!(5),
            "skills/get",
            json!({"uri": "skill://nope/SKILL.md"}),
        )
        .await;
    assert_eq!(r.error_code(), -32602, "{}", r.body);
    assert_eq!(
        r.json()["error"]["message"],
        "Unknown skill URI: skill://nope/SKILL.md"
    );

    // Directories: the root's children, then a sub-directory's, each sorted by URI.
    let dir = s
        .modern(
            json!(6),
            "resources/directory/read",
            json!({"uri": "skill://explore-database"}),
        )
        .await
        .result();
    assert_eq!(
        dir["resources"],
        json!([
            {"uri": "skill://explore-database/SKILL.md", "name": "SKILL.md", "mimeType": "text/markdown",
             "size": list["skills"][0]["resources"][0]["size"]},
            {"uri": "skill://explore-database/references", "name": "references", "mimeType": "inode/directory"},
            {"uri": "skill://explore-database/scripts", "name": "scripts", "mimeType": "inode/directory"},
        ])
    );
    let sub = s
        .modern(
            json!(7),
            "resources/directory/read",
            json!({"uri": "skill://explore-database/references"}),
        )
        .await
        .result();
    assert_eq!(
        sub["resources"][0]["uri"],
        "skill://explore-database/references/queries.md"
    );
    let r = s
        .modern(
            json!(8),
            "resources/directory/read",
            json!({"uri": "skill://explore-database/SKILL.md"}),
        )
        .await;
    assert_eq!(
        r.error_code(),
        -32602,
        "a file is not a directory: {}",
        r.body
    );

    // The dynamic skill's SKILL.md is generated per read, through its template.
    let clock = s
        .modern(
            json!(9),
            "resources/read",
            json!({"uri": "skill://live/clock/SKILL.md"}),
        )
        .await
        .result();
    assert!(
        String::from_utf8(bytes_of(&clock))
            .unwrap()
            .contains("seconds since the Unix epoch"),
        "{clock}"
    );

    // The legacy era: the same entries (no cache hints), the same bytes, and the `_manifest`
    // listing FastMCP's client reads when the extension is not negotiated.
    let l = s.initialize("2025-11-25", json!({})).await;
    let caps = s
        .post(
            &[],
            &json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{
                "protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"0"}}})
            .to_string(),
        )
        .await
        .result();
    assert_eq!(
        caps["capabilities"]["extensions"][EXT],
        json!({"directoryRead": true})
    );
    let legacy = l.call(json!(10), "skills/list", json!({})).await.result();
    assert_eq!(legacy["skills"], list["skills"]);
    assert!(legacy.get("ttlMs").is_none(), "{legacy}");
    let l = &l;
    verify_all(&legacy, |uri| async move {
        l.call(json!(11), "resources/read", json!({ "uri": uri }))
            .await
            .result()
    })
    .await;
    let m = l
        .call(
            json!(12),
            "resources/read",
            json!({"uri": "skill://ops/release-notes/_manifest"}),
        )
        .await
        .result();
    let m: Value = serde_json::from_slice(&bytes_of(&m)).unwrap();
    assert_eq!(m["skill"], "release-notes");
    assert_eq!(m["files"][1]["path"], "template.md");
    assert_eq!(
        m["files"][1]["hash"],
        list["skills"][2]["resources"][1]["digest"]
    );
    let r = l
        .call(
            json!(13),
            "skills/get",
            json!({"uri": "skill://nope/SKILL.md"}),
        )
        .await;
    assert_eq!(r.error_code(), -32602, "{}", r.body);
}

#[tokio::test]
async fn skills_list_is_paginated() {
    let s = HttpServer::start_with("everything", &[("OXMCP_PAGE_SIZE", "1")]).await;
    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..10 {
        let params = match &cursor {
            Some(c) => json!({ "cursor": c }),
            None => json!({}),
        };
        let page = s.modern(json!(1), "skills/list", params).await.result();
        seen.extend(uris(&page));
        match page["nextCursor"].as_str() {
            Some(c) => cursor = Some(c.to_string()),
            None => break,
        }
    }
    assert_eq!(seen, ALL);
    let r = s
        .modern(json!(2), "skills/list", json!({"cursor": "bogus"}))
        .await;
    assert_eq!(r.error_code(), -32602, "{}", r.body);
}

#[tokio::test]
async fn skills_over_stdio_in_both_eras() {
    let mut s = StdioServer::start("everything");
    let req = json!({"jsonrpc":"2.0","id":1,"method":"skills/list",
                     "params": modern_params(json!({}), json!({}))});
    s.send(&req).await;
    let (r, _) = s.recv_response(&json!(1)).await;
    assert_eq!(uris(&r["result"]), ALL);
    let uri = r["result"]["skills"][0]["resources"][1]["uri"].clone();
    let digest = r["result"]["skills"][0]["resources"][1]["digest"].clone();
    s.send(&json!({"jsonrpc":"2.0","id":2,"method":"resources/read",
                   "params": modern_params(json!({"uri": uri}), json!({}))}))
        .await;
    let (r, _) = s.recv_response(&json!(2)).await;
    assert_eq!(sha(&bytes_of(&r["result"])), digest.as_str().unwrap());
    drop(s);

    let mut s = StdioServer::start("everything");
    s.send(
        &json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{
        "protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"0"}}}),
    )
    .await;
    let (r, _) = s.recv_response(&json!(0)).await;
    assert_eq!(
        r["result"]["capabilities"]["extensions"][EXT]["directoryRead"],
        true
    );
    s.send(&json!({"jsonrpc":"2.0","method":"notifications/initialized"}))
        .await;
    s.send(&json!({"jsonrpc":"2.0","id":1,"method":"skills/get","params":{"uri": ALL[0]}}))
        .await;
    let (r, _) = s.recv_response(&json!(1)).await;
    assert_eq!(
        r["result"]["skill"]["frontmatter"]["name"],
        "explore-database"
    );
    assert!(r["result"].get("ttlMs").is_none());
}

#[tokio::test]
async fn hidden_skills_are_answered_like_unknown_ones() {
    let tokens = json!({
        "alice": {"tokens": ["alice-tok"], "resources": ["skill://explore-database/*"]},
        "bob": {"tokens": ["bob-tok"]},
    })
    .to_string();
    let s = HttpServer::start_with("everything", &[("OXMCP_TOKENS", &tokens)]).await;
    let ask = |tok: &'static str, method: &'static str, params: Value| {
        let s = &s;
        async move {
            let mut params = params;
            let (h, body) = modern_request(json!(1), method, &mut params, json!({}));
            let auth = format!("Bearer {tok}");
            let mut h: Vec<(&str, &str)> = h.iter().map(|(k, v)| (*k, v.as_str())).collect();
            h.push(("authorization", &auth));
            s.post(&h, &body).await
        }
    };
    let all = ask("bob-tok", "skills/list", json!({})).await.result();
    assert_eq!(uris(&all), ALL);
    let mine = ask("alice-tok", "skills/list", json!({})).await.result();
    assert_eq!(uris(&mine), [ALL[0]]);
    for (method, params) in [
        ("skills/get", json!({"uri": ALL[2]})),
        ("skills/get", json!({"uri": ALL[1]})),
        ("skills/get", json!({"uri": UNLISTED})),
        (
            "resources/directory/read",
            json!({"uri": "skill://ops/release-notes"}),
        ),
    ] {
        let hidden = ask("alice-tok", method, params.clone()).await;
        let mut unknown = params.clone();
        unknown["uri"] = json!(params["uri"]
            .as_str()
            .unwrap()
            .replace("release-notes", "nope")
            .replace("clock", "nope")
            .replace("handover", "nope"));
        let none = ask("bob-tok", method, unknown.clone()).await;
        assert_eq!(hidden.error_code(), -32602, "{method}: {}", hidden.body);
        assert_eq!(
            hidden.json()["error"]["message"]
                .as_str()
                .unwrap()
                .replace("release-notes", "nope")
                .replace("clock", "nope")
                .replace("handover", "nope"),
            none.json()["error"]["message"],
            "{method}: hidden and unknown answer alike"
        );
    }
    let r = ask(
        "alice-tok",
        "resources/read",
        json!({"uri": "skill://ops/release-notes/template.md"}),
    )
    .await;
    assert_eq!(
        r.json()["error"]["message"],
        "Resource not found",
        "{}",
        r.body
    );
    let res = ask("alice-tok", "resources/list", json!({})).await.result();
    let listed: Vec<&str> = res["resources"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["uri"].as_str())
        .filter(|u| u.starts_with("skill://"))
        .collect();
    assert!(
        !listed.is_empty()
            && listed
                .iter()
                .all(|u| u.starts_with("skill://explore-database/")),
        "{listed:?}"
    );
}

/// Served by every everything-server with `listed: false` (examples/unlisted-skills).
const UNLISTED: &str = "skill://internal/handover/SKILL.md";

/// Every URI `method` lists, page after page.
async fn all_listed(s: &HttpServer, method: &str, key: &str) -> Vec<String> {
    let (mut out, mut cursor) = (Vec::new(), None::<String>);
    for _ in 0..100 {
        let params = cursor.map_or(json!({}), |c| json!({ "cursor": c }));
        let page = s.modern(json!(1), method, params).await.result();
        for r in page[key].as_array().unwrap() {
            let u = r.get("uri").or(r.get("uriTemplate")).unwrap();
            out.push(u.as_str().unwrap().to_string());
        }
        cursor = page["nextCursor"].as_str().map(str::to_string);
        if cursor.is_none() {
            return out;
        }
    }
    panic!("{method} did not end");
}

#[tokio::test]
async fn an_unlisted_skill_is_served_by_its_uri_only() {
    let s = HttpServer::start("everything").await;
    assert_eq!(
        uris(&s.modern(json!(1), "skills/list", json!({})).await.result()),
        ALL
    );
    for (method, key) in [
        ("resources/list", "resources"),
        ("resources/templates/list", "resourceTemplates"),
    ] {
        let all = all_listed(&s, method, key).await;
        assert!(all.iter().any(|u| u.starts_with("skill://")), "{all:?}");
        assert!(
            !all.iter().any(|u| u.starts_with("skill://internal/")),
            "{method}: {all:?}"
        );
    }
    let entry = s
        .modern(json!(2), "skills/get", json!({ "uri": UNLISTED }))
        .await
        .result()["skill"]
        .clone();
    assert_eq!(entry["frontmatter"]["name"], "handover");
    let files = entry["resources"].as_array().unwrap();
    assert_eq!(files.len(), 2, "{entry}");
    for f in files {
        let read = s
            .modern(json!(3), "resources/read", json!({ "uri": f["uri"] }))
            .await
            .result();
        assert_eq!(f["digest"], sha(&bytes_of(&read)), "{f}");
    }
    let dir = s
        .modern(
            json!(4),
            "resources/directory/read",
            json!({"uri": "skill://internal/handover"}),
        )
        .await
        .result();
    let names: Vec<&str> = dir["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["SKILL.md", "checklist.md"]);

    // The initialize era: the same entry by URI, absent from the listing.
    let l = s.initialize("2025-11-25", json!({})).await;
    let legacy = l.call(json!(5), "skills/list", json!({})).await.result();
    assert_eq!(uris(&legacy), ALL);
    let got = l
        .call(json!(6), "skills/get", json!({ "uri": UNLISTED }))
        .await
        .result();
    assert_eq!(got["skill"], entry);
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dest = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &dest);
        } else {
            std::fs::copy(e.path(), dest).unwrap();
        }
    }
}

fn scratch(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("oxmcp-skills-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    copy_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("skills"), &d);
    d
}

async fn template_digest(dir: &Path) -> String {
    let s =
        HttpServer::start_with("everything", &[("OXMCP_SKILLS_DIR", dir.to_str().unwrap())]).await;
    let g = s
        .modern(json!(1), "skills/get", json!({"uri": ALL[2]}))
        .await
        .result();
    g["skill"]["resources"][1]["digest"]
        .as_str()
        .unwrap()
        .to_string()
}

#[tokio::test]
async fn a_changed_file_changes_its_digest() {
    let d = scratch("changed");
    let before = template_digest(&d).await;
    let path = d.join("ops/release-notes/template.md");
    assert_eq!(before, sha(&std::fs::read(&path).unwrap()));
    std::fs::write(&path, b"# <version>\n\nChanged.\n").unwrap();
    let after = template_digest(&d).await;
    assert_ne!(before, after);
    assert_eq!(after, sha(b"# <version>\n\nChanged.\n"));
    let _ = std::fs::remove_dir_all(&d);
}

/// The server refuses to start; its stderr names the file and the rule.
async fn refused(dir: &Path) -> String {
    let out = tokio::time::timeout(
        Duration::from_secs(20),
        tokio::process::Command::new(bin("everything"))
            .args(["--http", "127.0.0.1:0"])
            .env("OXMCP_SKILLS_DIR", dir)
            .stdin(std::process::Stdio::null())
            .output(),
    )
    .await
    .expect("exits")
    .unwrap();
    assert!(!out.status.success());
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[tokio::test]
async fn malformed_skills_symlinks_and_non_utf8_are_refused_at_start() {
    let d = scratch("badname");
    std::fs::write(
        d.join("ops/release-notes/SKILL.md"),
        "---\nname: release_notes\ndescription: x\n---\n",
    )
    .unwrap();
    let e = refused(&d).await;
    assert!(
        e.contains("ops/release-notes/SKILL.md") && e.contains("lowercase"),
        "{e}"
    );

    let d = scratch("symlink");
    std::os::unix::fs::symlink("/etc/passwd", d.join("explore-database/passwd")).unwrap();
    let e = refused(&d).await;
    assert!(
        e.contains("explore-database/passwd") && e.contains("symlink"),
        "{e}"
    );

    let d = scratch("dirlink");
    std::os::unix::fs::symlink("/etc", d.join("ops/etc")).unwrap();
    let e = refused(&d).await;
    assert!(e.contains("ops/etc") && e.contains("symlink"), "{e}");

    let d = scratch("utf8");
    std::fs::write(
        d.join("explore-database/SKILL.md"),
        b"---\nname: explore-database\ndescription: \xff\n---\n",
    )
    .unwrap();
    let e = refused(&d).await;
    assert!(
        e.contains("explore-database/SKILL.md") && e.contains("UTF-8"),
        "{e}"
    );

    let d = scratch("nodesc");
    std::fs::write(
        d.join("explore-database/SKILL.md"),
        "---\nname: explore-database\n---\n",
    )
    .unwrap();
    let e = refused(&d).await;
    assert!(
        e.contains("explore-database/SKILL.md") && e.contains("description"),
        "{e}"
    );
    for t in ["badname", "symlink", "dirlink", "utf8", "nodesc"] {
        let _ = std::fs::remove_dir_all(
            std::env::temp_dir().join(format!("oxmcp-skills-{t}-{}", std::process::id())),
        );
    }
}

#[tokio::test]
async fn the_sqlite_explorer_serves_explore_database() {
    let s = HttpServer::start("sqlite-explorer").await;
    let list = s.modern(json!(1), "skills/list", json!({})).await.result();
    assert_eq!(uris(&list), [ALL[0]]);
    verify_one(&s, &list["skills"][0]).await;
}

async fn verify_one(s: &HttpServer, entry: &Value) {
    for r in entry["resources"].as_array().unwrap() {
        let got = bytes_of(
            &s.modern(json!(2), "resources/read", json!({"uri": r["uri"]}))
                .await
                .result(),
        );
        assert_eq!(r["digest"], sha(&got));
    }
}
