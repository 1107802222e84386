//! A bounded randomized run of the fuzz harnesses (fuzz/common.rs) in plain `cargo test`, so
//! CI exercises them without nightly or a fuzzing engine: the seeds, then mutations of them,
//! for a fixed number of inputs and at most a few seconds per harness.

#[path = "../../fuzz/common.rs"]
mod common;

use std::time::{Duration, Instant};

// The count and the seed are printed so that a failing run can be replayed (OXMCP_FUZZ_SEED).
#[allow(clippy::print_stderr)]
fn run(name: &str, harness: fn(&[u8]), budget: usize, time: Duration) {
    let seed: u64 = std::env::var("OXMCP_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x6f_78_6d_63_70);
    let mut m = common::Mutator::new(seed);
    let seeds = common::seeds();
    let started = Instant::now();
    let mut n = 0;
    for s in &seeds {
        harness(s);
        n += 1;
    }
    while n < budget && started.elapsed() < time {
        let base = &seeds[n % seeds.len()];
        let input = m.mutate(base, common::DICT);
        harness(&input);
        n += 1;
    }
    eprintln!("{name}: {n} inputs in {:?}, seed {seed}", started.elapsed());
}

#[test]
fn harnesses_survive_random_inputs() {
    // One test, run in sequence: the harnesses share a handler-run counter.
    run(
        "http_handle",
        common::http_input,
        4000,
        Duration::from_secs(8),
    );
    run(
        "stdio_framer",
        common::stdio_input,
        400,
        Duration::from_secs(8),
    );
    // The URI matcher and the Host/Origin parser, on their own seeds.
    let mut m = common::Mutator::new(0x7572_6974);
    let seeds = common::uri_and_host_seeds();
    for seed in &seeds {
        common::uri_template_input(seed);
        common::authority_input(seed);
    }
    let started = Instant::now();
    for i in 0..20_000 {
        if started.elapsed() > Duration::from_secs(8) {
            break;
        }
        let input = m.mutate(&seeds[i % seeds.len()], common::URI_DICT);
        common::uri_template_input(&input);
        common::authority_input(&input);
    }
    // Deep nesting and a huge line go through both, too.
    let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    common::http_input(&[&[0x20u8][..], deep.as_bytes()].concat());
    common::stdio_input(format!("{deep}\n{}\n", "x".repeat(10_000)).as_bytes());
}
