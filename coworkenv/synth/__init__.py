"""Spec synthesis: the capability taxonomy, seeded procedural generators, LLM spec generation and diversity
(storage: `coworkenv.store.stages`)."""

from coworkenv.synth.diversity import (
    diversity_report,
    reference_sequence,
    request_clusters,
    request_text,
    spec_content_hash,
)
from coworkenv.synth.generate import GeneratorError, generate_spec, generate_specs
from coworkenv.synth.llm_generator import CapabilityLike, LLMSpecGenerator
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
    "CapabilityLike",
    "GenContext",
    "GeneratorError",
    "GeneratorInfo",
    "LLMSpecGenerator",
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
    "request_clusters",
    "request_text",
    "spec_content_hash",
]
