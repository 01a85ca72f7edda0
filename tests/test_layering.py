"""Textual stays in `guilens/screens/`: the runner, devices, agents and judge run without a terminal."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import guilens

PACKAGE = Path(guilens.__file__).parent
UI_MODULES = ("textual", "textual_image", "textual_serve", "pytest_textual_snapshot")


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def test_no_module_outside_screens_imports_textual() -> None:
    offenders = []
    files = [p for p in PACKAGE.rglob("*.py") if "screens" not in p.relative_to(PACKAGE).parts]
    assert len(files) > 10
    for path in files:
        bad = _imports(path) & set(UI_MODULES)
        if bad:
            offenders.append(f"{path.relative_to(PACKAGE.parent)} imports {', '.join(sorted(bad))}")
    assert not offenders, "\n".join(offenders)


def test_the_cli_starts_without_loading_textual_or_the_llm_sdk() -> None:
    code = (
        "import sys; import guilens.cli; "
        "print(','.join(m for m in ('textual', 'anthropic') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == ""
