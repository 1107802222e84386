// A tool's arguments are checked by its schema: `complete` belongs to prompts and templates.
#[oxmcp::tool]
fn pick(#[param(complete = ["a", "b"])] choice: String) -> String {
    choice
}

fn main() {}
