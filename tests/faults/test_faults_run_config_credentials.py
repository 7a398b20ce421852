"""Fault corpus, a credential given in a run's config (the `dagster dev` launchpad, `dagster job launch --config`):
`resources: {settings: {config: {llm_url: http://host/v1?api_key=K}}}`. Dagster stores a run's config in its run
storage when it creates the run, before any step (the resource's pydantic checks) runs: the key sat in the run
history in clear (measured on `main`: the run was created and its stored config held the key). Now the code location
refuses it while building the execution plan, which comes before the run is created: one message naming the setting,
never the key, and what to do; no run is stored. A URL without credentials, `{env: VARIABLE}` and the variable bound
by the Definitions (COWORKENV_LLM_URL holding the key) still make runs."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import dagster as dg
import pytest

from pipelines.resources import CoworkenvSettings, dagster_settings

SECRET = "hunter2-do-not-store"


@dg.asset
def uses_settings(settings: CoworkenvSettings) -> None:  # the pipeline's assets take the resource the same way
    del settings


@pytest.fixture(scope="module")
def made() -> Iterator[tuple[Any, Any]]:
    # The settings resource as the Definitions bind it (`pipelines/definitions.py`), on one small asset: importing
    # the whole pipeline costs 20 s here.
    defs = dg.Definitions(assets=[uses_settings], jobs=[dg.define_asset_job("job", [uses_settings])],
                          resources={"settings": dagster_settings({})})
    with dg.DagsterInstance.ephemeral() as instance:  # run storage in memory: the same create_run path
        yield instance, defs.resolve_job_def("job")


def _config(url: Any) -> dict[str, Any]:
    return {"resources": {"settings": {"config": {"llm_url": url, "llm_model": "m"}}}}


def _stored(instance: Any) -> str:
    return " ".join(str(run.run_config) for run in instance.get_runs())


@pytest.mark.parametrize("url", [f"http://127.0.0.1:9/v1?api_key={SECRET}", f"http://admin:{SECRET}@127.0.0.1:9/v1",
                                 f"http://127.0.0.1:9/v1?api-version=1&token={SECRET}"])
def test_a_credential_in_a_run_config_is_refused_before_the_run_is_stored(made: tuple[Any, Any], url: str) -> None:
    instance, job = made
    before = len(instance.get_runs())
    with pytest.raises(Exception, match="COWORKENV_LLM_URL") as caught:
        instance.create_run_for_job(job, run_config=_config(url))
    assert SECRET not in str(caught.value) and "llm_url" in str(caught.value), caught.value
    assert len(instance.get_runs()) == before
    assert SECRET not in _stored(instance)


def test_runs_without_a_credential_in_their_config_are_made(made: tuple[Any, Any],
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """Guard: a URL without credentials, `{env: VARIABLE}`, and no llm_url at all make runs as before."""
    instance, job = made
    monkeypatch.setenv("COWORKENV_LLM_URL", f"http://127.0.0.1:9/v1?api_key={SECRET}")
    for config in (_config("http://127.0.0.1:9/v1?api-version=2024-06-01"), _config({"env": "COWORKENV_LLM_URL"}), {}):
        run = instance.create_run_for_job(job, run_config=config)
        assert SECRET not in str(instance.get_run_by_id(run.run_id).run_config)
