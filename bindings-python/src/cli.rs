//! The `oxmcp` command for Python: argv and the host's launchers in, the core's outcome out.

use crate::convert::to_py;
use oxmcp::cli::{self, Launchers, Outcome};
use pyo3::prelude::*;

/// Run the command (`oxmcp.cli` core): `(exit_code, None)` when the verb ran, or `(0, plan)` for
/// `run`/`dev`, which the host serves (loading the user's module is Python's).
#[pyfunction]
pub(crate) fn cli_main<'py>(
    py: Python<'py>,
    argv: Vec<String>,
    run: Vec<String>,
    python: Vec<String>,
    node: Vec<String>,
) -> PyResult<(i32, Option<Bound<'py, PyAny>>)> {
    let launchers = Launchers::new(run, python, node);
    // The verbs block on a child process or the network: without the GIL.
    match py.detach(|| cli::main(argv, &launchers)) {
        Outcome::Exit(code) => Ok((code, None)),
        Outcome::Serve(plan) => Ok((0, Some(to_py(py, &plan)?))),
        _ => Ok((1, None)),
    }
}
