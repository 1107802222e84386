#[oxmcp::prompt]
fn plan(steps: u32) -> String {
    format!("{steps}")
}

fn main() {}
