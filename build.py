#!/usr/bin/env python3
"""Build the book: `python3 build.py [COMMAND] [OPTIONS]` (see README.md, `--help`).

Thin on purpose: it moves into the tools environment (created on first run)
and hands over to tabbook.cli.main, where the stages are wired together.
`build.py wheelhouse` runs here, without the tools environment: it is what a
machine without Internet will install that environment from.
"""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))

from tabbook.bootstrap.environments import run_in_tools_env  # noqa: E402  (standard library only)

if __name__ == "__main__":
    if sys.argv[1:2] == ["wheelhouse"]:
        from tabbook.bootstrap.wheelhouse import main as wheelhouse
        sys.exit(wheelhouse(sys.argv[2:], ROOT))
    run_in_tools_env(ROOT, sys.argv[1:])
    from tabbook.cli.unchanged import run_unless_unchanged
    sys.exit(run_unless_unchanged(sys.argv[1:], ROOT))
