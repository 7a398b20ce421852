"""Bounds of numeric options that end up in stored files: seeds are stored and hashed as signed 64-bit integers."""

SEED_MIN = -(2**63)
SEED_MAX = 2**63 - 1
