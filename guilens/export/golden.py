"""`--format golden`: an episode's path as a task (a scenario file), the export `guilens scenarios
from-episode` makes, offered under `guilens export` too so every way out of an episode is one command.

It is the same code (`guilens.export.task.write_baseline`), verified on the
simulated phone where the scenario is a simulated-phone one; a file that does
not verify is written (to look at) and the export exits 1, as from-episode does.
"""

from __future__ import annotations

from pathlib import Path

from guilens.export.formats import ExportError, ExportOptions, ExportResult, Scope


class GoldenExporter:
    name = "golden"
    scope: Scope = "episode"
    suffix = ".yaml"
    description = "an episode's path as a task whose reference and golden steps are that path (scenario YAML)"

    def check(self) -> None:
        return None

    def export(self, source: Path, out: Path, options: ExportOptions) -> ExportResult:
        from guilens.episode import EpisodeError
        from guilens.export.task import BaselineError, write_baseline

        try:
            b = write_baseline(source, out, verify=True)
        except (BaselineError, EpisodeError) as err:
            raise ExportError(str(err)) from None
        warnings = [f"left out of the reference: {p}" for p in b.skipped] + list(b.notes)
        if b.verdicts is None:
            return ExportResult(out, b.summary() + "; not verified (a real-device scenario is judged by the LLM)",
                                warnings)
        bad = [v.task for v in b.verdicts if not v.ok]
        warnings += [f"verify FAILED for {t}" for t in bad]
        return ExportResult(out, b.summary() + ("; verify FAILED" if bad else "; verified"), warnings, ok=not bad)
