from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

try:
    import oxmcp  # noqa: F401  (installed with `pip install .` or `maturin develop`)
except ImportError:  # a plain checkout: the pure-Python layer still imports
    sys.path.insert(0, str(ROOT / "bindings-python" / "python"))
