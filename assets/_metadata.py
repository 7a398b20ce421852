"""Materialization metadata shared by the stages: table facts, sample previews and plots."""


import base64
import io
from collections.abc import Mapping, Sequence
from typing import Any

import dagster as dg
import pyarrow as pa

from coworkenv.store import StoredTable
from pipelines.run_guard import claim_partition, record_place, where_and_way_out

_PREVIEW_CHARS = 1200


def table_metadata(stored: StoredTable, *, version_label: str = "dataset_version") -> dict[str, Any]:
    """Row count, Arrow schema as a Dagster table schema, file path and content-hash version."""
    columns = [dg.TableColumn(f.name, str(f.type)) for f in stored.schema]
    return {
        "dagster/row_count": stored.num_rows,
        "dagster/column_schema": dg.TableSchema(columns=columns),
        "path": dg.MetadataValue.path(str(stored.path)),
        version_label: stored.content_hash,
    }


def preview(table: pa.Table, columns: Sequence[str], n: int = 2) -> dg.MetadataValue:
    """A Markdown preview of the first `n` rows (long values truncated)."""
    rows = table.slice(0, n).select([c for c in columns if c in table.column_names]).to_pylist()
    parts = []
    for i, row in enumerate(rows):
        parts.append(f"**sample {i + 1}**\n")
        for key, value in row.items():
            text = str(value)
            if len(text) > _PREVIEW_CHARS:
                text = text[:_PREVIEW_CHARS] + " …"
            parts.append(f"- `{key}`: {text.replace(chr(10), ' ')}")
        parts.append("")
    return dg.MetadataValue.md("\n".join(parts) or "_no rows_")


def bar_plot(title: str, values: Mapping[str, float], xlabel: str = "") -> dg.MetadataValue:
    """A horizontal bar chart as Markdown with an embedded PNG (Dagster renders it in the asset page)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = list(values)
    fig, ax = plt.subplots(figsize=(6, max(1.6, 0.32 * len(labels) + 0.8)))
    ax.barh(labels[::-1], [values[k] for k in labels][::-1], color="#4c72b0")
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    for i, k in enumerate(labels[::-1]):
        ax.text(values[k], i, f" {values[k]:g}", va="center", fontsize=8)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90)
    plt.close(fig)
    return png_markdown(buf.getvalue(), title)


def png_markdown(png: bytes, title: str) -> dg.MetadataValue:
    """A PNG embedded in Markdown metadata (the Dagster UI shows it on the asset page)."""
    return dg.MetadataValue.md(f"![{title}](data:image/png;base64,{base64.b64encode(png).decode()})")


def funnel_markdown(funnel: Mapping[str, Any]) -> dg.MetadataValue:
    stages = ["generated", "schema_valid", "coherent", "solvable", "sound", "accepted"]
    rows = "\n".join(f"| {s} | {funnel.get(s, 0)} |" for s in stages)
    return dg.MetadataValue.md(f"| stage | specs |\n|---|---|\n{rows}")


def schema_check(actual: pa.Schema, expected: pa.Schema, name: str = "parquet_schema") -> dg.AssetCheckResult:
    """Pass when the written Parquet has exactly the expected columns and types."""
    missing = [f.name for f in expected if f.name not in actual.names]
    wrong = [
        f"{f.name}: {actual.field(f.name).type} != {f.type}"
        for f in expected if f.name in actual.names and not actual.field(f.name).type.equals(f.type)
    ]
    extra = [n for n in actual.names if n not in expected.names]
    return dg.AssetCheckResult(
        check_name=name,
        passed=not (missing or wrong or extra),
        metadata={"missing": ", ".join(missing) or "-", "type_mismatch": "; ".join(wrong) or "-",
                  "unexpected": ", ".join(extra) or "-"},
    )


def one_run_at_a_time(context: dg.AssetExecutionContext, asset: str) -> None:
    """Stop this step, before it reads or writes anything, when another run is materializing the same partition
    now (it began first, or its step claimed the partition first: `pipelines.run_guard.claim_partition`); otherwise
    the partition is this run's until it ends. One clear failure instead of two runs mixing their files."""
    partition = context.partition_key
    record_place(context.instance, context.run_id)
    holder = claim_partition(context.instance, context.run_id, partition)
    if holder is not None:
        there, dead = where_and_way_out(holder)
        raise dg.Failure(
            f"{asset}[{partition}]: run {holder.run_id} ({holder.job_name}){there}, which began or reached this "
            "partition before this one, is materializing it now; this run stops before reading or writing anything, so "
            "that the two do not mix their files and pointers (nothing was written or removed); wait for that run to "
            f"end (or cancel it){dead}, then materialize the partition again if it is still stale")
