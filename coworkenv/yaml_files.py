"""User-edited YAML files read strictly: every problem is one error naming the file, the line and what to do.

PyYAML alone keeps the last of two equal keys without a word, raises errors that do not name the file, and a
schema error of pydantic names a field path, not a line; a control character it refuses is placed by a count of
characters from the start. `read_yaml` and `YAMLDocument.schema_error` give each problem as `file:line: message`, and
refuse a file far bigger than a hand-written one before reading it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError

from coworkenv.atomic import FileTooBigError, NotRegularFileError, os_reason, read_regular_file

YAML_SUFFIXES = (".yaml", ".yml")  # compared lower-cased: a file saved as `TICKETS.YAML` is YAML too

# PyYAML composes and constructs by recursion: a file nested a few hundred levels deep (brackets left open, a
# generated file gone wrong) ends in RecursionError, a traceback naming no file.
TOO_DEEP = "invalid YAML: nested too deeply to read (hundreds of levels); look for brackets left open or a " \
           "generated file gone wrong"
# Refused before any reader recurses: near Python's recursion limit even a finalizer the garbage collector happens
# to run there fails to report its own error (a traceback on stderr beside ours). A person's file nests a dozen.
MAX_YAML_DEPTH = 100


# Hand-written YAML (an area of the taxonomy, a training config, dagster.yaml) is kilobytes. PyYAML's pure-Python
# reader parses about 0.1-0.2 MB/s on a loaded machine, twice (nodes for the line numbers, then the data): a data
# export or a log saved under a .yaml name kept a run busy for minutes to hours before saying anything.
MAX_YAML_BYTES = 1 << 20

# An alias (`*name`) repeats the value its anchor (`&name`) marks. PyYAML shares that value, so the file parses at
# once, but every reader that walks the data (pydantic, a JSON dump of a spec, Dagster's config check) walks each
# repetition: nine lists of nine aliases each (an "alias bomb", 700 bytes) make 43 million values and kept
# `coworkenv import claw-eval` busy until stopped. A 1 MiB file written out holds at most about 500,000 values.
MAX_YAML_VALUES = 1_000_000
ALIAS_LOOP = ("an alias (*name) inside the collection its anchor (&name) marks: the value would hold itself without "
              "end; write the inner value out instead of the alias")


class YAMLFileError(ValueError):
    """A YAML file that cannot be used: which file, which line (1-based) and what is wrong."""

    def __init__(self, file: Path | str, line: int | None, message: str) -> None:
        self.file = Path(file)
        self.line = line
        self.message = message
        where = f"{self.file}:{line}" if line is not None else str(self.file)
        super().__init__(f"{where}: {message}")


@dataclass(frozen=True)
class YAMLDocument:
    """A parsed YAML file: its data and its node tree (which knows the line of every value)."""

    file: Path
    data: Any
    root: yaml.Node | None

    def line(self, loc: tuple[Any, ...]) -> int | None:
        """1-based line of the value at `loc` (mapping keys point at the key), or of the deepest node found."""
        return self._find(loc)[1]

    def node(self, loc: tuple[Any, ...]) -> yaml.Node | None:
        """The node of the value at `loc`, or None where the path leaves the file's tree."""
        node, _, whole = self._find(loc)
        return node if whole else None

    def _find(self, loc: tuple[Any, ...]) -> tuple[yaml.Node | None, int | None, bool]:
        """(deepest node on the way to `loc`, its line, whether it is the node at `loc`)."""
        node = self.root
        line = node.start_mark.line + 1 if node is not None else None
        for part in loc:
            if isinstance(node, yaml.MappingNode):
                match = next(((k, v) for k, v in node.value if k.value == part), None)
                if match is None:
                    return node, line, False
                line = match[0].start_mark.line + 1
                node = match[1]
            elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value):
                node = node.value[part]
                line = node.start_mark.line + 1
            else:
                return node, line, False
        return node, line, True

    def check_booleans(self, value: BaseModel, prefix: tuple[Any, ...] = (),
                       error: type[YAMLFileError] = YAMLFileError) -> None:
        """Raise `error` at a boolean written without quotes (`yes`, `on`, `true`) that `value`, validated from the
        data at `prefix`, holds as a number: pydantic takes true for 1, so `quota: yes` made one environment."""
        start = self.node(prefix)
        held = value.model_dump()
        pending: list[tuple[yaml.Node, tuple[Any, ...]]] = [(start, ())] if start is not None else []
        visited: set[int] = set()
        while pending:
            node, loc = pending.pop()
            if id(node) in visited:
                continue
            visited.add(id(node))
            if isinstance(node, yaml.MappingNode):
                pending.extend((v, (*loc, k.value)) for k, v in node.value if isinstance(k, yaml.ScalarNode))
            elif isinstance(node, yaml.SequenceNode):
                pending.extend((v, (*loc, i)) for i, v in enumerate(node.value))
            elif isinstance(node, yaml.ScalarNode) and node.tag == "tag:yaml.org,2002:bool" and node.style is None:
                number = _held_at(held, loc)
                if isinstance(number, int | float) and not isinstance(number, bool):
                    raise error(self.file, node.start_mark.line + 1,
                                f"{dotted(loc)}: YAML reads {node.value} written without quotes as a boolean "
                                f"({str(yaml.safe_load(node.value)).lower()}), and this key takes a number, so it "
                                f"would be read as {number}; write the number you mean")

    def schema_error(self, exc: ValidationError, prefix: tuple[Any, ...] = (),
                     error: type[YAMLFileError] = YAMLFileError) -> YAMLFileError:
        """The first problem of `exc` (raised validating the data at `prefix`) at its line, as `error`."""
        err = exc.errors()[0]
        loc = (*prefix, *err["loc"])
        key = dotted(tuple(err["loc"]))  # with its section (`training.max_steps`), not the prefix's path
        if err["type"] == "extra_forbidden":
            message = f"unknown key {key!r}"
        elif err["type"] == "missing":
            message = f"missing key {key!r}"
            loc = loc[:-1]
        else:
            message = f"{dotted(loc)}: {err['msg']}" if loc else err["msg"]
            if err["type"] in ("string_type", "literal_error", "enum"):  # text was expected
                message += unquoted_text_advice(self.node(loc))
        more = f" (and {exc.error_count() - 1} more problem(s))" if exc.error_count() > 1 else ""
        return error(self.file, self.line(loc), message + more)


