"""The UI shows the asset graph and the materializations of the instance: start `dagster-webserver` on loopback
against an instance holding a small materialized chain and ask its GraphQL API."""

from __future__ import annotations

import itertools
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import dagster as dg
import httpx
import pytest
import yaml

from assets.envs import validated_envs
from assets.hub import hub_dataset
from assets.sft import sft_shards
from assets.specs import task_specs
from assets.taxonomy import capability_taxonomy
from assets.trajectories import teacher_trajectories
from pipelines.jobs import capability_job
from pipelines.partitions import CAPABILITY_PARTITIONS
from pipelines.resources import CoworkenvSettings

pytestmark = pytest.mark.timeout(300)

ROOT = Path(__file__).resolve().parents[1]
CAPABILITY = "report_from_data"
MATERIALIZED = ["task_specs", "validated_envs", "teacher_trajectories", "sft_shards", "hub_dataset"]
CHAIN = ["capability_taxonomy", *MATERIALIZED, "pocketworker_checkpoint", "eval_report"]
STARTUP_S = 120

ASSET_GRAPH = """
query AssetGraph {
  assetNodes {
    assetKey { path }
    dependencyKeys { path }
    assetMaterializations(limit: 1) { runId partition timestamp }
  }
}
"""


def dagster_home(tmp_path: Path) -> Path:
    """A DAGSTER_HOME holding the project's dagster.yaml with its relative storage paths made absolute."""
    home = tmp_path / "dagster_home"
    home.mkdir()
    config = yaml.safe_load((ROOT / "dagster.yaml").read_text())
    config["storage"]["sqlite"]["base_dir"] = str(home / "storage")
    config["local_artifact_storage"]["config"]["base_dir"] = str(home)
    config["compute_logs"]["config"]["base_dir"] = str(home / "logs")
    (home / "dagster.yaml").write_text(yaml.safe_dump(config))
    return home


def materialize_small_chain(home: Path, data_dir: Path, taxonomy_dir: Path) -> None:
    """A one-capability taxonomy through task_specs..teacher_trajectories, then sft_shards and hub_dataset."""
    from coworkenv.synth import load_taxonomy
    from tests.support.pipeline_child import write_capability

    taxonomy_dir.mkdir()
    write_capability(taxonomy_dir, load_taxonomy(ROOT / "taxonomy")[CAPABILITY])
    settings = CoworkenvSettings(data_dir=str(data_dir), taxonomy_dir=str(taxonomy_dir), specs_per_capability=1)
    defs = dg.Definitions(
        assets=[capability_taxonomy, task_specs, validated_envs, teacher_trajectories, sft_shards, hub_dataset],
        jobs=[capability_job, dg.define_asset_job("aggregates", selection=[sft_shards, hub_dataset])],
        resources={"settings": settings},
    )
    with dg.DagsterInstance.from_config(str(home)) as instance:
        instance.add_dynamic_partitions(CAPABILITY_PARTITIONS, [CAPABILITY])
        assert defs.resolve_job_def(capability_job.name).execute_in_process(
            instance=instance, partition_key=CAPABILITY).success
        assert defs.resolve_job_def("aggregates").execute_in_process(instance=instance).success


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def webserver(tmp_path: Path) -> Iterator[str]:
    """`dagster-webserver` on loopback over a small materialized instance; stopped by its process group."""
    home = dagster_home(tmp_path)
    data_dir = tmp_path / "data"
    taxonomy_dir = tmp_path / "taxonomy"
    materialize_small_chain(home, data_dir, taxonomy_dir)
    port = free_port()
    env = {**os.environ, "DAGSTER_HOME": str(home), "COWORKENV_DATA_DIR": str(data_dir),
           "COWORKENV_TAXONOMY_DIR": str(taxonomy_dir), "COWORKENV_SPECS_PER_CAPABILITY": "1"}
    log = (tmp_path / "webserver.log").open("wb")
    server = subprocess.Popen(
        [str(Path(sys.executable).with_name("dagster-webserver")), "-m", "pipelines.definitions",
         "-h", "127.0.0.1", "-p", str(port)],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
        start_new_session=True,  # its own process group: the code server it spawns goes down with it
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + STARTUP_S
        while True:
            if server.poll() is not None:
                pytest.fail(f"dagster-webserver exited with {server.returncode}:\n"
                            + (tmp_path / "webserver.log").read_text()[-3000:])
            try:
                if httpx.get(f"{url}/server_info", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"dagster-webserver did not answer within {STARTUP_S}s:\n"
                            + (tmp_path / "webserver.log").read_text()[-3000:])
            time.sleep(0.5)
        yield url
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait(timeout=10)
        log.close()


def graphql(url: str, query: str) -> dict[str, Any]:
    response = httpx.post(f"{url}/graphql", json={"query": query}, timeout=60)
    response.raise_for_status()
    body = response.json()
    assert "errors" not in body, body["errors"]
    return dict(body["data"])


def test_webserver_serves_asset_graph_and_latest_materializations(webserver: str) -> None:
    nodes = {"/".join(n["assetKey"]["path"]): n for n in graphql(webserver, ASSET_GRAPH)["assetNodes"]}
    assert set(CHAIN) <= set(nodes)
    for upstream, downstream in itertools.pairwise(CHAIN):
        deps = {"/".join(d["path"]) for d in nodes[downstream]["dependencyKeys"]}
        assert upstream in deps, f"the UI does not show {downstream} depending on {upstream}"
    for key in MATERIALIZED:
        latest = nodes[key]["assetMaterializations"]
        assert latest, f"the UI shows no materialization of {key}"
    assert nodes["task_specs"]["assetMaterializations"][0]["partition"] == CAPABILITY
    for key in ("pocketworker_checkpoint", "eval_report"):
        assert nodes[key]["assetMaterializations"] == [], f"{key} was never materialized in this instance"
