"""Spec synthesis: the capability taxonomy, seeded procedural generators, diversity (storage: `coworkenv.store.stages`)."""

from coworkenv.synth.diversity import diversity_report, reference_sequence, spec_content_hash
from coworkenv.synth.generate import GeneratorError, generate_spec, generate_specs
from coworkenv.synth.procedural import GENERATORS, GenContext, GeneratorInfo, register
from coworkenv.synth.taxonomy import (
    GENERATOR_VERSION,
    Capability,
    Taxonomy,
    TaxonomyError,
    capability_fingerprint,
    load_taxonomy,
)
from coworkenv.synth.world_builder import Org

__all__ = [
    "GENERATORS",
    "GENERATOR_VERSION",
    "Capability",
    "GenContext",
    "GeneratorError",
    "GeneratorInfo",
    "Org",
    "Taxonomy",
    "TaxonomyError",
    "capability_fingerprint",
    "diversity_report",
    "generate_spec",
    "generate_specs",
    "load_taxonomy",
    "reference_sequence",
    "register",
    "spec_content_hash",
]
