"""Imported only by the fork server of `tests.support.pipeline_child` (its preload): warm it up once, so that no
forked child pays what every run does first (see `pipeline_child.warm_up`)."""

from tests.support.pipeline_child import warm_up

warm_up()
