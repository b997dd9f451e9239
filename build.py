#!/usr/bin/env python3
"""Build the book: `python3 build.py [COMMAND] [OPTIONS]` (see README.md, `--help`).

Thin on purpose: it moves into the tools environment (created on first run)
and hands over to tabbook.cli.main, where the stages are wired together.
"""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))

from tabbook.bootstrap.environments import run_in_tools_env  # noqa: E402  (standard library only)

if __name__ == "__main__":
    run_in_tools_env(ROOT, sys.argv[1:])
    from tabbook.cli.main import main
    sys.exit(main(sys.argv[1:], ROOT))
