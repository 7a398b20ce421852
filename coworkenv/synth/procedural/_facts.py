"""Reference documents with looked-up facts: a Markdown table in the shared drive and one cell asked about.

Every value is a code, a date or an amount drawn fresh per world, unique in its table and never a substring of
another value, so "the answer contains the value" is a precise check.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from coworkenv.synth import pools
from coworkenv.synth.world_builder import DAY, Org, Person


@dataclass
class FactDoc:
    """A Markdown table document in the shared drive."""

    path: str
    title: str
    header: list[str]
    rows: list[list[str]]
    owner: str

    def markdown(self, note: str = "") -> str:
        """The document's text, with an optional note under the title."""
        lines = [
            f"# {self.title}",
            "",
            note,
            "",
            "| " + " | ".join(self.header) + " |",
            "|" + "---|" * len(self.header),
        ]
        lines += ["| " + " | ".join(r) + " |" for r in self.rows]
        return "\n".join(lines) + "\n"


@dataclass
class Fact:
    """One cell of a fact document and how a colleague asks for it."""

    doc: FactDoc
    key: str  # the row asked about, e.g. a project name
    column: str  # the column asked about
    value: str  # the answer
    question: str  # how a colleague asks for it


# topic: (file stem, title, key column, row keys, columns: (name, value maker), question template)
_Maker = Callable[[Org], str]


def _code(prefix: str, digits: int = 4) -> _Maker:
    return lambda org: f"{prefix}-{org.rng.randrange(10 ** (digits - 1), 10**digits)}"


def _date(org: Org) -> str:
    return org.iso(DAY * org.rng.randrange(20, 300))[:10]


def _amount(org: Org) -> str:
    return f"EUR {org.rng.randrange(11, 99)},{org.rng.randrange(100, 999)}"


def _phone(org: Org) -> str:
    return f"+{org.rng.randrange(30, 49)} {org.rng.randrange(100, 999)} {org.rng.randrange(1000, 9999)}"


_TOPICS: tuple[tuple[str, str, str, tuple[str, ...], tuple[tuple[str, _Maker], ...], str], ...] = (
    (
        "finance/cost-centers",
        "Project cost centers",
        "project",
        pools.PROJECTS,
        (("cost center", _code("CC")), ("approval limit", _amount), ("PO prefix", _code("PO", 5))),
        "what's the {column} for project {key}?",
    ),
    (
        "office/locations",
        "Office information",
        "office",
        pools.CITIES,
        (("reception phone", _phone), ("guest Wi-Fi", _code("guest", 3)), ("badge desk room", _code("R", 3))),
        "what's the {column} of the {key} office?",
    ),
    (
        "legal/contracts",
        "Customer contracts",
        "customer",
        pools.CUSTOMERS,
        (("contract id", _code("CT-2026", 4)), ("renewal date", _date), ("annual value", _amount)),
        "what's the {column} of the {key} contract?",
    ),
    (
        "support/escalations",
        "Escalation contacts",
        "customer",
        pools.CUSTOMERS,
        (("escalation code", _code("ESC", 4)), ("hotline", _phone), ("SLA review date", _date)),
        "what's the {column} for {key}?",
    ),
)


def make_fact(org: Org, owner: Person, n_rows: int) -> Fact:
    """A fact document with `n_rows` rows in the shared drive, and one of its cells as the question."""
    stem, title, key_name, keys, columns, question = org.rng.choice(_TOPICS)
    row_keys = org.rng.sample(keys, min(n_rows, len(keys)))
    rows: list[list[str]] = []
    seen: list[str] = []
    for key in row_keys:
        row = [key]
        for _, make in columns:
            value = make(org)
            while any(value in s or s in value for s in seen):
                value = make(org)
            seen.append(value)
            row.append(value)
        rows.append(row)
    doc = FactDoc(f"{stem}-{org.iso(0)[:4]}.md", title, [key_name, *[c for c, _ in columns]], rows, owner.id)
    org.add_file(doc.path, doc.markdown(f"Maintained by {owner.name}."), owner.id, at=-DAY * org.rng.randrange(2, 40))
    r = org.rng.randrange(len(rows))
    c = org.rng.randrange(1, len(doc.header))
    column = doc.header[c]
    return Fact(doc, rows[r][0], column, rows[r][c], question.format(column=column, key=rows[r][0]))


def add_stale_copy(org: Org, fact: Fact) -> tuple[str, str]:
    """An outdated version of the document whose asked-about cell differs; returns (path, stale value)."""
    doc = fact.doc
    c = doc.header.index(fact.column)
    all_values = [v for row in doc.rows for v in row[1:]]
    maker = next(m for name, m in next(t[4] for t in _TOPICS if doc.title == t[1]) if name == fact.column)
    stale = maker(org)
    while any(stale in v or v in stale for v in all_values):
        stale = maker(org)
    rows = [[*row[:c], stale, *row[c + 1 :]] if row[0] == fact.key else list(row) for row in doc.rows]
    year = int(org.iso(0)[:4]) - 1
    old = FactDoc(doc.path.replace(org.iso(0)[:4], str(year)), doc.title + f" ({year})", doc.header, rows, doc.owner)
    org.add_file(
        old.path,
        old.markdown(f"SUPERSEDED: see {doc.path} for current values."),
        doc.owner,
        at=-DAY * org.rng.randrange(200, 400),
    )
    return old.path, stale
