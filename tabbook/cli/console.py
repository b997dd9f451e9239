"""What a command prints: progress lines, the eval summary, problems, the final lines.

The stages return data; the console alone turns it into text, progress and
results on stdout, problems on stderr.
"""
from __future__ import annotations

import io
import sys
import time
from pathlib import Path
from collections.abc import Sequence
from typing import TYPE_CHECKING, TextIO

from ..core.layout import Layout
from ..core.model import Problem, Section
from ..execution.provenance import frozen_origin
from ..execution.report import FrameworkInfo, Report, ReportLine, Verdict, summary_table
from ..execution.tasks import Event, Execution, Finished, Leftovers, Running, Started, Status

if TYPE_CHECKING:   # stages' results named in signatures only: `check` loads no stage
    from ..execution.evaluate import EvalPlan, EvalResult, ShardCut
    from ..execution.frozen import FreezeResult
    from ..execution.gather import GatherResult
    from ..execution.kernels import Gpu
    from ..features.extension import Feature
    from ..notebooks.split import SplitResult
    from ..output.launch import LaunchResult
    from ..output.pdf import PdfResult
    from ..output.render import RenderResult
    from ..output.slides import SlidesResult
    from ..output.serve import Rebuilt

RUNNING_EVERY = 30.0
"""Seconds between two "running:" lines when the output is not a terminal."""
CLEAR_LINE = "\r\x1b[K"


def plural(count: int, word: str) -> str:
    return f"{count} {word}{'s' if count != 1 else ''}"


