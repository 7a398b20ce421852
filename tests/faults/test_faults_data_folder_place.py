"""Fault corpus, where the data folder is: what the run history records keyed by a path that only held where the
folder was, and Dagster's own console lines naming such a path. Measured on `main` with whole runs (by hand, two
capabilities, SFT and eval of a tiny model):

- `mv data moved`, COWORKENV_DATA_DIR=moved: the partitions were reused, but the SFT shards, the release, the
  checkpoint (trained again, published as a `.v2` of the same name) and its eval were made again (6 -> 10 runs), and
  "data folder moved: the run history records .../data" was said again on every later run;
- a data folder that is a link (`data -> disk1/data`), its target moved and the link pointed at the new place: the
  release was published again (the local publisher records its repository's real path);
- a relative COWORKENV_DATA_DIR=data read from another folder (DAGSTER_HOME the same): every partition generated
  again (an LLM paid again) into the other folder's `data`, the SFT shards made again there, while the release stayed
  "up to date" in the first folder: two half data folders;
- a step's `context.log` line naming a path with a line break or a terminal escape (`published ... to
  .../da\\x1b[31mta\\nx/hub`) reached the terminal raw through Dagster's console logger, split or colouring it.

Now each materialization records its data folder (as named and resolved) and every reader of a recorded path reads
it at the same place in the data folder the settings name (`pipelines.staleness.located`); a data folder that does
not exist while the run history's does is refused before any generation; Dagster's console lines are escaped.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import dagster as dg
import pytest

from pipelines.console_logger import escaped_console_logger
from pipelines.resources import CoworkenvSettings
from pipelines.staleness import DATA_DIR, DATA_DIR_RESOLVED, history_data_folder, located, other_data_folder_problem
from tests.support.pipeline_child import ROOT

ODD = "da\x1b[31mta\nx"


@pytest.mark.parametrize("name", ["with blank", "données", "run#1", "a b#é"])
def test_a_recorded_path_is_read_in_the_data_folder_now(tmp_path: Path, name: str) -> None:
    """A record names its data folder: its paths are read at the same place in the folder the settings name now
    (moved, renamed, its name with a blank, a `#` or an accent)."""
    old, now = tmp_path / "old" / name, tmp_path / "new" / name
    meta = {DATA_DIR: str(old), DATA_DIR_RESOLVED: str(old)}
    assert located(str(old / "store" / "sft_shards" / "train" / "a.parquet"), meta, now) == \
        str(now / "store" / "sft_shards" / "train" / "a.parquet")
    assert located(str(old), meta, now) == str(now)
    for outside in ("https://huggingface.co/datasets/org/x", "org/x", str(tmp_path / "old" / f"{name}-eval"),
                    str(tmp_path / "old")):  # a Hub repo, a sibling whose name begins with the folder's, its parent
        assert located(outside, meta, now) == outside


def test_a_data_folder_that_is_a_link_is_read_through_the_link_now(tmp_path: Path) -> None:
    """`data -> disk1/data`; the target moved to disk2 and the link pointed there. The local publisher records its
    repository's real path (under disk1): read under the data folder now, not made again."""
    link = tmp_path / "data"
    (tmp_path / "disk1" / "data").mkdir(parents=True)
    link.symlink_to(tmp_path / "disk1" / "data")
    settings = CoworkenvSettings(data_dir=str(link))
    from pipelines.staleness import data_folder_metadata

    meta = {key: value.value for key, value in data_folder_metadata(settings).items()}
    assert meta == {DATA_DIR: str(link), DATA_DIR_RESOLVED: str(tmp_path / "disk1" / "data")}
    (tmp_path / "disk1" / "data").rename(tmp_path / "disk2")
    link.unlink()
    link.symlink_to(tmp_path / "disk2")
    assert located(str(tmp_path / "disk1" / "data" / "hub" / "dataset"), meta, settings.root) == \
        str(link / "hub" / "dataset")


