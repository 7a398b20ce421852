"""Dagster assets, one module per stage, thin over the coworkenv library."""
