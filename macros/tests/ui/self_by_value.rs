struct State;

#[oxmcp::server]
impl State {
    #[tool]
    fn take(self, x: i64) -> i64 {
        x
    }
}

fn main() {}
