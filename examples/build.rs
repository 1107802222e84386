//! Link flags for the example servers (binaries only; the library and the bindings are unaffected).

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if os == "linux" && env == "gnu" {
        // Pack the ~21,000 relative relocations of a position-independent executable (one per
        // vtable slot, string table pointer, ...) as DT_RELR bitmaps instead of 24-byte RELA entries:
        // the dynamic loader reads ~5 KB instead of ~450 KB at every start, and the file is that
        // much smaller. Still PIE, so ASLR is unchanged. glibc >= 2.36 has the loader support;
        // GNU ld >= 2.38 uses it only when the glibc it links against has it, and older linkers
        // ignore the flag with a warning.
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
    hot_code(&os);
}

/// With OXMCP_HOT_CODE_LD set, link the binaries with that linker script: `scripts/hot-code.py
/// profile rust` writes it from a profile of this same build, and it puts the functions that
/// start-up and the first calls run next to each other (`.text.hot`), as the bindings' release
/// builds do (bindings-node/build.rs says why; docs/PERFORMANCE.md, "Hot code together"). The
/// bench server's start-up runs about 1 MB of its 7 MB of code; spread out, the kernel's 64 KB
/// fault-around windows keep 4 MB of it resident. Without it the binaries link normally.
fn hot_code(os: &str) {
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
    assert!(
        os == "linux",
        "OXMCP_HOT_CODE_LD: a linker script for an ELF linker; target OS {os:?}"
    );
    println!("cargo:rerun-if-changed={}", script.display());
    println!("cargo:rustc-link-arg-bins=-Wl,-T,{}", script.display());
}
