"""Dagster wiring: Definitions, resources, partitions, sensors, automation and jobs (assets live in `assets/`)."""
