//! With OXMCP_HOT_CODE_LD set, link the extension with that linker script (scripts/hot-code.py
//! writes it from a profile of this same build): the same layout as the Node addon's
//! (bindings-node/build.rs says why). Without it the extension links normally.
fn main() {
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
