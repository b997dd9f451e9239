"""The one base of every error a user can cause and fix.

A command reports a `BookError` as a message and exits 1, without a traceback:
it names the file, line, tab or option at fault and how to fix it. Any other
exception is a bug of the build, and its traceback is shown.
"""
from __future__ import annotations


class BookError(Exception):
    """Something in the sources, the config, the options or the machine that the user can
    fix; its message says what and how."""
