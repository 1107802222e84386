// A method of a `#[server]` block is one of a tool, a prompt or a resource.
struct S;

#[oxmcp::server]
impl S {
    #[tool]
    #[resource(uri = "s://x")]
    fn both(&self) -> String {
        String::new()
    }
}

fn main() {}
