fn main() {
    napi_build::setup();
    hot_code();
}

/// With OXMCP_HOT_CODE=1 on x86_64 Linux (glibc), link with `hot-code.ld`, which places the
/// functions that start-up and the calls run next to each other (`.text.hot`). The kernel maps
/// code in 64 KB windows around each first touch, so spread-out hot code keeps most of the file
/// resident; together it takes a fraction of that (docs/PERFORMANCE.md, "Hot code together"). Opt-in,
/// because it needs a GNU-compatible linker (lld, which Rust uses there by default, or GNU ld):
/// build-native.cjs (by default), scripts/setup.sh, the release scripts and the workflow set it.
/// The script only orders sections, so a stale one costs memory, not correctness;
/// scripts/hot-code.py rewrites it (and bindings-python's, which that build.rs uses the same way).
fn hot_code() {
    println!("cargo:rerun-if-env-changed=OXMCP_HOT_CODE");
    println!("cargo:rerun-if-changed=hot-code.ld");
    let on = std::env::var("OXMCP_HOT_CODE").is_ok_and(|v| v == "1");
    let target = std::env::var("TARGET").unwrap_or_default();
    if on && target == "x86_64-unknown-linux-gnu" {
        let dir = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
        println!("cargo:rustc-link-arg-cdylib=-Wl,-T,{dir}/hot-code.ld");
    }
}
