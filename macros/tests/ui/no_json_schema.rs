#[derive(serde::Deserialize)]
struct Opaque {
    n: i64,
}

#[oxmcp::tool]
fn count(items: Opaque) -> i64 {
    items.n
}

fn main() {}
