"""Choosing the publisher from configuration: the Hub when a repo id and a token are set, else local git."""

from __future__ import annotations

import logging
import os
from pathlib import Path

from coworkenv.store._hf_hub import TOKEN_ENV, HfHubPublisher
from coworkenv.store._local_git import LocalGitPublisher
from coworkenv.store._publisher import HubPublisher

logger = logging.getLogger(__name__)


def publisher_from_config(repo_id: str | None, local_dir: Path, repo_type: str = "dataset") -> HubPublisher:
    """`HfHubPublisher(repo_id)` when `repo_id` and HF_TOKEN are set, otherwise `LocalGitPublisher(local_dir)`."""
    if repo_id and os.environ.get(TOKEN_ENV):
        logger.info("publishing to the Hub %s repo %s", repo_type, repo_id)
        return HfHubPublisher(repo_id, repo_type=repo_type)
    if repo_id:
        logger.warning("%s is not set; publishing %s to the local repository %s instead", TOKEN_ENV, repo_id, local_dir)
    return LocalGitPublisher(local_dir)
