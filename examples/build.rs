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
}
