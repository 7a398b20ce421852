"""Procedural generators (the embedded default: no LLM), one registered generator per capability.

Importing this package registers every generator in `GENERATORS`.
"""

from coworkenv.synth.procedural import (  # noqa: F401  (importing a module registers its generators)
    access,
    adaptation,
    backoffice,
    clarify,
    data,
    delegation,
    inbox,
    incidents,
    lookup,
    operations,
    personal,
    safety,
    scheduling,
    tickets,
)
from coworkenv.synth.procedural._registry import GENERATORS, GeneratorFn, GeneratorInfo, register
from coworkenv.synth.procedural._task import GenContext, Task

__all__ = ["GENERATORS", "GenContext", "GeneratorFn", "GeneratorInfo", "Task", "register"]
