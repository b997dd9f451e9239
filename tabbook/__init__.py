"""tabbook: builds a d2lbook-format book into per-framework notebooks, a library and HTML.

The package is split into a data model (`model`) and stages that consume it:
`config` (read config.ini), `parse` (Markdown -> model), `pycode` (Python-level
operations shared by the stages), `check` (lint the model), `split` (model ->
per-framework notebooks). `cli` wires them into the command line of build.py.
"""
