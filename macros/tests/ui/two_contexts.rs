#[oxmcp::tool]
async fn twice(a: oxmcp::Context, b: &oxmcp::Context) -> String {
    format!("{} {}", a.method(), b.method())
}

fn main() {}
