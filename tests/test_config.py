"""config.ini is validated on load: every mistake names its line."""
from __future__ import annotations

import pytest

from conftest import CONFIG, REPO
from tabbook.core.config import ConfigError, load_config


def load(tmp_path, text: str):
    (tmp_path / "config.ini").write_text(text, encoding="utf-8")
    return load_config(tmp_path)


def test_the_book_config_loads_typed():
    config = load_config(REPO)
    assert config.build.tabs == ("pytorch", "mxnet", "tensorflow")
    assert config.build.default_tab == "pytorch"
    assert config.library.lib_files == {"pytorch": "d2l/torch.py", "mxnet": "d2l/mxnet.py",
                                        "tensorflow": "d2l/tensorflow.py"}
    assert config.project.lang == "fr"
    assert config.execute.timeout > 0


def test_defaults_and_continuation_lines(tmp_path):
    text = CONFIG.replace("tabs = pytorch, mxnet, tensorflow",
                          "tabs = pytorch,\n    mxnet\n    tensorflow\nexclusions = chapters/draft/*")
    config = load(tmp_path, text)
    assert config.build.tabs == ("pytorch", "mxnet", "tensorflow")
    assert config.build.exclusions == ("chapters/draft/*",)
    assert config.build.notebooks == ("**/*.md",) and config.build.source_dir == "chapters"
    assert config.execute.jobs == 0 and config.launch.branch == "main"


@pytest.mark.parametrize("change, message", [
    (("[build]", "[biuld]"),
     "config.ini:7: unknown section [biuld] — known sections: [project], [build], [execute], "
     "[library], [library-*], [launch], [launch-*] (and d2lbook's [colab], [deploy], [html], "
     "[pdf], [sagemaker], [slides], [translation])"),
    (("lang = fr", "lang = fr\nlanguage = fr"),
     "config.ini:6: unknown key 'language' in [project] — known keys: author, lang, name, "
     "release, title"),
    (("tabs = pytorch, mxnet, tensorflow", "tabs = pytorch, all"),
     "config.ini:8: [build] tabs: 'all' is not a valid tab name — use lowercase letters, "
     "digits and '_' (not 'all')"),
    (("tabs = pytorch, mxnet, tensorflow", "tabs = pytorch, mxnet, pytorch"),
     "config.ini:8: [build] tabs: tab 'pytorch' is listed twice — list each tab once"),
    (("release = 1.0.0", "release = one"),
     "config.ini:4: [project] release = 'one' is not valid — use a version such as 1.0.0"),
    (("[launch]", "[execute]\ntimeout = -3\n\n[launch]"),
     "config.ini:25: [execute] timeout = '-3' is not valid — write a whole number >= 1"),
    (("[library-mxnet]", "[library-jax]"),
     "config.ini:18: section [library-jax] names a tab that is not in [build] tabs "
     "(pytorch, mxnet, tensorflow) — fix the name"),
    (("github_repo = owner/book", "github_repo = book"),
     "config.ini:25: [launch] github_repo = 'book' is not valid — write it as owner/name"),
    (("lib_file = d2l/mxnet.py", ""),
     "config.ini:18: [library-mxnet] lacks the key 'lib_file' — add it"),
    (("lang = fr", "lang = fr\nlang = en"),
     "config.ini:6: key 'lang' appears twice in [project] — keep one"),
    (("[project]", "title_before = x\n[project]"),
     "config.ini:1: key 'title_before' before any [section] — put it under a section"),
])
def test_mistakes_name_their_line(tmp_path, change, message):
    with pytest.raises(ConfigError) as error:
        load(tmp_path, CONFIG.replace(*change, 1))
    assert str(error.value) == message


def test_missing_file(tmp_path):
    with pytest.raises(ConfigError, match="config.ini: not found"):
        load_config(tmp_path)