def _held_at(held: Any, loc: tuple[Any, ...]) -> Any:
    """The value at `loc` of a model's dump (dicts by key, lists and tuples by index); None where there is none."""
    for part in loc:
        found = ((isinstance(held, dict) and part in held)
                 or (isinstance(held, list | tuple) and isinstance(part, int) and part < len(held)))
        if not found:
            return None
        held = held[part]
    return held


def read_yaml(file: Path, error: type[YAMLFileError] = YAMLFileError) -> YAMLDocument:
    """Read and parse `file`; raise `error` for an unreadable file, bytes that are not UTF-8, invalid YAML or a
    key that appears twice in one mapping."""
    text = read_config_text(file, error)
    if too_deep(text):
        raise error(file, None, TOO_DEEP)
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
        aliases = alias_problem(root)
        if aliases is not None:
            raise error(file, *aliases)
        data = yaml.safe_load(text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        # Found one line on, say, for a list left open: the line where it began is the one to fix.
        began = exc.context_mark.line + 1 if exc.context_mark is not None else line
        context = f" ({exc.context} at line {began})" if exc.problem and exc.context and began != line else ""
        tabs = " (indent with spaces: YAML takes no tabs there)" if "'\\t'" in str(exc.problem) else ""
        raise error(file, line, f"invalid YAML: {exc.problem or exc.context}{context}{tabs}") from None
    except yaml.YAMLError as exc:
        raise error(file, None, f"invalid YAML: {exc}") from None
    except RecursionError:
        raise error(file, None, TOO_DEEP) from None
    _check_unique_keys(file, root, error)
    _check_number_forms(file, root, error)
    return YAMLDocument(file, data, root)


def check_unique_keys(file: Path, error: type[YAMLFileError] = YAMLFileError) -> None:
    """Raise `error` at the second of two equal keys of one mapping in `file`, a file another library reads (which
    would keep the last one silently), a number it would read as another (`010`: octal 8, `1:30`: base 60) or nested
    too deeply for any reader; a file that cannot be read or parsed is left to that reader to report."""
    try:
        text = _config_bytes(file, "YAML").decode("utf-8")
    except _Refused as refused:
        raise error(file, None, str(refused)) from None
    except (OSError, UnicodeDecodeError):
        return
    control = control_character_problem(text)
    if control is not None:
        raise error(file, *control)
    if too_deep(text):
        raise error(file, None, TOO_DEEP)
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return
    except RecursionError:
        raise error(file, None, TOO_DEEP) from None
    aliases = alias_problem(root)
    if aliases is not None:
        raise error(file, *aliases)
    _check_unique_keys(file, root, error)
    _check_number_forms(file, root, error)


def alias_problem(root: yaml.Node | None) -> tuple[int, str] | None:
    """(line, problem) where aliases make the composed document `root` expand past MAX_YAML_VALUES values (a scalar
    counts one more value per 64 characters), or an alias sits inside the collection it names; None for a document
    a reader can walk. Counted over the shared nodes once each (a loop, linear in the file): the line is that of
    the innermost collection whose expansion is past the bound, the one whose aliases to shorten."""
    if root is None:
        return None
    sizes: dict[int, int] = {}
    open_nodes: set[int] = set()  # the collections being counted: an alias to one of them is a loop
    pending: list[tuple[yaml.Node, bool]] = [(root, False)]
    while pending:
        node, counted = pending.pop()
        inner = _inner_nodes(node)
        if counted:
            open_nodes.discard(id(node))
            size = 1 + sum(sizes[id(child)] for child in inner)
            sizes[id(node)] = size
            if size > MAX_YAML_VALUES and all(sizes[id(child)] <= MAX_YAML_VALUES for child in inner):
                return node.start_mark.line + 1, (
                    f"aliases (*name) repeat values so often that this collection reads as {size:,} values, more "
                    f"than {MAX_YAML_VALUES:,} (an alias bomb?); write the values out, or repeat fewer of them")
            continue
        if id(node) in sizes:
            continue
        if isinstance(node, yaml.ScalarNode):
            sizes[id(node)] = 1 + len(node.value) // 64
            continue
        open_nodes.add(id(node))
        pending.append((node, True))
        for child in inner:
            if id(child) in open_nodes:
                return child.start_mark.line + 1, ALIAS_LOOP
            pending.append((child, False))
    return None


def _inner_nodes(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def too_deep(text: str) -> bool:
    """Whether `text` nests more than MAX_YAML_DEPTH collections, counted over the parser's events (a loop, where
    PyYAML's composer and constructor recurse a few frames a level); text the parser refuses is left to the reader
    to report with its line. The events are read only where a bound taken from the lines allows that depth."""
    if _depth_bound(text) <= MAX_YAML_DEPTH:
        return False
    depth = 0
    try:
        for event in yaml.parse(text, Loader=yaml.SafeLoader):
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
                if depth > MAX_YAML_DEPTH:
                    return True
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
    except yaml.YAMLError:
        return False
    return False


def _depth_bound(text: str) -> int:
    """A cheap bound on the nesting of `text`: a block level takes more indentation or one more `-`, `?` or `:` on
    a line (two levels where a sequence sits at its mapping key's indentation); a flow level one bracket more."""
    block = flow = deepest_flow = 0
    for line in text.splitlines():
        stripped = line.lstrip(" ")
        block = max(block, 2 * (len(line) - len(stripped) + sum(stripped.count(c) for c in "-?:") + 1))
        for char in stripped:
            if char in "[{":
                flow += 1
                deepest_flow = max(deepest_flow, flow)
            elif char in "]}":
                flow = max(flow - 1, 0)
    return block + deepest_flow


# Control characters have names a person knows from elsewhere; the others are named by their code point only.
_CONTROL_NAMES = {0x00: "NUL", 0x1B: "ESC", 0x7F: "DEL"}


def control_character_problem(text: str) -> tuple[int, str] | None:
    """(1-based line, what to do) for the first character of `text` that YAML refuses (a NUL, a terminal's escape
    code pasted with the text, a backspace, a form feed, DEL, a C1 control), or None.

    PyYAML names it in two lines by its count of characters from the start (`in "<unicode string>", position 412`),
    with no line."""
    found = yaml.reader.Reader.NON_PRINTABLE.search(text)
    if found is None:
        return None
    at = found.start()
    line = text.count("\n", 0, at) + 1
    column = at - (text.rfind("\n", 0, at) + 1) + 1
    code = ord(found.group())
    name = f"U+{code:04X}" + (f" {_CONTROL_NAMES[code]}" if code in _CONTROL_NAMES else "")
    if code == 0 and text.count("\0") * 3 >= len(text):  # every other character: UTF-16 without its byte-order mark
        return line, (f"holds {name} at column {column} and every other character: the file looks saved as UTF-16 "
                      "without a byte-order mark; save it as UTF-8")
    why = " (a terminal's colour or cursor code pasted with the text?)" if code == 0x1B else ""
    return line, (f"holds a control character, {name}, at column {column}, which YAML does not allow{why}; delete it "
                  "(an editor that shows invisible characters finds it)")


# What YAML 1.1 (PyYAML) makes of a plain scalar that is not text, by the tag it resolves.
_READ_AS = {"tag:yaml.org,2002:bool": "a boolean", "tag:yaml.org,2002:int": "a number",
            "tag:yaml.org,2002:float": "a number", "tag:yaml.org,2002:null": "null (nothing)",
            "tag:yaml.org,2002:timestamp": "a date"}


def unquoted_text_advice(node: yaml.Node | None) -> str:
    """For text written without quotes that YAML reads as something else (`no`, `on`, `2026-12-03`, `12:30`, `~`):
    what it became and how to keep it text; "" for any other node."""
    if not isinstance(node, yaml.ScalarNode) or node.style is not None or node.tag not in _READ_AS:
        return ""
    written = node.value or "(nothing)"
    quoted = f'"{node.value}"' if node.value else '""'
    return f" (YAML reads {written} written without quotes as {_READ_AS[node.tag]}; write {quoted} to keep it as text)"


def read_config_text(file: Path, error: type[YAMLFileError] = YAMLFileError, kind: str = "YAML") -> str:
    """The text of a hand-written config file (`kind`: YAML, JSON); raise `error` for a file that is no regular file
    or far too big, unreadable, not UTF-8 or holding a control character. What is checked is the file opened, not
    the path (`read_regular_file`): one replaced by a named pipe after a look at it made the read wait for ever."""
    try:
        raw = _config_bytes(file, kind)
    except _Refused as refused:
        raise error(file, None, str(refused)) from None
    except OSError as exc:
        raise error(file, None, f"cannot read it ({os_reason(exc)}); pass a readable {kind} file") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(file, raw[: exc.start].count(b"\n") + 1, f"not UTF-8 (byte 0x{raw[exc.start]:02x}); save the "
                    "file as UTF-8") from None
    control = control_character_problem(text)
    if control is not None:
        raise error(file, *control)
    return text


class _Refused(Exception):
    """A config file that is no file to read (a pipe, a device, a socket) or far too big: what is wrong, in words."""


def _config_bytes(file: Path, kind: str) -> bytes:
    """The bytes of the config file `file`; _Refused for a special or far too big one, OSError where it cannot be
    read."""
    try:
        return read_regular_file(file, MAX_YAML_BYTES)
    except NotRegularFileError as exc:
        raise _Refused(f"is {exc.kind}, not a file: reading it would wait or never end; pass the {kind} file "
                       "itself") from None
    except FileTooBigError as exc:
        raise _Refused(_too_big_message(exc.size, kind)) from None


def _too_big_message(size: int, kind: str = "YAML") -> str:
    return (f"is {size / (1 << 20):.1f} MiB, and a hand-written {kind} file is kilobytes (the limit is "
            f"{MAX_YAML_BYTES >> 20} MiB; reading it would take minutes): is it the file you meant, or a data export "
            f"or log saved under a .{kind.lower()} name? Move it out or pass the right file")


# Plain scalars YAML 1.1 (PyYAML, and so Dagster and accelerate) reads as a number other than the one a person reads:
# a leading 0 makes `010` octal (8), a colon makes `1:30` a number in base 60 (90). YAML 1.2 reads neither so; no
# hand-written file means them, and each loaded as the other number without a word (`quota: 010`: 8 environments).
_OCTAL = re.compile(r"[-+]?0[0-7_]+")


def _number_form_problem(node: yaml.ScalarNode) -> str | None:
    """Why the plain scalar `node` is read as another number than its digits say, or None."""
    if node.style is not None or node.tag not in ("tag:yaml.org,2002:int", "tag:yaml.org,2002:float"):
        return None
    written = node.value
    read = yaml.safe_load(written)
    if ":" in written:
        return (f"YAML reads {written} written without quotes as a number in base 60 ({read}: each part after a "
                f"colon counts sixty times less); write the number you mean, or \"{written}\" in quotes to keep it "
                "as text")
    if _OCTAL.fullmatch(written) and read != int(written.replace("_", ""), 10):
        decimal = written.lstrip("+-0_") or "0"
        return (f"YAML reads {written} written without quotes as the octal number {read} (a leading 0 makes it "
                f"octal); write {written[0] if written[0] in '+-' else ''}{decimal} for the decimal number, or "
                f"\"{written}\" in quotes to keep it as text")
    return None


def _check_number_forms(file: Path, root: yaml.Node | None, error: type[YAMLFileError]) -> None:
    """`error` at the first plain scalar YAML 1.1 reads as another number than written (octal, base 60)."""
    for node in _document_nodes(root):
        problem = _number_form_problem(node) if isinstance(node, yaml.ScalarNode) else None
        if problem is not None:
            raise error(file, node.start_mark.line + 1, problem)


def _document_nodes(root: yaml.Node | None) -> Iterator[yaml.Node]:
    """Each node of the composed document once, in the file's order (aliases share nodes, and may point back up)."""
    pending = [root] if root is not None else []
    visited: set[int] = set()
    while pending:
        node = pending.pop()
        if id(node) not in visited:
            visited.add(id(node))
            yield node
            pending.extend(reversed(_inner_nodes(node)))


def dotted(loc: tuple[Any, ...]) -> str:
    """A field path as `a.b[0].c`."""
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in loc).lstrip(".")


def _check_unique_keys(file: Path, root: yaml.Node | None, error: type[YAMLFileError]) -> None:
    """`error` at the second of two equal keys in one mapping: YAML keeps the last one silently."""
    pending = [root] if root is not None else []
    visited: set[int] = set()  # aliases share nodes, and may even point back up
    while pending:
        node = pending.pop()
        if id(node) in visited:
            continue
        visited.add(id(node))
        if isinstance(node, yaml.MappingNode):
            seen: set[str] = set()
            for key, value in node.value:
                if isinstance(key, yaml.ScalarNode):
                    if key.value in seen:
                        raise error(file, key.start_mark.line + 1, f"key {key.value!r} appears twice in one "
                                                                   "mapping; keep one of them")
                    seen.add(key.value)
                pending.append(value)
        elif isinstance(node, yaml.SequenceNode):
            pending.extend(node.value)
