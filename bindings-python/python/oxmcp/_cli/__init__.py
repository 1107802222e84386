"""The ``oxmcp`` command (also ``python -m oxmcp``): run, dev, inspect, call, verify, install.

The verbs are the core's (``oxmcp::cli``): it parses the arguments, runs inspect, call, verify and
install, and prints their output and errors. The Node package's ``npx oxmcp`` is the same shim over
the same core. What stays here is what only Python can do: ``run`` loads the user's module and
serves its server, and ``dev`` restarts ``run`` when a file changes; both take the plan the core
checked. Errors are one line on stderr, ``oxmcp: error: ...``, and a non-zero exit.
"""

from __future__ import annotations

import sys

from ._common import CliError, fail

# How this host starts a server: its own `oxmcp run`, a Python app, a JavaScript app.
_RUN = [sys.executable, "-m", "oxmcp", "run"]


def main(argv: list[str] | None = None) -> None:
    from .._oxmcp import cli_main

    argv = list(sys.argv[1:] if argv is None else argv)
    sys.stdout.flush()
    try:
        code, plan = cli_main(argv, _RUN, _RUN, ["node"])
        if plan is None:
            sys.exit(code)
    except KeyboardInterrupt:  # a Ctrl-C the core stopped on (exit 130) is also raised here
        sys.exit(130)
    try:
        if plan["verb"] == "run":
            from .run import run

            run(plan)
        else:
            from .dev import dev

            sys.exit(dev(plan, _RUN))
    except CliError as e:
        fail(str(e), e.detail)
    except KeyboardInterrupt:
        sys.exit(130)
