fn main() {
    napi_build::setup();
    hot_code();
}

/// With OXMCP_HOT_CODE_LD set, link the addon with that linker script: scripts/hot-code.py writes
/// it from a profile of this same build, and it places the functions that start-up and the calls
/// run next to each other (`.text.hot`). The kernel maps code in 64 KB windows around each first
/// touch, so spread-out hot code keeps most of the file resident; together it takes a fraction
/// of that (docs/PERFORMANCE.md, "Hot code together"). Without it the addon links normally. The
/// script only orders sections, for an ELF linker (lld, GNU ld): any other target refuses it.
/// bindings-python/build.rs does the same for the extension.
fn hot_code() {
    println!("cargo:rerun-if-env-changed=OXMCP_HOT_CODE_LD");
    let Some(script) = std::env::var_os("OXMCP_HOT_CODE_LD").filter(|v| !v.is_empty()) else {
        return;
    };
    let script = std::path::PathBuf::from(script);
    assert!(
        script.is_absolute() && script.is_file(),
        "OXMCP_HOT_CODE_LD={}: not the absolute path of a file (scripts/hot-code.py profile writes it)",
        script.display()
    );
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    assert!(
        os == "linux",
        "OXMCP_HOT_CODE_LD: a linker script for an ELF linker; target OS {os:?}"
    );
    println!("cargo:rerun-if-changed={}", script.display());
    println!("cargo:rustc-link-arg-cdylib=-Wl,-T,{}", script.display());
}
