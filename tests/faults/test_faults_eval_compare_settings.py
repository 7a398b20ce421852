"""Fault corpus, `coworkenv eval ... --compare LABEL=REPORT` of reports run under other settings that change what a
score means: another temperature, max_tokens per reply, max_steps per episode (or a report that does not record
one), another k, another verifier version (the scoring code; the envs' checks and scoring are in their ids), another
chat rendering of the tools and calls (`trainers.rendering`: a checkpoint trained `compact` is prompted so, a server
`full`; import38); also two compared reports that differ between themselves.

On main such reports were shown side by side as if comparable: the change column and its 95% paired bootstrap
interval (a "significant" gain of a run with 30 steps over one with 2 is the step budget, not the model), the
settings only in each report's header line; another k was refused only after the whole eval had run. Now the
command refuses before any episode runs, naming each differing setting with each report's value and the way to
force it (`--allow-different-settings`); forced, the report says the runs are not like-for-like and gives no
intervals. Guards: another seed (a resample, the same settings) is compared as before, with intervals.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from coworkenv.cli import app
from coworkenv.examples import example_names
from tests.faults.harness import refused, spec_folder
from tests.support.fake_openai_server import FakeOpenAIServer

RUN = ["--max-steps", "2", "--max-tokens", "64"]  # this run's settings; the compared reports are edited copies


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Any:
    root = tmp_path_factory.mktemp("compare_settings")
    specs = spec_folder(root / "specs", example_names()[:2])
    with FakeOpenAIServer() as server:
        url = f"{server.url}/v1"
        result = CliRunner().invoke(app, ["eval", "--llm", url, "--model", "model-a", "--envs", str(specs), *RUN,
                                          "--json"])
        assert result.exit_code == 0, result.output
        yield root, specs, url, server, json.loads(result.stdout)


def _copy(root: Path, name: str, report: dict[str, Any], **changes: Any) -> Path:
    edited = json.loads(json.dumps(report))
    for key, value in changes.items():
        if key == "k":
            edited["k"] = value
        elif value is None:
            edited["sampling"].pop(key, None)
        else:
            edited["sampling"][key] = value
    path = root / f"{name}.json"
    path.write_text(json.dumps(edited))
    return path


CASES: dict[str, tuple[list[dict[str, Any]], list[str]]] = {  # the compared reports' edits and what the error names
    "another temperature": ([{"temperature": 0.7}], ["temperature", "0.7", "--allow-different-settings"]),
    "another max_tokens": ([{"max_tokens": 512}], ["max_tokens", "512", "64"]),
    "another max_steps": ([{"max_steps": 30}], ["max_steps", "30", "2"]),
    "a report recording no max_steps": ([{"max_steps": None}], ["max_steps", "not recorded"]),
    "two compared reports differing between themselves": ([{}, {"max_steps": 8}], ["max_steps", "8"]),
    "another k": ([{"k": 3}], ["k"]),
    "another verifier version": ([{"verifier_version": "1"}], ["verifier_version", "r0 1"]),
    "another chat rendering": ([{"rendering": "compact"}], ["rendering", "r0 compact", "this run full"]),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_comparison_across_settings_is_refused_before_any_episode(world: Any, case: str) -> None:
    root, specs, url, server, report = world
    edits, says = CASES[case]
    args = ["eval", "--llm", url, "--model", "model-b", "--envs", str(specs), *RUN]
    for i, edit in enumerate(edits):
        args += ["--compare", f"r{i}={_copy(root, f'{case}-{i}', report, **edit)}"]
    requests = server.stats()["requests"]
    refused(args, *says)
    assert server.stats()["requests"] == requests  # before any episode ran


def _compare(world: Any, name: str, *more: str, **edit: Any) -> str:
    root, specs, url, _, report = world
    result = CliRunner().invoke(app, ["eval", "--llm", url, "--model", "model-b", "--envs", str(specs), *RUN,
                                      "--compare", f"base={_copy(root, name, report, **edit)}", *more])
    assert result.exit_code == 0, result.output
    return result.stdout


def test_forced_the_report_says_the_runs_differ_and_gives_no_interval(world: Any, tmp_path: Path) -> None:
    shown = _compare(world, "forced", "--allow-different-settings", "--out", str(tmp_path / "D"), max_steps=30)
    assert "not like-for-like" in shown and "max_steps: base 30, openai:model-b 2" in shown, shown
    assert "95% CI" not in shown
    written = json.loads((tmp_path / "D" / "eval_report.json").read_text())
    assert written["differences"] == [] and written["settings_differ"] == {"max_steps": {"base": 30, "openai:model-b": 2}}


def test_a_checkpoints_rendering_is_read_before_it_loads(world: Any, tmp_path: Path) -> None:
    # a local checkpoint trained `compact` against a server's report (`full`): refused before the weights load (the
    # folder holds none: loading it would fail otherwise)
    from coworkenv.checkpoint_manifest import write_checkpoint_manifest
    from trainers.rendering import write_rendering

    root, specs, _, _, report = world
    checkpoint = tmp_path / "ckpt"
    checkpoint.mkdir()
    write_rendering(checkpoint, "compact")
    write_checkpoint_manifest(checkpoint)
    refused(["eval", "--model", str(checkpoint), "--envs", str(specs), *RUN,
             "--compare", f"base={_copy(root, 'checkpoint', report)}"], "rendering", "base full", "this run compact")


def test_a_report_records_its_rendering(world: Any) -> None:
    assert world[4]["sampling"]["rendering"] == "full"  # a server's


def test_guard_another_seed_is_compared_with_intervals(world: Any) -> None:
    """Regression guard (held on main): a resample under the same settings is a like-for-like comparison."""
    shown = _compare(world, "seed", seed=7)
    assert "95% CI" in shown and "not like-for-like" not in shown
