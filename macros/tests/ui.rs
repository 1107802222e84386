//! Misuses of the attributes stop the build with an error that names the parameter and the
//! problem (`TRYBUILD=overwrite cargo test -p oxmcp-macros --test ui` rewrites the `.stderr`).

#[test]
fn compile_errors() {
    trybuild::TestCases::new().compile_fail("tests/ui/*.rs");
}
