"""One dynamic partition per capability of the taxonomy."""

import dagster as dg

CAPABILITY_PARTITIONS = "capability"
capability_partitions = dg.DynamicPartitionsDefinition(name=CAPABILITY_PARTITIONS)
