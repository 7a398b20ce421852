"""Fault corpus, `coworkenv eval ... --compare LABEL=REPORT [--label NAME]` with labels that cannot name a column of
the report: one label given twice (`--compare base=a.json --compare base=b.json`), `--label` or the model's own name
(the default label) equal to a compared report's, a label holding `|` (a Markdown table's cell border), a line break
or another control character (pasted), a blank label.

On main the labels became the keys of one mapping and the columns of the Markdown tables as written: a label given
twice kept the last report only, a compared report under this run's label was replaced by this run's, both without
a word (two models asked for, one column shown), and `|` or a line break shifted every row of every table, the
numbers then under other models' names. Now such labels are refused before any episode runs, naming the option,
the label and what to do. Regression guards: labels with blanks, dashes or dots, and unicode, are taken.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from coworkenv.cli import app
from coworkenv.examples import example_names
from tests.faults.harness import refused, spec_folder
from tests.support.fake_openai_server import FakeOpenAIServer


def _eval(url: str, model: str, specs: Path, *more: str) -> str:
    result = CliRunner().invoke(app, ["eval", "--llm", url, "--model", model, "--envs", str(specs), "--max-steps", "2",
                                      *more])
    assert result.exit_code == 0, result.output
    return result.stdout


def _report(url: str, model: str, specs: Path, where: Path) -> Path:
    where.write_text(_eval(url, model, specs, "--json"))
    return where


CASES = {  # the labels given (--compare LABEL=..., then --label, when given) and what the error names
    "a compared label twice": (["base", "base"], None, ["--compare", "'base'", "twice"]),
    "--label equal to a compared label": (["base"], "base", ["--label", "'base'", "--compare"]),
    "the model's name equal to a compared label": (["openai:model-b"], None, ["'openai:model-b'", "--label"]),
    "a bar in a compared label": (["sft|v2"], None, ["--compare", "'sft|v2'", "|"]),
    "a bar in --label": (["base"], "rl | v3", ["--label", "'rl | v3'", "|"]),
    "a line break in --label": (["base"], "rl\n", ["--label", "line break"]),
    "a tab in a compared label": (["base\tv1"], None, ["--compare", "control character"]),
    "a blank compared label": (["  "], None, ["--compare", "blank"]),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_an_eval_whose_labels_cannot_name_the_reports_columns_is_refused(tmp_path: Path, case: str) -> None:
    compared, label, says = CASES[case]
    specs = spec_folder(tmp_path / "specs", example_names()[:2])
    with FakeOpenAIServer() as server:
        url = f"{server.url}/v1"
        reports = [_report(url, f"model-{i}", specs, tmp_path / f"r{i}.json") for i in range(len(compared))]
        requests = server.stats()["requests"]
        args = ["eval", "--llm", url, "--model", "model-b", "--envs", str(specs), "--max-steps", "2",
                "--out", str(tmp_path / "D")]
        for name, report in zip(compared, reports, strict=True):
            args += ["--compare", f"{name}={report}"]
        if label is not None:
            args += ["--label", label]
        refused(args, *says)
        assert server.stats()["requests"] == requests  # refused before any episode ran
    assert not (tmp_path / "D").exists()


@pytest.mark.parametrize("label", ["sft v2", "qwen3-8b.rl", "stufe-ü"])
def test_guard_labels_with_blanks_dashes_and_unicode_are_taken(tmp_path: Path, label: str) -> None:
    """Regression guard (held on main): every plain label is a column of its own."""
    specs = spec_folder(tmp_path / "specs", example_names()[:2])
    with FakeOpenAIServer() as server:
        url = f"{server.url}/v1"
        base = _report(url, "model-a", specs, tmp_path / "base.json")
        _eval(url, "model-b", specs, "--compare", f"base={base}", "--label", label, "--out", str(tmp_path / "D"))
    report = json.loads((tmp_path / "D" / "eval_report.json").read_text())
    assert report["labels"] == ["base", label]
    table = (tmp_path / "D" / "eval_report.md").read_text().split("## pass@1")[1].splitlines()
    assert table[2].startswith(f"| group | envs | base | {label} |")
