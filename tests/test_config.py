"""config.ini is validated on load: every mistake names its line."""
from __future__ import annotations

from dataclasses import dataclass

import pytest

from conftest import CONFIG, REPO
from tabbook.core.config import ConfigError, load_config
from tabbook.core.config import BuildConfig, ExecuteConfig, ProjectConfig
from tabbook.core.config_options import SECTIONS, Section, option


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
     "config.ini:7: unknown section [biuld] — did you mean [build]? known sections: [project], [build], [execute], "
     "[library], [library-*], [launch], [launch-*] (and d2lbook's [colab], [deploy], [html], "
     "[pdf], [sagemaker], [slides], [translation])"),
    (("lang = fr", "lang = fr\nlanguage = fr"),
     "config.ini:6: unknown key 'language' in [project] — did you mean 'lang'? known keys: author, copyright, lang, "
     "name, release, title"),
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
     "config.ini:18: [library-mxnet] lacks the key 'lib_file' — add it (give a .py path "
     "such as d2l/torch.py)"),
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


def test_every_mistake_is_reported_in_one_run(tmp_path):
    text = CONFIG.replace("release = 1.0.0", "release = one").replace(
        "lang = fr", "lang = fr\nlanguage = fr").replace(
        "[launch]", "[execute]\ntimeout = -3\n\n[launch]").replace(
        "github_repo = owner/book", "github_repo = book")
    with pytest.raises(ConfigError) as error:
        load(tmp_path, text)
    assert str(error.value).split("\n") == [
        "config.ini:4: [project] release = 'one' is not valid — use a version such as 1.0.0",
        "config.ini:6: unknown key 'language' in [project] — did you mean 'lang'? known keys: "
        "author, copyright, lang, name, release, title",
        "config.ini:26: [execute] timeout = '-3' is not valid — write a whole number >= 1",
        "config.ini:29: [launch] github_repo = 'book' is not valid — write it as owner/name",
    ]


def test_a_mistake_is_not_reported_again_through_its_consequences(tmp_path):
    # An invalid tab list: the [library-<tab>] sections are not reported as unknown tabs;
    # a malformed header: the keys under it are not reported as keys outside a section.
    text = CONFIG.replace("tabs = pytorch, mxnet, tensorflow", "tabs = pytorch, all").replace(
        "[library]\n", "[library\n")
    with pytest.raises(ConfigError) as error:
        load(tmp_path, text)
    assert str(error.value).split("\n") == [
        "config.ini:8: [build] tabs: 'all' is not a valid tab name — use lowercase letters, "
        "digits and '_' (not 'all')",
        "config.ini:12: malformed section header '[library' — write it as [name]",
    ]


def test_defaults_and_d2lbook_keys_come_from_the_declarations(tmp_path):
    minimal = ("\ufeff[project]\nname = b\ntitle = B\nrelease = 1.0\ncopyright = 2026\n\n"
               "[build]\ntabs = pytorch\nsphinx_configs = a = 1\n    b = 2\n\n"
               "[html]\nheader_links = GitHub, https://github.com/o/r, fab fa-github\n")
    config = load(tmp_path, minimal)   # a byte-order mark, as Windows editors write it
    # An option's default is its dataclass field's default.
    assert config.execute.timeout == ExecuteConfig.timeout == 600
    assert config.execute.jobs == ExecuteConfig.jobs == 0
    assert config.project.lang == ProjectConfig.lang == ""
    assert config.build.notebooks == BuildConfig.notebooks == ("**/*.md",)
    assert config.build.strict is BuildConfig.strict is False
    assert config.launch_settings is None and config.library.tabs == {}


def test_every_declared_option_has_a_reader():
    keys = {name: set(spec.keys) for name, spec in SECTIONS.items()}
    assert keys["build"] >= {"tabs", "warning_is_error", "resources"}   # INI keys, not fields
    assert keys["html"] == {"header_links", "favicon", "html_logo", "include_css"}
    assert keys["pdf"] == set()


def test_an_option_of_a_type_config_ini_cannot_write_is_refused():
    @dataclass(frozen=True)
    class Odd:
        ratio: float = option(0.5)

    with pytest.raises(TypeError, match=r"Odd.ratio: config.ini has no way to write a "
                                        r"<class 'float'>"):
        Section("odd", Odd).keys


def test_a_missing_section_is_named(tmp_path):
    with pytest.raises(ConfigError) as error:
        load(tmp_path, "[project]\nname = b\ntitle = B\nrelease = 1.0\n")
    assert str(error.value) == "config.ini:1: no [build] section — add it, with tabs"


def test_an_empty_tab_list_is_reported_once(tmp_path):
    with pytest.raises(ConfigError) as error:
        load(tmp_path, CONFIG.replace("tabs = pytorch, mxnet, tensorflow", "tabs ="))
    assert str(error.value) == "config.ini:8: [build] tabs is empty — list at least one framework"


def test_d2lbook_defaults_stand_for_a_missing_project_section(tmp_path):
    # d2lbook's config_default.ini: a book may write no [project], and no [library].
    config = load(tmp_path, "[build]\ntabs = pytorch\n")
    assert (config.project.name, config.project.title, config.project.release) == \
        ("d2lbook", "", "0.0.1")
    assert config.library.tabs == {} and config.library.version_file == ""
    assert load(tmp_path, "[project]\ntitle =\n\n[build]\ntabs = pytorch\n").project.title == ""


def test_a_missing_tab_list_says_what_to_write(tmp_path):
    with pytest.raises(ConfigError) as error:
        load(tmp_path, "[project]\nname = b\n\n[build]\nsource_dir = .\n")
    assert str(error.value) == (
        "config.ini:4: [build] lacks the key 'tabs' — add it (the frameworks the code runs "
        "with, the first one the default, e.g. tabs = pytorch; for a book without tabs, the "
        "one it imports)")
