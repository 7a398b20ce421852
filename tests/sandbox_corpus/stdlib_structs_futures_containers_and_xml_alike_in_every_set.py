# expect: ok
# expect-kernel: ok
# value: 19
# Honest twin of the forty-sixth round's memory snippets (`memory_struct_initialised_again_while_it_packs`,
# `memory_future_callback_freed_while_it_is_scheduled`, `memory_ordered_dict_node_freed_while_it_compares`,
# `memory_deque_item_freed_while_index_compares`, `memory_element_child_freed_while_remove_compares`,
# `memory_partial_arguments_freed_while_it_calls`; functools' partials below): what a check
# does with `struct`, asyncio's futures and tasks, OrderedDicts, deques and ElementTree answers alike in every set,
# where a Struct is initialised only when it is made, asyncio runs its pure-Python futures, OrderedDicts compare,
# print, copy and pop through gates, `deque.index` compares a copy and ElementTree is pure Python: Structs made by
# format (keyword too), packed, unpacked, into and from buffers, iterated, the module's own functions and their cache,
# the errors an honest mistake gets (same exception and message), a Struct held by a class of the code's own; futures
# with done callbacks added, removed and run in order with their context, results, exceptions and cancellation, tasks
# gathered, waited, shielded, named, cancelled, counted, a queue between two tasks, a timeout, a Future subclass of the
# code's own; OrderedDicts compared with each other, with dicts and with other types (order counting only between two
# OrderedDicts), printed (empty, nested, holding itself, a subclass), copied, popped by key and from either end, with
# the same errors, moved, pickled; `deque.index` with bounds, negative and past the ends, `__index__` bounds, NaN by
# identity, its errors; XML parsed from text and a file, searched by path and tag, edited (`remove`, `insert`,
# `set`), iterated, serialised, pulled incrementally, with the parse error's position; partials called with
# positional and keyword arguments (the call's overriding the stored), nested, mapped, as sort keys, printed (a
# subclass, one holding itself), pickled, copied and deep-copied.
import asyncio
import contextvars
import copy
import functools
import io
import pickle
import struct
import xml.etree.ElementTree as ET
from collections import OrderedDict, deque

SEEN = contextvars.ContextVar("seen", default="none")


class Record:
    layout = struct.Struct("<HiQ")

    def __init__(self, *fields):
        self.fields = fields

    def dump(self):
        return self.layout.pack(*self.fields)


class Ordered(OrderedDict):
    def items(self):
        return [(key, "own") for key in self]


class Tagged(asyncio.Future):
    tag = "mine"


def error(call):
    try:
        call()
    except BaseException as exc:  # asyncio's CancelledError among them
        return type(exc).__name__, str(exc)
    return None


def structs():
    results = []
    s = struct.Struct("<IH2s")
    packed = s.pack(1, 2, b"ab")
    room = bytearray(12)
    s.pack_into(room, 2, 3, 4, b"cd")
    results.append((packed, s.unpack(packed), s.unpack_from(room, 2), s.size, s.format)
                   == (b"\x01\x00\x00\x00\x02\x00ab", (1, 2, b"ab"), (3, 4, b"cd"), 8, "<IH2s"))
    results.append(list(struct.iter_unpack(">h", b"\x00\x01\xff\xff")) == [(1,), (-1,)]
                   and [s.size for s in map(struct.Struct, ("@iq", "=iq", "5x", "0s"))] == [16, 12, 5, 0])
    results.append(struct.Struct(format="b").unpack(b"\x80") == (-128,) and struct.calcsize("P") == 8
                   and struct.unpack("?d", struct.pack("?d", True, 0.5)) == (True, 0.5))
    results.append(Record(1, -2, 3).dump() == b"\x01\x00\xfe\xff\xff\xff\x03\x00\x00\x00\x00\x00\x00\x00")
    results.append([error(call) for call in (
        lambda: struct.pack("b", 300), lambda: struct.Struct("z"), lambda: s.pack(1),
        lambda: s.unpack(b"x"), lambda: struct.pack_into("i", bytearray(2), 0, 1),
    )] == [("error", "byte format requires -128 <= number <= 127"), ("error", "bad char in struct format"),
           ("error", "pack expected 3 items for packing (got 1)"),
           ("error", "unpack requires a buffer of 8 bytes"),
           ("error", "pack_into requires a buffer of at least 4 bytes for packing 4 bytes at offset 0 "
                     "(actual buffer size is 2)")])
    struct._clearcache()
    results.append(struct.pack("<q", -1) == b"\xff" * 8)
    return results


