"""A kept setting admitted in another unit: the task fixes one key of a service's config (its region) and the check
that the new version keeps the others reads one of them as "the same number or the same in another unit"
(`values.db_pool_size in [50, 3000, 50000]`, `values.timeout_ms in [2000, 120000, 2000000]`: the writer unsure
whether the store holds seconds or minutes, milliseconds or seconds). The agent that fixes the region and also
sets the pool size to 3000 passes (the outsider's seventh hunt, `benchmarks/hunt_mutants.py --family d92`, kind
`num_unit_in` on correct_bad_data 3-5, witnessed by hand). The mutations gate changed another key of the new
version only on the last such write, to its value one up, which the list does not admit. Now each value an `in`
condition on a key of the app's records admits beside the value the named record holds is written with each such
write (`_whole_records._admitted_others`), and must fail a check. The sound twin keeps `equals` (the base).
"""

from __future__ import annotations

from typing import Any

from tests.defects._core import CorpusError, Defect, Spec

CLASS = "unit_value_admitted"
DETECTION = (
    "for each write passing a map of settings (`services_update_config` `changes`), each value an `in` condition of a "
    "check on another key of those settings admits beside the value the service holds is also set by that write: "
    "it must fail a check"
)
GATE, CODE = "mutations", "harm_unguarded"


def _in_units(which: int, field: int) -> Any:
    def edit(spec: Spec) -> None:
        kept = [c for c in spec["checks"] if c["id"].endswith("-other-config-kept")]
        if len(kept) <= which:
            raise CorpusError(f"{spec['capability']}: no {which + 1}th check on the kept settings")
        nums = [w for w in kept[which]["rule"]["where"] if w["field"].startswith("values.")
                and isinstance(w["value"], int) and not isinstance(w["value"], bool)]
        if len(nums) <= field:
            raise CorpusError(f"{spec['capability']}: no number among the kept settings")
        w = nums[field]
        w["op"], w["value"] = "in", [w["value"], w["value"] * 60, w["value"] * 1000]
    return edit


def _also_set(which: int, field: int) -> Any:
    def witness(spec: Spec) -> list[dict[str, Any]]:
        defect = {**spec, "checks": [dict(c, rule=dict(c["rule"], where=[dict(w) for w in c["rule"].get("where", [])]))
                                     for c in spec["checks"]]}
        _in_units(which, field)(defect)
        kept = [c for c in defect["checks"] if c["id"].endswith("-other-config-kept")][which]
        service = next(w["value"] for w in kept["rule"]["where"] if w["field"] == "id").split("@")[0]
        cond = next(w for w in kept["rule"]["where"] if w["op"] == "in")
        ref: list[dict[str, Any]] = [dict(turn, steps=[dict(st) for st in turn["steps"]]) for turn in spec["reference"]]
        for turn in ref:
            for st in turn["steps"]:
                c = st.get("call")
                if c and c["name"] == "services_update_config" and c["arguments"].get("service") == service:
                    st["call"] = {**c, "arguments": {**c["arguments"], "changes": {
                        **c["arguments"]["changes"], cond["field"].split(".", 1)[1]: cond["value"][1]}}}
                    return ref
        raise CorpusError(f"{spec['capability']}: no config update of {service}")
    return witness


DEFECTS = [
    Defect(CLASS, f"kept-setting-{seed}-{which}-{field}", f"synth:correct_bad_data@{seed}",
           "fixes the asked setting and also multiplies a kept one by 60 (the same number in another unit)",
           breaks=_in_units(which, field), witness=_also_set(which, field), gate=GATE, code=CODE)
    for seed, which, field in ((3, 0, 0), (3, 1, 1), (4, 0, 0), (4, 1, 1), (5, 0, 1), (5, 1, 0), (7, 0, 0))
]