class Console:
    def __init__(self, out: TextIO | None = None, err: TextIO | None = None):
        self.out = out or sys.stdout
        self.err = err or sys.stderr
        self.recorded: list[str] | None = None
        """What `warn` printed, when recording (a rebuild of the preview)."""
        self._last_running = time.monotonic()

    def say(self, line: str) -> None:
        print(line, file=self.out, flush=True)

    def warn(self, line: str) -> None:
        print(line, file=self.err, flush=True)
        if self.recorded is not None:
            self.recorded.append(line)

    def recording(self, progress: bool) -> Console:
        """A console for one build of the preview: it prints problems here and records
        them (the open pages show them); progress only if `progress`."""
        made = Console(self.out if progress else io.StringIO(), self.err)
        made.recorded = []
        return made

    @property
    def live(self) -> bool:
        """A terminal: progress may rewrite its line."""
        return self.out.isatty()

    # -- every command ----------------------------------------------------------
    def error(self, message: object) -> None:
        self.warn(f"error: {message}")

    def problems(self, problems: list[Problem], strict: bool = True) -> None:
        """The problems; say the build stops if any is an error (every one, if strict)."""
        for problem in problems:
            self.warn(str(problem))
        warnings = sum(p.warning for p in problems)
        stopping = len(problems) if strict else len(problems) - warnings
        if stopping:
            self.warn(f"check: {plural(stopping, 'problem')} found"
                      f"{' (strict: warnings are errors)' if strict and warnings else ''}; "
                      "nothing was built")
        elif warnings:
            self.warn(f"check: {plural(warnings, 'warning')} (what d2lbook tolerates; "
                      "--strict makes them errors)")

    def feature_findings(self, feature: Feature, problems: list[Problem],
                         notes: Sequence[Problem], strict: bool, report: str) -> None:
        """What a feature's roles cannot show, counted in its words; what it notes."""
        self._eval_problems(problems, strict, *feature.counted)
        if notes:
            what, about, why = feature.noted
            self.say(f"eval: {plural(len(notes), what)} {about} (listed in {report}): {why}")

    def not_judged(self, claims: Sequence[Problem], report: str) -> None:
        """The claims the frozen runs shown predate: counted, listed in the report."""
        if claims:
            self.warn(f"eval: {plural(len(claims), 'claim')} not judged: the frozen GPU runs "
                      f"shown predate them (listed in {report}; the next `build.py eval "
                      "--freeze` on a GPU judges them)")

    def long_outputs(self, problems: list[Problem], strict: bool) -> None:
        """The outputs too long to be published whole, at their cell's .md line."""
        self._eval_problems(problems, strict, "output", "too long to be published whole",
                            "the pages and launch notebooks show them cut")

    def _eval_problems(self, problems: list[Problem], strict: bool, thing: str, what: str,
                       lenient: str) -> None:
        """Each problem, then their count: an error when strict, else what the pages do."""
        for problem in problems:
            self.warn(str(problem))
        if problems:
            self.warn(f"eval: {plural(len(problems), thing)} {what}"
                      + (" (strict: an error; the build stops)" if strict else f" ({lenient})"))

    def waiting_for_lock(self) -> None:
        self.say("waiting for another build of this book to finish...")

    def checked(self, sections: int, seconds: float) -> None:
        self.say(f"check: {sections} sections, no problem stops the build ({seconds:.2f} s)")

    def copied(self, stage: str, count: int, what: str, target: Path) -> None:
        self.say(f"{stage}: {count} {what} copied to {target}")

    # -- lib --------------------------------------------------------------------
    def libraries_written(self, changed: list[Path], root: Path) -> None:
        for path in changed:
            self.say(f"lib: wrote {path.relative_to(root).as_posix()}")
        self.say(f"lib: {plural(len(changed), 'file')} changed"
                 + (" (commit them with the sections)" if changed else ""))

    def stale_libraries(self, stale: list[str]) -> None:
        for message in stale:
            self.warn(f"lib: {message}")
        if stale:
            self.warn("lib: run `python3 build.py lib` and commit the result")
        else:
            self.say("lib: d2l files are up to date")

    def library_tag(self, stale: list[str], tag: str) -> None:
        """The tag alone on stdout (the publish workflow reads it), or why there is none."""
        self.stale_libraries(stale) if stale else self.say(tag)

    # -- notebooks --------------------------------------------------------------
    def notebook_progress(self, sections: int):
        width = len(str(sections))

        def progress(number: int, total: int, section: Section, made: list[str],
                     missing: list[str]) -> None:
            line = f"[{number:>{width}}/{total}] {section.name}: {', '.join(made) or '-'}"
            if missing:
                line += (f"  (no {', '.join(missing)} notebook: the section has only "
                         f"{', '.join(section.tabs)})")
            self.say(line)
        return progress

    def notebooks_written(self, result: SplitResult, folder: str, seconds: float) -> None:
        made = len(result.written) + len(result.unchanged)
        self.say(f"notebooks: {made} in {folder} ({len(result.written)} written, "
                 f"{len(result.unchanged)} unchanged, {len(result.removed)} stale removed), "
                 f"{len(result.missing_tabs)} section/tab pairs without a notebook, "
                 f"{seconds:.2f} s")

    # -- eval -------------------------------------------------------------------
    def not_executed(self, forced: bool | None = None) -> None:
        """A book with ``eval_notebook = False``; `forced`: said to `eval` (True: --force)."""
        line = "eval: eval_notebook = False in config.ini: notebooks are not executed"
        if forced is None:
            self.say(line)
        elif forced:
            self.say("eval: eval_notebook = False in config.ini, but --force: the notebooks "
                     "are executed anyway (the site still shows them unexecuted, as "
                     "config.ini asks)")
        else:
            self.say(f"{line} (the book asks for it) — set eval_notebook = True to execute "
                     "them, or run `build.py eval --force` to execute them once anyway")

    def devices(self, gpus: list[Gpu]) -> None:
        if gpus:
            self.say("devices: " + "; ".join(
                f"GPU {g.index} {g.name} ({g.memory_mib} MiB, driver {g.driver}, CUDA {g.cuda})"
                for g in gpus))
        else:
            self.say("devices: no GPU visible, every notebook runs on the CPU")

    def fewer_gpus(self, sections: list[Section], gpus: int) -> None:
        for section in sections:
            self.say(f"note: {section.name} declares #gpus({section.gpus}) and gets the "
                     f"{gpus} GPU(s) there are")

    def frameworks(self, infos: dict[str, FrameworkInfo]) -> None:
        """What each framework sees of the GPUs (asked only on a machine with GPUs)."""
        for tab, info in infos.items():
            if info.gpus_seen is not None:
                self.say(f"{tab} {info.version}: sees {info.gpus_seen} GPU(s)"
                         + (f" — {info.problem}" if info.problem else ""))

    def shard(self, cut: ShardCut) -> None:
        self.say(f"eval: shard {cut.shard}: {cut.chosen} of {cut.total} notebooks; estimated "
                 "seconds per shard (from frozen/): "
                 + ", ".join(f"{seconds:.0f}" for seconds in cut.loads))

    def eval_plan(self, plan: EvalPlan) -> None:
        """What eval found and will do, before any kernel starts."""
        self.devices(list(plan.gpus))
        self.fewer_gpus(list(plan.fewer_gpus), len(plan.gpus))
        if plan.cut:
            self.shard(plan.cut)
        self.frameworks(plan.frameworks)
        skipped = plan.count(Status.SKIPPED)
        self.say(f"eval: {len(plan.planned)} notebooks, {plan.count(Status.FROZEN)} frozen, "
                 f"{plan.count(Status.CACHED)} cached, {plan.count(Status.NO_CODE)} without "
                 f"code, {len(plan.queue)} to run with up to {plan.kernels} kernels"
                 + (f", {skipped} skipped" if skipped else ""))
        for planned in plan.stale:
            self.warn(f"note: {planned.task.label}: the frozen result "
                      f"({frozen_origin(planned.frozen.metadata())}) is out of date (code, d2l, "
                      "the framework's major version, or an expression its recorded values "
                      "cannot answer): it runs here instead; "
                      "refresh frozen/ with `build.py eval --freeze` on a GPU machine (the GPU "
                      "job)")

    def execution_event(self, event: Event) -> None:
        """The executor's progress: a live line on a terminal, plain lines otherwise."""
        prefix = CLEAR_LINE if self.live else ""
        if isinstance(event, Started):
            self.say(f"{prefix}start   {event.task.label}"
                     + (f" on GPU {','.join(map(str, event.gpus))}" if event.gpus else ""))
        elif isinstance(event, Finished):
            self._finished(event.execution, prefix)
        elif isinstance(event, Running):
            self._running(event)
        elif isinstance(event, Leftovers):
            self._leftovers(event, prefix)

    def _finished(self, execution: Execution, prefix: str) -> None:
        label = execution.task.label
        if execution.status is Status.RAN:
            self.say(f"{prefix}done    {label} in {execution.seconds:.1f} s")
        elif execution.status is Status.REEVALUATED:
            self.say(f"{prefix}done    {label}: new expressions evaluated on the values its last "
                     f"run recorded, its code not run ({execution.seconds:.1f} s)")
        elif execution.status is Status.FAILED:
            self.say(f"{prefix}FAILED  {label} after {execution.seconds:.1f} s\n"
                     + execution.message)

    def _leftovers(self, event: Leftovers, prefix: str) -> None:
        where = f"{event.task.section.display_path} [{event.task.tab}]"
        for process in event.processes:
            done = "killed" if process.killed else f"it could not be killed: kill {process.pid}"
            self.warn(f"{prefix}warning: {where}: process {process.pid} ({process.command}), "
                      f"started by its code, outlived the kernel: {done} — a cell should "
                      "wait for the processes it starts, or stop them")

    def _running(self, event: Running) -> None:
        line = "running: " + ", ".join(f"{label} {seconds:.0f} s" for label, seconds in event.tasks)
        if self.live:
            self.out.write(CLEAR_LINE + line[:150])
            self.out.flush()
        elif time.monotonic() - self._last_running >= RUNNING_EVERY:
            self._last_running = time.monotonic()
            self.say(line)

    def frozen(self, result: FreezeResult, layout: Layout) -> None:
        for task in result.on_cpu:
            self.warn(f"warning: froze {task.label}, which declares #gpus({task.section.gpus}), "
                      "from a run on the CPU: readers will see CPU outputs")
        self.say(f"freeze: {plural(len(result.written), 'notebook')} written into "
                 f"{layout.shown(layout.frozen_store)}/, {len(result.unchanged)} unchanged "
                 "(commit them)")

    def gathered(self, result: GatherResult, layout: Layout) -> None:
        for task in result.failed:
            self.warn(f"task {task.name} failed: " + "; ".join(task.problems))
        self.say(f"gathered {plural(len(result.tasks), 'task')} "
                 f"({len(result.failed)} failed): {plural(len(result.written), 'frozen notebook')} "
                 f"written; summary in {layout.shown(result.summary)}")

    def bug(self, trace: str) -> None:
        self.warn(trace.rstrip())
        self.warn("error: this is a bug of the build system, not of your book — please report "
                  "it with the traceback above")

    def cancelled(self) -> None:
        self.warn("\ninterrupted: outputs are written whole or not at all; earlier results "
                  "are kept")

    def interrupted(self) -> None:
        self.warn("\neval: interrupted; kernels stopped, unfinished notebooks keep their "
                  "previous results")

    def evaluated(self, result: EvalResult, tabs: tuple[str, ...], layout: Layout,
                  require_gpu: bool, seconds: float) -> None:
        """The summary table, the failures, the doubtful GPU sections, what --freeze wrote,
        the last line."""
        self.say(summary_table(list(result.executions), tabs))
        for execution in result.executions:
            if execution.status is Status.FAILED:
                self.warn(execution.message)
        report = result.report
        for line in report.doubtful:
            self.warn(f"{'error' if require_gpu else 'warning'}: {line.section} "
                      f"[{line.framework}] declares #gpus({line.declared_gpus}): {line.verdict}"
                      + self._why(line, report))
        if result.frozen is not None:
            self.frozen(result.frozen, layout)
        removed = (f", {plural(len(result.removed), 'output')} of removed sections deleted"
                   if result.removed else "")
        again = f"{n} re-evaluated, " if (n := result.count(Status.REEVALUATED)) else ""
        self.say(f"eval: {result.count(Status.RAN)} ran, {again}{result.count(Status.CACHED)} "
                 f"cached, {result.count(Status.FROZEN)} frozen, {result.count(Status.FAILED)} "
                 f"failed{removed}, {seconds:.1f} s; report in "
                 f"{layout.shown(result.report_markdown)} (and .json)")

    @staticmethod
    def _why(line: ReportLine, report: Report) -> str:
        if line.verdict is Verdict.BLIND_FRAMEWORK:
            return f" ({report.frameworks[line.framework]['problem']})"
        return (" — its tensors and models stayed on the CPU; check the code moves them "
                "to try_gpu()")

    # -- launch and html --------------------------------------------------------
    def launch_written(self, result: LaunchResult, folder: str, seconds: float) -> None:
        for section, tab in result.missing:
            self.warn(f"launch: {section.display_path} [{tab}] has no executed notebook — "
                      "run `python3 build.py eval` and fix its errors")
        self.say(f"launch: {len(result.written) + len(result.unchanged)} notebooks in "
                 f"{folder} ({len(result.written)} written, {len(result.unchanged)} "
                 f"unchanged), {seconds:.2f} s")

    def slide_progress(self, layout: Layout):
        return lambda tab, section, path, outputs: self.say(
            f"slides {section.name} [{tab}]: {layout.shown(path)}"
            f"{'' if outputs else ' (no executed notebook: no outputs)'}")

    def slides_written(self, result: SlidesResult, folder: str, seconds: float) -> None:
        counts = ", ".join(f"{n} slide notebooks for {t}" for t, n in result.per_tab.items())
        self.say(f"slides: {counts} in {folder} ({len(result.written)} written), {seconds:.2f} s")

    def page_progress(self, pages: int):
        width = len(str(pages))

        def progress(number: int, total: int, section: Section, seconds: float) -> None:
            self.say(f"[{number:>{width}}/{total}] html {section.name} ({seconds:.2f} s)")
        return progress

    def site_rendered(self, result: RenderResult, site: str, tabs: tuple[str, ...],
                      seconds: float) -> None:
        done = "search index built" if result.rendered else \
            "unchanged: nothing it is made from changed"
        frameworks = "one framework, no tabs" if len(tabs) == 1 else ", ".join(tabs)
        self.say(f"html: {result.pages} pages in {site}/ ({frameworks}), {done}, "
                 f"{seconds:.1f} s — open {site}/index.html")

    # -- serve ------------------------------------------------------------------
    def serving(self, url: str, site: str, watched: list[str]) -> None:
        self.say(f"serve: {url} serves {site}/, rebuilt and reloaded when "
                 f"{', '.join(watched)} change (Ctrl-C stops)")

    def rebuilding(self, changed: list[str]) -> None:
        more = f" and {len(changed) - 3} more" if len(changed) > 3 else ""
        self.say(f"serve: {', '.join(changed[:3])}{more} changed, rebuilding...")

    def rebuilt(self, rebuilt: Rebuilt, url: str) -> None:
        if rebuilt.ok:
            drafted = "" if rebuilt.drafted is None else \
                f", edited page shown after {rebuilt.drafted:.1f} s"
            self.say(f"serve: rebuilt in {rebuilt.seconds:.1f} s{drafted} — {url}")
        else:
            self.warn(f"serve: the rebuild failed ({rebuilt.seconds:.1f} s): the open pages "
                      "show the problems above until a rebuild succeeds")

    def stopped(self) -> None:
        self.say("\nserve: stopped")

    # -- pdf --------------------------------------------------------------------
    def pdf_written(self, result: PdfResult) -> None:
        done = (f"{plural(result.prints, 'print')}, {result.parts} parts, {result.seconds:.1f} s"
                if result.parts else "unchanged: nothing it is made from changed")
        self.say(f"pdf [{result.tab}]: {plural(result.pages, 'page')}, "
                 f"{plural(result.bookmarks, 'bookmark')}, {result.size / 1e6:.1f} MB ({done})")

    def pdfs_done(self, results: list[PdfResult], folder: str, seconds: float) -> None:
        self.say(f"pdf: {plural(len(results), 'PDF')} in {folder}/ "
                 f"({', '.join(r.path.name for r in results)}), {seconds:.1f} s — "
                 "the site offers them for download (the main build renders it next; "
                 "after `build.py pdf` alone, run `build.py html`)")