async def produce(queue):
    for item in range(3):
        await queue.put(item)
    await queue.put(None)


async def consume(queue):
    got = []
    while (item := await queue.get()) is not None:
        got.append(item)
    return got


async def tasks(results):
    loop = asyncio.get_running_loop()
    calls = []
    future = loop.create_future()
    for name in "abc":
        future.add_done_callback(lambda f, name=name: calls.append((name, f.result(), SEEN.get())))
    removed = future.remove_done_callback(calls.append)
    SEEN.set("set")
    future.add_done_callback(lambda f: calls.append(("d", SEEN.get())), context=contextvars.copy_context())
    future.set_result(5)
    await asyncio.sleep(0)
    results.append(removed == 0 and calls == [("a", 5, "none"), ("b", 5, "none"), ("c", 5, "none"), ("d", "set")])
    failing = loop.create_future()
    failing.set_exception(ValueError("no"))
    cancelled = loop.create_future()
    cancelled.cancel("stop")
    results.append(error(failing.result) == ("ValueError", "no") and cancelled.cancelled()
                   and error(cancelled.result)[0] == "CancelledError")

    async def double(x):
        await asyncio.sleep(0)
        return 2 * x

    gathered = await asyncio.gather(*(double(i) for i in range(4)), return_exceptions=True)
    named = asyncio.create_task(double(5), name="five")
    _, pending = await asyncio.wait([named], return_when=asyncio.FIRST_COMPLETED)
    results.append(gathered == [0, 2, 4, 6] and named.get_name() == "five" and named.result() == 10
                   and not pending and await asyncio.shield(double(1)) == 2)
    sleeper = asyncio.create_task(asyncio.sleep(10))
    await asyncio.sleep(0)
    sleeper.cancel()
    outcome = await asyncio.gather(sleeper, return_exceptions=True)
    results.append(type(outcome[0]) is asyncio.CancelledError and asyncio.current_task() in asyncio.all_tasks())
    queue = asyncio.Queue()
    consumer = asyncio.create_task(consume(queue))
    await produce(queue)
    results.append(await consumer == [0, 1, 2])
    try:
        async with asyncio.timeout(0.01):
            await asyncio.sleep(10)
        timed = "no"
    except TimeoutError:
        timed = "yes"
    own = Tagged()
    loop.call_soon(own.set_result, "x")
    results.append(timed == "yes" and await own == "x" and own.tag == "mine" and asyncio.isfuture(own))


def ordered_dicts():
    results = []
    a, b = OrderedDict([("x", 1), ("y", 2)]), OrderedDict([("y", 2), ("x", 1)])
    results.append([a == b, a != b, a == dict(b), dict(b) == a, a != dict(b), a == a.copy(), a == [1], a != 3]
                   == [False, True, True, True, False, True, False, True])
    looped = OrderedDict(me=None)
    looped["me"] = looped
    results.append([repr(a), repr(OrderedDict()), repr(looped), repr(Ordered(a)), str(OrderedDict(n=a))]
                   == ["OrderedDict([('x', 1), ('y', 2)])", "OrderedDict()", "OrderedDict([('me', ...)])",
                       "Ordered([('x', 'own'), ('y', 'own')])", "OrderedDict([('n', OrderedDict([('x', 1), ('y', 2)]))])"])
    c = a.copy()
    c.move_to_end("x")
    popped = [c.pop("y"), c.pop("zz", 5), c.pop(key="x")]
    d = OrderedDict.fromkeys("abcd")
    ends = [d.popitem(), d.popitem(last=False), d.popitem(False), list(d)]
    sub = Ordered(a).copy()
    results.append(popped == [2, 5, 1] and not c and ends == [("d", None), ("a", None), ("b", None), ["c"]]
                   and type(sub) is Ordered and sub.popitem() == ("y", 2) and sub == Ordered(x=1)
                   and [error(lambda: c.pop("nope")), error(OrderedDict().popitem)]
                   == [("KeyError", "'nope'"), ("KeyError", "'dictionary is empty'")]
                   and pickle.loads(pickle.dumps(a)) == a and copy.deepcopy(a) == a and (a | {"z": 3})["z"] == 3)
    return results


