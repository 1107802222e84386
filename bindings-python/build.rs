//! With OXMCP_HOT_CODE=1 on x86_64 Linux (glibc), link the extension with `hot-code.ld`: the same
//! layout as the Node addon's (bindings-node/build.rs says why; scripts/hot-code.py writes both
//! scripts). scripts/setup.sh, the release scripts and the workflow set it.
fn main() {
    println!("cargo:rerun-if-env-changed=OXMCP_HOT_CODE");
    println!("cargo:rerun-if-changed=hot-code.ld");
    let wanted = std::env::var("OXMCP_HOT_CODE").as_deref() == Ok("1");
    if wanted && std::env::var("TARGET").as_deref() == Ok("x86_64-unknown-linux-gnu") {
        let dir = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
        println!("cargo:rustc-link-arg-cdylib=-Wl,-T,{dir}/hot-code.ld");
    }
}
