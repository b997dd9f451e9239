"""tabbook: builds a d2lbook-format book into per-framework notebooks, their executed
outputs, a library per framework, an HTML site and PDFs.

The package is made of subpackages, layered from the bottom up (CONTRIBUTING.md maps
every module):

- `bootstrap`: what the build stands on: the user errors (`errors`), virtual
  environments, the wheelhouse, the stamps of the outputs;
- `core`: the data model (`model`), config.ini read and validated (`config`,
  `config_options`), the readers' languages and their catalogues, the framework registry,
  the output layout (`layout`, the only place that names ``_build``) and atomic writes;
- `features`: the source format's features (`inline_values`: the ``:eval:`` inline
  values; `citations`: citations and reference lists, with the BibTeX reader
  `bibliography`), each in one module, and the extension points of the stages they plug
  into (`extension`, `registry`);
- `source`: Markdown sources -> model (`parse`, `sections`, `roles`), the Python of code
  cells (`pycode`, `branches`, `magics`, `saving`), LaTeX, numbering, and the check stage
  (`check`);
- `notebooks`: model -> per-framework notebooks (`split`), the d2l library (`library`),
  the features' extension points on a tab's notebook (`features`);
- `execution`: the eval stage: its plan, the kernels that run the notebooks, the cache,
  the frozen outputs, the report;
- `output`: what readers get: the HTML site (`render`, `markup`), the launch notebooks,
  the PDFs, and the live preview (`serve`);
- `cli`: the command line of build.py: its options, the chaining of the stages (`main`)
  and all that is printed (`console`).

A module imports from its own layer and those below it only (tests/test_architecture.py
checks it), and `cli` alone chains the stages.
"""