class Three:
    def __index__(self):
        return 3


def deques_and_xml():
    results = []
    d, nan = deque("abcabc"), float("nan")
    results.append([d.index("a"), d.index("c"), d.index("a", 1), d.index("a", -3), d.index("b", 0, 2),
                    d.index("c", Three()), d.index("a", -100, 100), deque([nan]).index(nan)] == [0, 2, 3, 3, 1, 5, 0, 0]
                   and [error(lambda: d.index("z")), error(lambda: d.index("a", 1, 2)), error(lambda: d.index("a", "x"))]
                   == [("ValueError", "'z' is not in deque"), ("ValueError", "'a' is not in deque"),
                       ("TypeError", "slice indices must be integers or have an __index__ method")])
    root = ET.fromstring('<r a="1"><b n="x">t<c/></b><b n="y"/><d>tail</d></r>')
    second = root.findall("b")[1]
    root.remove(second)
    root.insert(0, ET.Element("e", k="v"))
    root.find("b").set("n", "z")
    results.append([child.tag for child in root] == ["e", "b", "d"] and root.find("b/c") is not None
                   and [el.tag for el in root.iter()] == ["r", "e", "b", "c", "d"] and root.findtext("d") == "tail"
                   and ET.tostring(root) == b'<r a="1"><e k="v" /><b n="z">t<c /></b><d>tail</d></r>'
                   and error(lambda: root.remove(second)) == ("ValueError", "list.remove(x): x not in list"))
    with open("doc.xml", "w") as fh:
        fh.write("<list>" + "".join(f"<item id='{n}'>{n * n}</item>" for n in range(50)) + "</list>")
    tree = ET.parse("doc.xml")
    pull = ET.XMLPullParser(["end"])
    pull.feed("<a><b>1</b>")
    pull.feed("<b>2</b></a>")
    ends = [element.tag for _, element in pull.read_events()]
    events = [(event, element.tag) for event, element in ET.iterparse(io.BytesIO(b"<x><y/></x>"), ("start", "end"))]
    try:
        ET.fromstring("<a><b></a>")
        position = None
    except ET.ParseError as exc:
        position = exc.position
    results.append(sum(int(item.text) for item in tree.getroot()) == 40425 and tree.find(".//item[@id='7']").text == "49"
                   and ends == ["b", "b", "a"] and events == [("start", "x"), ("start", "y"), ("end", "y"), ("end", "x")]
                   and position == (1, 8))
    return results


class Bound(functools.partial):
    pass


def echo(*args, **named):
    return args, named


def partials():
    p = functools.partial(echo, 1, x=2)
    looped = functools.partial(echo, [])  # a partial has no `__setstate__` in the sandbox (fifty-ninth round)
    looped.args[0].append(looped)
    shown = [repr(p).split(" at ")[0], repr(Bound(echo, "a")).split(" at ")[0], repr(looped).endswith("[...])")]
    return [[p(3), p(3, x=5, y=6), functools.partial(p, 4)(), Bound(echo, 9)(1), list(map(functools.partial(pow, 2), range(4))),
             sorted([3, 1, 2], key=functools.partial(int.__mul__, -1)), pickle.loads(pickle.dumps(p))(0),
             copy.copy(p)(0), copy.deepcopy(p)(0), shown]
            == [((1, 3), {"x": 2}), ((1, 3), {"x": 5, "y": 6}), ((1, 4), {"x": 2}), ((9, 1), {}), [1, 2, 4, 8], [3, 2, 1],
                ((1, 0), {"x": 2}), ((1, 0), {"x": 2}), ((1, 0), {"x": 2}),
                ["functools.partial(<function echo", "Bound(<function echo", True]]]


def check(**p):
    results = structs() + ordered_dicts() + deques_and_xml() + partials()
    asyncio.run(tasks(results))
    return sum(1 for ok in results if ok is True)
