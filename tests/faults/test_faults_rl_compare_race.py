"""Fault corpus, two RL comparisons into one folder at once: `coworkenv train rl-compare --out X` run again in another
terminal (other `--reward`s, another `--max-steps`) while the first runs. Each variant's training waits for the other's
into the same variant folder (`checkpoint_staging`), but nothing held the comparison whole: the second replaced a
variant's checkpoint the first had trained and reported, and whichever wrote `comparison.{md,json,png}` last named
folders holding the other's checkpoints, so the table described runs that were no longer there (on main: the
comparison's `reward-trajectory` row said the first compare's run, its folder held the second's). Now a comparison
holds its folder for the whole run, a second one waits, saying so, and the three files are put in place as one set.

Each case runs two comparisons in threads of this process (flock locks of two open descriptions conflict as two
processes' do); the training is stubbed (`train_rl` writes which compare trained the variant): the race is in what
is put where, not in training."""

from __future__ import annotations

import json
import sys
import threading
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

import trainers.rl_compare as rl_compare
from trainers.rl_config import load_rl_config

WAITING = "another RL comparison is writing"


class _Told:
    """Standard error, setting `event` once a comparison says it waits (what lets the first go on, not a timer)."""

    def __init__(self, stream: Any, event: threading.Event) -> None:
        self.stream, self.event = stream, event

    def write(self, text: str) -> int:
        if WAITING in text:
            self.event.set()
        return int(self.stream.write(text))

    def flush(self) -> None:
        self.stream.flush()


@pytest.fixture()
def stubbed(monkeypatch: pytest.MonkeyPatch) -> dict[str, threading.Event]:
    events = {"second ended or waits": threading.Event()}

    def train_rl(run: Any, specs: Any, out_dir: Path, *, reward: str, credit: str, model_record: Any) -> Any:
        who = threading.current_thread().name
        if who == "first" and reward == "binary":  # its second variant: once the second compare ended (or waits)
            assert events["second ended or waits"].wait(60), "the second comparison neither ended nor waited"
        out_dir.mkdir(parents=True, exist_ok=True)
        (out_dir / "trained_by").write_text(who)
        return SimpleNamespace(out_dir=out_dir, reward=reward, credit=credit, steps=1, wall_s=0.0, parameters=10,
                               log=[{"step": 1.0, "reward": 1.0 if who == "first" else 2.0}])

    def plot(path: Path, runs: Any, label: str) -> None:
        rl_compare.atomic_write_bytes(path, json.dumps(sorted(runs)).encode())

    monkeypatch.setattr(rl_compare, "train_rl", train_rl)
    monkeypatch.setattr(rl_compare, "write_comparison_plot", plot)
    return events


def _compare(out: Path, rewards: list[str], events: dict[str, threading.Event], errors: list[BaseException]) -> None:
    try:
        rl_compare.compare_rl_variants(load_rl_config("rl-tiny"), [], out, rewards=rewards,  # type: ignore[arg-type]
                                       credits=["trajectory"])
    except BaseException as exc:  # handed to the test
        errors.append(exc)
    finally:
        if threading.current_thread().name == "second":
            events["second ended or waits"].set()


def test_a_second_comparison_into_one_folder_waits_and_the_table_names_its_own_runs(
        tmp_path: Path, stubbed: dict[str, threading.Event], capfd: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    # here, not in the fixture: capfd puts its own standard error in place as the test's call starts
    monkeypatch.setattr(sys, "stderr", _Told(sys.stderr, stubbed["second ended or waits"]))
    out = tmp_path / "compare"
    errors: list[BaseException] = []
    first = threading.Thread(target=_compare, name="first", args=(out, ["partial", "binary"], stubbed, errors))
    first.start()
    while not (out / "partial-trajectory" / "trained_by").exists() and first.is_alive():
        first.join(0.01)
    second = threading.Thread(target=_compare, name="second", args=(out, ["partial"], stubbed, errors))
    second.start()
    first.join(30)
    second.join(30)
    assert not errors, errors
    table = json.loads((out / rl_compare.COMPARISON_JSON).read_text())
    for row in table["variants"]:
        trained_by = (Path(row["out_dir"]) / "trained_by").read_text()
        said = "first" if row["summary"]["reward_last"] == 1.0 else "second"
        assert trained_by == said, (f"the comparison reports the {said} compare's run of {row['reward']}, its folder "
                                    f"holds the {trained_by} compare's checkpoint")
    plotted = json.loads((out / rl_compare.COMPARISON_PLOT).read_text())
    assert plotted == sorted(f"{row['reward']}/{row['credit']}" for row in table["variants"]), \
        "the plot and the table are of two comparisons"
    assert WAITING in capfd.readouterr().err, "the second comparison waited without a word"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["compare"], "the lock folder was left beside the output"