def test_a_relative_data_folder_is_recorded_as_the_folder_it_names(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """COWORKENV_DATA_DIR=data: the recorded paths name `<where the run started>/data`, not `data/...` that a run
    started elsewhere reads as its own folder."""
    monkeypatch.chdir(tmp_path)
    assert CoworkenvSettings(data_dir="data").root == tmp_path / "data"
    assert CoworkenvSettings(data_dir="./x/../data").root == tmp_path / "data"


@pytest.fixture
def history(tmp_path: Path) -> Iterator[dg.DagsterInstance]:
    """A run history whose one partition (report_from_data's task_specs) was written under `a/data`."""
    (tmp_path / "a" / "data").mkdir(parents=True)
    (tmp_path / "b").mkdir()
    with dg.DagsterInstance.ephemeral() as instance:  # in memory: no SQLite storage to create
        instance.report_runless_asset_event(dg.AssetMaterialization(
            "task_specs", partition="report_from_data",
            metadata={"path": dg.MetadataValue.path(str(tmp_path / "a" / "data" / "store" / "x.parquet")),
                      DATA_DIR: dg.MetadataValue.path(str(tmp_path / "a" / "data"))}))
        yield instance


def test_a_relative_data_folder_read_from_another_folder_is_refused_before_any_generation(
        history: dg.DagsterInstance, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path / "b")
    settings = CoworkenvSettings(data_dir="data", taxonomy_dir=str(ROOT / "taxonomy"))
    found = history_data_folder(history, settings.taxonomy(), settings)
    assert found == (tmp_path / "a" / "data", 1), "main: every partition generated again into b/data"
    message = other_data_folder_problem(history, settings.taxonomy(), settings)
    assert message is not None
    assert message.startswith(f"COWORKENV_DATA_DIR='data' names {tmp_path}/b/data (the value is relative, read from "
                              f"{tmp_path}/b, the folder this run started in), which does not exist, and the run "
                              f"history's data (1 capability partition) is in {tmp_path}/a/data"), message
    assert message.endswith(f"make it first: mkdir -p {tmp_path}/b/data"), message
    assert "nothing was generated" in message
    (tmp_path / "b" / "data").mkdir()  # a new data folder, made on purpose: taken
    assert history_data_folder(history, settings.taxonomy(), settings) is None
    monkeypatch.chdir(tmp_path / "a")
    os.rmdir(tmp_path / "a" / "data")  # the history's own folder emptied: generated again there, as before
    assert history_data_folder(history, settings.taxonomy(), settings) is None


def test_dagster_console_lines_naming_an_odd_path_are_one_line(tmp_path: Path,
                                                               capfd: pytest.CaptureFixture[str]) -> None:
    """A step's log line and a step's failure (its error's message) naming a path with a line break and a terminal
    escape, through the console logger every job of the code location has (`test_pipeline_defs` checks the
    binding). Dagster's stack trace keeps its lines."""
    @dg.asset
    def published(context) -> None:  # type: ignore[no-untyped-def]  # (Dagster refuses a string annotation)
        context.log.info(f"published v1 to {tmp_path / ODD}/hub")

    @dg.asset(deps=[published])
    def failing() -> None:
        raise OSError(f"cannot read {tmp_path / ODD}/x")

    defs = dg.Definitions(assets=[published, failing], jobs=[dg.define_asset_job("job")],
                          loggers={"console": escaped_console_logger})
    defs.resolve_job_def("job").execute_in_process(
        raise_on_error=False, run_config={"loggers": {"console": {"config": {"log_level": "INFO"}}}})
    err = capfd.readouterr().err
    assert "\x1b" not in err, "main: the escape reached the terminal"
    line = next(line for line in err.splitlines() if "published v1" in line)
    assert line.endswith(f"published v1 to {tmp_path}/da\\x1b[31mta\\nx/hub"), line
    assert f"OSError: cannot read {tmp_path}/da\\x1b[31mta\\nx/x" in err
    assert "Stack Trace:\n" in err or "Traceback" in err  # the trace's own lines kept
