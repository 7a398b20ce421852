"""Fault corpus, `coworkenv eval --out D` run again into the folder of an earlier eval: for another model (the
next checkpoint, another server), over other envs (a spec removed, another held-out set), with another `--k`,
`--seed` or `--temperature`, D given through a link, a rollout's file copied into `D/runs`; the same eval again
against a server that answers otherwise.

On main each eval replaced `D/eval_report.*` and added its episodes beside the earlier ones in `D/runs`
(`trajectories-<hash>.parquet`): measured, model-a then model-b into D left two files, `openai:model-a`'s and
`openai:model-b`'s, under a report of model-b alone, and every reader of `D/runs` (`curate D/runs`, a look at the
transcripts) took model-a's episodes as the report's. Now such an eval is refused before any episode runs, naming
the earlier files, whose episodes they are and what to do (a new folder, move `D/runs` away, or `--compare
LABEL=D/eval_report.json` to show the earlier report beside this one, its episodes then kept as that report's);
the same eval run again replaces its earlier file. Regression guards: the same eval again with the same answers
(one file), another model shown beside the earlier one with `--compare` (both reports, both files), and an eval
into a fresh folder.
"""

from __future__ import annotations

import json
import shutil
from itertools import count
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from coworkenv.cli import app
from coworkenv.examples import example_names
from tests.faults.harness import refused, snapshot, spec_folder
from tests.support.fake_openai_server import FakeOpenAIServer, echo_responder


def _eval(url: str, model: str, specs: Path, out: Path, *more: str) -> str:
    result = CliRunner().invoke(app, ["eval", "--llm", url, "--model", model, "--envs", str(specs), "--out", str(out),
                                      "--max-steps", "2", *more])
    assert result.exit_code == 0, result.output
    return result.output


def _models(runs: Path) -> list[list[str]]:
    return [sorted({str(m) for m in pq.read_table(file, columns=["model"]).column("model").to_pylist()})
            for file in sorted(runs.glob("trajectories-*.parquet"))]


CASES = ["another model", "a spec removed", "another spec set", "another k", "another seed", "another temperature",
         "through a link", "a rollout's file copied into runs", "compared with another report than the earlier"]


@pytest.mark.parametrize("case", CASES)
def test_an_eval_into_a_folder_holding_episodes_its_report_would_not_hold_is_refused(tmp_path: Path,
                                                                                      case: str) -> None:
    names = example_names()
    specs = spec_folder(tmp_path / "specs", names[:2])
    out = tmp_path / "D"
    with FakeOpenAIServer() as server:
        url = f"{server.url}/v1"
        _eval(url, "model-a", specs, out)
        model, given, target, more = "model-a", specs, out, []
        if case == "another model":
            model = "model-b"
        elif case == "a spec removed":
            sorted(specs.glob("*.json"))[1].unlink()
        elif case == "another spec set":
            given = spec_folder(tmp_path / "other", names[2:4])
        elif case == "another k":
            more = ["--k", "2"]
        elif case == "another seed":
            more = ["--seed", "7"]
        elif case == "another temperature":
            more = ["--temperature", "0.5"]
        elif case == "through a link":
            model, target = "model-b", tmp_path / "latest"
            target.symlink_to(out, target_is_directory=True)
        elif case == "a rollout's file copied into runs":
            result = CliRunner().invoke(app, ["rollout", str(specs), "--out", str(tmp_path / "traj")])
            assert result.exit_code == 0, result.output
            for file in (tmp_path / "traj").glob("*.parquet"):
                shutil.copy(file, out / "runs" / f"kept-{file.name}")
        elif case == "compared with another report than the earlier":
            _eval(url, "model-c", specs, tmp_path / "C")
            model, more = "model-b", ["--compare", f"c={tmp_path / 'C' / 'eval_report.json'}"]
        before = snapshot(out)
        requests = server.stats()["requests"]
        refused(["eval", "--llm", url, "--model", model, "--envs", str(given), "--out", str(target),
                 "--max-steps", "2", *more], "already holds", "episodes of", "trajectories-", "would not hold",
                "--compare LABEL=")
        assert server.stats()["requests"] == requests  # refused before any episode ran
    assert snapshot(out) == before


def test_the_same_eval_again_replaces_its_earlier_episodes(tmp_path: Path) -> None:
    """The server answers otherwise the second time (a sampled reply, a restarted server): main left both runs'
    episodes under the second run's report, each env twice."""
    specs = spec_folder(tmp_path / "specs", example_names()[:2])
    calls = count()

    def varying(body: dict[str, Any]) -> dict[str, Any]:
        answer = echo_responder(body)
        return {**answer, "content": f"{answer.get('content') or ''} ({next(calls)})"}

    with FakeOpenAIServer(responder=varying) as server:
        _eval(f"{server.url}/v1", "model-a", specs, tmp_path / "D")
        shown = _eval(f"{server.url}/v1", "model-a", specs, tmp_path / "D")
    assert _models(tmp_path / "D" / "runs") == [["openai:model-a"]], shown
    assert "removed" in shown and "the episodes of this eval run before" in shown


@pytest.mark.parametrize("case", ["the same eval again", "another model compared with the earlier report",
                                  "a fresh folder"])
def test_guard_an_eval_whose_report_holds_every_episode_of_its_folder_is_taken(tmp_path: Path, case: str) -> None:
    """Regression guards (held on main): the same answers write the same file; `--compare` of the earlier report
    keeps its episodes beside the new model's, both in the report written; a new folder takes any eval."""
    specs = spec_folder(tmp_path / "specs", example_names()[:2])
    out = tmp_path / "D"
    with FakeOpenAIServer() as server:
        url = f"{server.url}/v1"
        _eval(url, "model-a", specs, out)
        if case == "the same eval again":
            _eval(url, "model-a", specs, out)
            assert _models(out / "runs") == [["openai:model-a"]]
        elif case == "another model compared with the earlier report":
            (tmp_path / "a.json").write_bytes((out / "eval_report.json").read_bytes())
            _eval(url, "model-b", specs, out, "--compare", f"a={tmp_path / 'a.json'}")
            assert sorted(_models(out / "runs")) == [["openai:model-a"], ["openai:model-b"]]
            assert sorted(json.loads((out / "eval_report.json").read_text())["reports"]) == ["a", "openai:model-b"]
        else:
            _eval(url, "model-b", specs, tmp_path / "E")
            assert _models(tmp_path / "E" / "runs") == [["openai:model-b"]]
