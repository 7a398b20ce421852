# expect: ok
# expect-kernel: ok
# value: 1
# limits: cpu_seconds=3,wall_seconds=10
# ruff: noqa
# Not an attack: harmless standard-library calls a grader makes (Claw-Eval's, tau2's, SWE-style), run together:
# json, csv (readers over lists, generators, files and a source that grows), re, datetime, zoneinfo, decimal (its contexts, traps, flags and formats too), fractions, statistics, difflib, textwrap, html.parser, xml (etree, sax,
# minidom), email parsing and building, urllib.parse, base64, hashlib, hmac, uuid, seeded random, itertools,
# functools caches, dataclasses, enum, typing, collections, heapq, bisect, pathlib and shutil in the scratch, tempfile,
# io and the compressors, zip and tar in memory and in the scratch, struct, array, math, cmath, locale-independent
# formatting, logging to handlers and files, warnings, contextvars, time's clocks, its own signal timer, mimetypes,
# unicodedata, shlex, argparse, pprint, traceback, inspect, importlib.resources, gettext, tracemalloc, mmap, shelve,
# print, input, the display hook and faulthandler over streams of its own.
# Each answers as outside the sandbox and alike in every set (sandbox41's battery: these all did on main; the ones
# that did not have snippets of their own). Returns the items whose answer differs, as JSON text, or 1.
import json


def json_roundtrip():
        import json
        d = {"b": [1, 2.5, None, True], "a": "é", "n": 10**30}
        s = json.dumps(d, sort_keys=True, indent=2, ensure_ascii=False)
        return [json.loads(s) == d, json.dumps(json.loads('{"x": 1e400}'), allow_nan=True), len(s)]


def csv_dialects():
        import csv, io
        buf = io.StringIO()
        w = csv.DictWriter(buf, fieldnames=["a", "b"]); w.writeheader(); w.writerow({"a": 1, "b": "x,y"})
        rows = list(csv.DictReader(io.StringIO(buf.getvalue())))
        dialect = csv.Sniffer().sniff("a;b\n1;2\n")
        return [rows, dialect.delimiter, csv.Sniffer().has_header("name,age\nbob,3\n")]


def csv_readers():
        import csv, io
        out = []
        r = csv.reader(io.StringIO('a,b\r\n1,"x\r\ny",3\r\n\r\n"q""t",,\r\n'))
        out.append([list(r), r.line_num, r.dialect.delimiter])
        out.append(list(csv.reader((line for line in ["a;b", "c;d"]), delimiter=";")))
        out.append(list(csv.reader(["a\tb"], "excel-tab")) + list(csv.reader(['1,"2"'], quoting=csv.QUOTE_NONNUMERIC)))
        out.append(list(csv.DictReader(["k,v", "1,2,3", "4"], restkey="more", restval="-")))
        for bad in (lambda: csv.reader(1), lambda: csv.reader([], "nope"), lambda: list(csv.reader([b"x"])),
                    lambda: csv.reader(), lambda: list(csv.reader(['"a'], strict=True))):
            try:
                out.append(bad())
            except Exception as e:
                out.append([type(e).__name__, str(e)])
        lines = ["a,b"]

        class Grows:  # a source that ends, then has more: a reader asked again reads on
            def __iter__(self):
                return self

            def __next__(self):
                if lines:
                    return lines.pop()
                raise StopIteration

        r = csv.reader(Grows())
        out.append(list(r))
        lines.append("c,d")
        out.append([list(r), r.line_num])
        return out


def re_usage():
        import re
        m = re.fullmatch(r"(?P<y>\d{4})-(?P<m>\d\d)", "2024-05")
        return [m.groupdict(), re.sub(r"\d", lambda x: str(int(x.group()) * 2), "a1b2"), re.findall(r"(?i)ab", "AbaB"),
                re.split(r"\s+", " a  b "), re.escape("a.b"), bool(re.compile(r"^x$", re.M).search("y\nx"))]


def datetime_usage():
        import datetime as dt
        a = dt.datetime.strptime("2024-03-10 12:30", "%Y-%m-%d %H:%M")
        b = dt.datetime.fromisoformat("2024-03-10T12:30:00+02:00")
        return [a.isoformat(), b.astimezone(dt.timezone.utc).isoformat(), (a + dt.timedelta(days=40)).strftime("%A %d %B %Y"),
                dt.date(2024, 2, 29).isocalendar()[1], dt.datetime.now(dt.timezone.utc).tzinfo is dt.timezone.utc,
                dt.datetime.now().astimezone().tzname() is not None, dt.date.today().year > 2000]


def zoneinfo_usage():
        import datetime as dt, zoneinfo
        ny = zoneinfo.ZoneInfo("America/New_York")
        t = dt.datetime(2024, 3, 10, 12, tzinfo=ny)
        return [t.utcoffset().total_seconds(), t.tzname(), zoneinfo.ZoneInfo("Europe/Berlin").key,
                dt.datetime(2024, 7, 1, tzinfo=zoneinfo.ZoneInfo("Asia/Kolkata")).isoformat()]


def decimal_fractions():
        import decimal, fractions
        from decimal import Decimal, localcontext, ROUND_HALF_UP
        with localcontext() as c:
            c.prec = 5
            q = str(Decimal(1) / Decimal(7))
        return [q, str(Decimal("2.675").quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)),
                str(fractions.Fraction(3, 4) + fractions.Fraction("1/6")), str(fractions.Fraction(0.1).limit_denominator(100)),
                str(Decimal("1.10").normalize()), decimal.getcontext().prec]


def decimal_contexts():
        import contextvars, copy, decimal, fractions, pickle
        from decimal import Decimal, Context, localcontext
        out = []
        def raised(f):
            try:
                return str(f())
            except decimal.DecimalException as exc:
                return sorted(c.__name__ for c in type(exc).__mro__ if issubclass(c, decimal.DecimalException))
            except (ArithmeticError, TypeError, ValueError) as exc:
                return type(exc).__name__
        with localcontext(prec=6, rounding=decimal.ROUND_DOWN) as c:
            c.traps[decimal.Inexact] = True
            out.append(raised(lambda: Decimal(2) / 3))
            c.traps[decimal.Inexact] = False
            out += [str(Decimal(2) / 3), sorted(k.__name__ for k, v in c.flags.items() if v), str(Decimal(2).sqrt()),
                    str(Decimal(10).ln()), str(Decimal(1).exp()), str(Decimal("1.2345678").quantize(Decimal("1.00")))]
            c.clear_flags()
            out.append(sorted(k.__name__ for k, v in c.flags.items() if v))
        out += [raised(lambda: Decimal(1) / 0), raised(lambda: Decimal("abc")), raised(lambda: Decimal(0) / 0),
                raised(lambda: Decimal("1e999999") * 10), raised(lambda: Decimal("1.5") + 1.5),
                raised(lambda: Decimal(2) ** Decimal("0.5")), raised(lambda: int(Decimal("NaN"))),
                raised(lambda: Decimal("sNaN") + 1), raised(lambda: Decimal(1).quantize(Decimal("1e-30")))]
        d = Decimal("-1234567.8951")
        out += [format(d, ",.2f"), format(d, ".3e"), format(Decimal("0.125"), ".1%"), format(d, "_^20.1f"),
                format(Decimal("1.25"), ".1f"), format(Decimal("1e100"), "g"), format(d, ""), f"{Decimal('7'):>6}",
                d.as_tuple()._asdict(), str(Decimal((1, (3, 1, 4), -2))), d.as_integer_ratio(), str(d.copy_abs()),
                [str(d.quantize(Decimal("0.01"), rounding=r)) for r in (decimal.ROUND_HALF_UP, decimal.ROUND_CEILING,
                 decimal.ROUND_FLOOR, decimal.ROUND_05UP, decimal.ROUND_HALF_EVEN)],
                [Decimal("0.5") == fractions.Fraction(1, 2), Decimal("0.1") == 0.1, Decimal(2) == 2.0,
                 hash(Decimal("2.5")) == hash(2.5), hash(Decimal(7)) == hash(7), Decimal("NaN") != Decimal("NaN"),
                 Decimal(1) < fractions.Fraction(4, 3), str(sorted([Decimal("1.1"), 1, 0.5, fractions.Fraction(1, 3)])[0])],
                str(Decimal.from_float(0.1)), str(Context(prec=3).create_decimal("3.14159")), str(Context(prec=9).divide(1, 7)),
                str(pickle.loads(pickle.dumps(d))), str(copy.deepcopy(d)), pickle.loads(pickle.dumps(Context(prec=4, traps=[decimal.Inexact]))).traps[decimal.Inexact] is not False]
        decimal.setcontext(decimal.ExtendedContext)
        out.append([str(Decimal(1) / 0), str(Decimal(0) / 0), decimal.getcontext() is not decimal.ExtendedContext])
        decimal.setcontext(decimal.DefaultContext)
        seen = []
        with localcontext() as c:
            c.prec = 3
            seen.append(decimal.getcontext() is c)
            seen.append(contextvars.copy_context().run(lambda: str(Decimal(1) / 7)))
        out += [seen, decimal.getcontext().prec, decimal.MAX_PREC, decimal.__version__, isinstance(Decimal(1), decimal.Decimal),
                issubclass(decimal.FloatOperation, TypeError), str(sum([Decimal("0.1")] * 10)), str(round(Decimal("2.675"), 2)),
                round(Decimal("2.5")), str(Decimal("1.30").normalize()), Decimal("12.5").adjusted(), str(Decimal(10) % 3)]
        return out


def statistics_usage():
        import statistics as st
        xs = [2, 4, 4, 4, 5, 5, 7, 9]
        return [st.mean(xs), st.median(xs), round(st.stdev(xs), 6), st.mode(xs), st.quantiles(xs, n=4),
                round(st.correlation(xs, list(range(8))), 6), [round(v, 6) for v in st.linear_regression(list(range(8)), xs)],
                round(st.NormalDist(0, 1).cdf(1.0), 6), st.fmean([1.5, 2.5]), st.harmonic_mean([1, 2])]


def difflib_textwrap():
        import difflib, textwrap
        a, b = "the quick brown fox".split(), "the quick red fox".split()
        return [round(difflib.SequenceMatcher(None, "abcd", "abed").ratio(), 4), list(difflib.unified_diff(a, b, lineterm="")),
                difflib.get_close_matches("appel", ["apple", "ape", "peach"]), len(difflib.HtmlDiff().make_table(a, b)) > 0,
                textwrap.wrap("a " * 30, 20), textwrap.dedent("  x\n  y"), textwrap.shorten("Hello  world, nice day", 12),
                textwrap.indent("a\nb", "> "), textwrap.fill("word " * 5, 10)]


def html_parser():
        import html
        from html.parser import HTMLParser
        class P(HTMLParser):
            def __init__(self):
                super().__init__(); self.seen = []
            def handle_starttag(self, tag, attrs): self.seen.append((tag, dict(attrs)))
            def handle_data(self, data): self.seen.append(data.strip())
        p = P(); p.feed("<div class='a'><p>Hi &amp; bye</p><br/></div>"); p.close()
        return [p.seen, html.escape("<a href='x'>"), html.unescape("&lt;&eacute;&#x41;")]


def xml_etree():
        import io, xml.etree.ElementTree as ET, xml.dom.minidom, xml.sax, xml.sax.handler
        root = ET.fromstring("<r><i n='1'>a</i><i n='2'>b</i></r>")
        items = [(e.get("n"), e.text) for e in root.iter("i")]
        ev = [(e, el.tag) for e, el in ET.iterparse(io.BytesIO(b"<a><b/></a>"), events=("start", "end"))]
        new = ET.Element("x", y="1"); ET.SubElement(new, "z").text = "t"
        class H(xml.sax.handler.ContentHandler):
            names = []
            def startElement(self, name, attrs): self.names.append(name)
        xml.sax.parseString(b"<a><b/><c/></a>", H())
        dom = xml.dom.minidom.parseString("<a><b>t</b></a>")
        return [items, ev, ET.tostring(new, encoding="unicode"), H.names, dom.getElementsByTagName("b")[0].firstChild.data,
                root.find("./i[@n='2']").text, len(dom.toprettyxml())]


def email_parsing():
        import email, email.policy, email.utils
        from email.message import EmailMessage
        raw = "From: Ann <ann@example.com>\nTo: bob@example.com\nSubject: =?utf-8?q?h=C3=A9llo?=\nDate: Tue, 05 Mar 2024 10:00:00 +0100\nContent-Type: text/plain; charset=utf-8\n\nBody text\n"
        m = email.message_from_string(raw, policy=email.policy.default)
        e = EmailMessage(); e["Subject"] = "s"; e["From"] = "a@b.c"; e.set_content("hi"); e.add_attachment(b"xx", maintype="application", subtype="octet-stream", filename="f.bin")
        again = email.message_from_bytes(e.as_bytes(), policy=email.policy.default)
        return [str(m["subject"]), email.utils.parseaddr(m["from"]), m.get_content().strip(),
                email.utils.parsedate_to_datetime(m["date"]).isoformat(), [p.get_filename() for p in again.iter_attachments()],
                email.utils.formataddr(("Ann", "ann@example.com")), len(email.utils.formatdate(localtime=True)) > 10,
                email.utils.make_msgid(domain="example.com").endswith("@example.com>")]


def urllib_parse():
        from urllib.parse import urlparse, parse_qs, quote, unquote, urlencode, urljoin, urlsplit, urlunsplit
        u = urlparse("https://user@ex.com:8080/p/a?q=1&q=2#f")
        return [u.hostname, u.port, parse_qs(u.query), quote("a b/c"), unquote("%C3%A9"), urlencode({"a": "x y", "b": 2}),
                urljoin("https://a.com/x/y", "../z"), urlunsplit(urlsplit("http://a/b?c"))]


def base64_binascii():
        import base64, binascii, codecs, quopri
        return [base64.b64encode(b"hi").decode(), base64.urlsafe_b64decode("aGk=").decode(), base64.b32encode(b"x").decode(),
                base64.b85encode(b"xy").decode(), base64.a85encode(b"xy").decode(), binascii.hexlify(b"ab").decode(),
                codecs.encode("abc", "rot13"), quopri.encodestring(b"caf\xe9").decode(), base64.b16decode("4142").decode()]


def hashlib_hmac():
        import hashlib, hmac, io
        return [hashlib.sha256(b"x").hexdigest()[:16], hashlib.md5(b"x").hexdigest()[:8], hashlib.blake2b(b"x", digest_size=8).hexdigest(),
                hashlib.sha3_256(b"x").hexdigest()[:8], hashlib.pbkdf2_hmac("sha256", b"pw", b"salt", 1000).hex()[:8],
                hashlib.scrypt(b"pw", salt=b"s", n=16, r=8, p=1).hex()[:8], hashlib.file_digest(io.BytesIO(b"x"), "sha1").hexdigest()[:8],
                hmac.new(b"k", b"m", "sha256").hexdigest()[:8], hmac.compare_digest("a", "a"), hashlib.new("sha512", b"x").hexdigest()[:8],
                "sha256" in hashlib.algorithms_available, hmac.digest(b"k", b"m", "sha1").hex()[:8]]


def uuid_random_secrets():
        import uuid, random, secrets
        r = random.Random(42); l = list(range(10)); r.shuffle(l)
        random.seed(7); g = [random.randint(1, 100) for _ in range(3)]
        u = uuid.uuid4()
        return [u.version, len(str(u)), str(uuid.uuid5(uuid.NAMESPACE_DNS, "example.com")), str(uuid.uuid3(uuid.NAMESPACE_URL, "x")),
                l, r.sample(range(100), 3), r.choices("abc", k=4), g, round(r.gauss(0, 1), 6), len(secrets.token_hex(8)),
                0 <= random.SystemRandom().random() < 1, len(secrets.token_urlsafe(8)) > 0, uuid.UUID("12345678123456781234567812345678").hex[:4]]


def itertools_functools():
        import itertools as it, functools, operator
        @functools.lru_cache(maxsize=None)
        def fib(n): return n if n < 2 else fib(n - 1) + fib(n - 2)
        @functools.cache
        def sq(n): return n * n
        @functools.singledispatch
        def kind(x): return "obj"
        @kind.register
        def _(x: int): return "int"
        class C:
            @functools.cached_property
            def v(self): return 3
        @functools.total_ordering
        class V:
            def __init__(self, x): self.x = x
            def __eq__(self, o): return self.x == o.x
            def __lt__(self, o): return self.x < o.x
        return [fib(80), fib.cache_info().hits > 0, sq(4), kind(1), kind("a"), C().v, V(1) <= V(2),
                functools.reduce(operator.mul, range(1, 6)), functools.partial(pow, 2)(10),
                [(k, len(list(g))) for k, g in it.groupby("aabbbc")], list(it.permutations("ab")), list(it.accumulate([1, 2, 3])),
                list(it.pairwise("abc")), list(it.islice(it.count(5), 3)), list(it.chain.from_iterable([[1], [2]])),
                list(it.zip_longest("ab", "c", fillvalue="-")), len(list(it.product("ab", repeat=3))), list(it.combinations(range(4), 2))[:2]]


def dataclasses_enum_typing():
        import dataclasses, enum, typing
        @dataclasses.dataclass(frozen=True, order=True)
        class P:
            x: int
            tags: list = dataclasses.field(default_factory=list, compare=False)
        @dataclasses.dataclass(slots=True)
        class S:
            a: int = 1
        class Color(enum.Enum):
            RED = enum.auto(); BLUE = enum.auto()
        class Perm(enum.Flag):
            R = enum.auto(); W = enum.auto()
        class Sz(enum.StrEnum):
            S = "s"
        class TD(typing.TypedDict):
            a: int
        class NT(typing.NamedTuple):
            a: int
            b: str = "x"
        @typing.runtime_checkable
        class Closable(typing.Protocol):
            def close(self) -> None: ...
        def f(a: typing.Optional[int], b: list[str]) -> typing.Literal["x"]: ...
        return [dataclasses.asdict(P(1, ["t"])), P(1) < P(2), dataclasses.replace(P(1), x=5).x, S().a, [f.name for f in dataclasses.fields(P)],
                Color.RED.value, Color["BLUE"].name, str(Perm.R | Perm.W), Sz.S == "s", NT(1)._asdict(), isinstance(open, Closable),
                str(typing.get_type_hints(f)["b"]), typing.get_origin(list[int]).__name__, typing.get_args(typing.Union[int, str])[1].__name__,
                TD(a=1), enum.IntEnum("E", "A B").B.value]


def collections_heapq_bisect():
        import collections, heapq, bisect
        c = collections.Counter("abracadabra")
        d = collections.defaultdict(list); d["k"].append(1)
        dq = collections.deque(range(5), maxlen=3); dq.rotate(1)
        Pt = collections.namedtuple("Pt", "x y")
        od = collections.OrderedDict(a=1, b=2); od.move_to_end("a")
        h = [5, 1, 4]; heapq.heapify(h); heapq.heappush(h, 0)
        a = [1, 3, 5]; bisect.insort(a, 4)
        return [c.most_common(2), dict(d), list(dq), Pt(1, 2)._replace(y=3), list(od), heapq.heappop(h), heapq.nlargest(2, [3, 9, 1]),
                list(heapq.merge([1, 4], [2, 3])), a, bisect.bisect_left(a, 4), dict(collections.ChainMap({"a": 1}, {"a": 2, "b": 3})),
                sorted((c + collections.Counter("xyz")).keys())[:3]]


def pathlib_scratch():
        import pathlib, os, glob, fnmatch, shutil
        base = pathlib.Path.cwd() / "out"
        (base / "sub").mkdir(parents=True, exist_ok=True)
        (base / "a.txt").write_text("hello", encoding="utf-8")
        (base / "sub" / "b.json").write_bytes(b"{}")
        (base / "a.txt").rename(base / "c.txt")
        shutil.copy(base / "c.txt", base / "sub" / "d.txt")
        found = sorted(p.relative_to(base).as_posix() for p in base.rglob("*"))
        st = (base / "c.txt").stat()
        g = sorted(os.path.basename(x) for x in glob.glob(str(base / "**" / "*.txt"), recursive=True))
        walked = sorted(f for _, _, fs in os.walk(base) for f in fs)
        (base / "c.txt").unlink(); shutil.rmtree(base / "sub")
        return [found, st.st_size, g, walked, fnmatch.fnmatch("x.py", "*.py"), base.exists(), list(base.iterdir()),
                pathlib.Path("a/b/../c.tar.gz").suffixes, pathlib.PurePosixPath("/a/b").parent.as_posix(),
                pathlib.Path("x").resolve().parent == pathlib.Path.cwd().resolve(), os.path.samefile(".", os.getcwd())]


def tempfile_usage():
        import tempfile, os
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "f"); open(p, "w").write("x"); inside = os.listdir(d)
        with tempfile.NamedTemporaryFile("w+", suffix=".txt", delete=True) as f:
            f.write("abc"); f.seek(0); read = f.read()
        fd, path = tempfile.mkstemp(); os.write(fd, b"z"); os.close(fd); os.unlink(path)
        with tempfile.SpooledTemporaryFile(max_size=10) as s:
            s.write(b"x" * 100); s.seek(0); spooled = len(s.read())
        with tempfile.TemporaryFile() as t:
            t.write(b"q"); t.seek(0); tf = t.read()
        return [inside, read, spooled, tf.decode(), os.path.isdir(tempfile.gettempdir()), os.path.exists(d)]


def io_compression():
        import io, gzip, zlib, bz2, lzma
        data = b"abc" * 1000
        buf = io.BytesIO()
        with gzip.GzipFile(fileobj=buf, mode="wb") as g: g.write(data)
        co = zlib.compressobj(9); z = co.compress(data) + co.flush()
        w = io.TextIOWrapper(io.BytesIO(), encoding="utf-8"); w.write("é"); w.flush()
        return [gzip.decompress(buf.getvalue()) == data, gzip.decompress(gzip.compress(data, mtime=0)) == data, zlib.decompress(z) == data,
                zlib.crc32(b"x"), zlib.adler32(b"x"), bz2.decompress(bz2.compress(data)) == data, lzma.decompress(lzma.compress(data)) == data,
                w.buffer.getvalue().hex(), io.StringIO("a\nb").readlines()]


def zip_tar_memory():
        import io, zipfile, tarfile
        zb = io.BytesIO()
        with zipfile.ZipFile(zb, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr("a/b.txt", "hi"); z.writestr("c.json", "{}")
        with zipfile.ZipFile(io.BytesIO(zb.getvalue())) as z:
            names = z.namelist(); txt = z.read("a/b.txt").decode(); test = z.testzip()
            zp = [p.name for p in zipfile.Path(z).iterdir()]
        tb = io.BytesIO()
        with tarfile.open(fileobj=tb, mode="w:gz") as t:
            info = tarfile.TarInfo("x.txt"); payload = b"data"; info.size = len(payload); t.addfile(info, io.BytesIO(payload))
        tb.seek(0)
        with tarfile.open(fileobj=tb, mode="r:gz") as t:
            members = t.getnames(); content = t.extractfile("x.txt").read().decode()
        return [names, txt, test, sorted(zp), members, content]


def zip_tar_scratch():
        import zipfile, tarfile, shutil, os
        os.makedirs("src/d", exist_ok=True)
        open("src/d/f.txt", "w").write("x")
        with zipfile.ZipFile("a.zip", "w") as z:
            z.write("src/d/f.txt")
        with zipfile.ZipFile("a.zip") as z:
            z.extractall("outz")
        with tarfile.open("a.tar", "w") as t:
            t.add("src")
        with tarfile.open("a.tar") as t:
            t.extractall("outt", filter="data")
        arc = shutil.make_archive("arch", "gztar", "src")
        shutil.unpack_archive(arc, "outa")
        return [os.path.exists("outz/src/d/f.txt"), os.path.exists("outt/src/d/f.txt"), os.path.exists("outa/d/f.txt"), os.path.basename(arc)]


def struct_array_math():
        import struct, array, math, cmath, sys
        a = array.array("i", [1, 2, 3]); a.append(4)
        return [struct.pack("<IhB", 1, -2, 3).hex(), struct.unpack(">d", struct.pack(">d", 1.5)), struct.calcsize("@qi"),
                a.tobytes().hex()[:8], a.itemsize, memoryview(b"abcd")[1:3].tobytes().decode(), math.isqrt(10**20), math.comb(10, 3),
                math.fsum([0.1] * 10), math.prod([1, 2, 3]), math.dist((0, 0), (3, 4)), round(math.log(math.e), 9), math.gcd(12, 18), math.lcm(4, 6),
                str(cmath.sqrt(-1)), round(cmath.phase(1j), 6), [round(v, 6) for v in cmath.polar(1 + 1j)], math.isclose(0.1 + 0.2, 0.3),
                sys.byteorder, math.inf > 0, sys.maxsize > 2**31, sys.float_info.dig]


def locale_formatting():
        import locale, string
        locale.setlocale(locale.LC_ALL, "C.UTF-8")
        a = locale.format_string("%d", 1234567, grouping=True)
        conv = locale.localeconv()
        t = string.Template("$who likes $what").substitute(who="tim", what="pie")
        return [a, conv["decimal_point"], locale.str(1.5), locale.atof("2.5"), f"{1234567.891:,.2f}", format(1234567, "_"), format(0.25, ".1%"),
                "{:>8}|{:<4}|{:^5}".format("a", "b", "c"), "%05.1f %s %r" % (3.14159, "x", "y"), t, 
                locale.strxfrm("b") > locale.strxfrm("a"), string.Formatter().format("{0}-{x}", 1, x=2), format(12345.678, "n"),
                locale.setlocale(locale.LC_NUMERIC), locale.currency(1.5) if conv["currency_symbol"] else "no currency"]


def locale_names():
        import locale
        out = []
        for name in ("en_US.UTF-8", "de_DE.UTF-8", "C", "POSIX", "C.utf8"):
            try:
                out.append(locale.setlocale(locale.LC_ALL, name))
            except locale.Error as e:
                out.append("Error")
        locale.setlocale(locale.LC_ALL, "C")
        return [out, locale.getlocale(), locale.normalize("en_US")]


def logging_handlers():
        import logging, logging.handlers, logging.config, io, queue, warnings, os
        buf = io.StringIO()
        log = logging.getLogger("grader"); log.setLevel(logging.DEBUG); log.propagate = False
        h = logging.StreamHandler(buf); h.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s %(process)d %(thread)d %(threadName)s %(funcName)s:%(lineno)d %(message)s"))
        log.addHandler(h)
        log.info("hello %s", "x"); log.warning("w")
        try:
            1 / 0
        except ZeroDivisionError:
            log.exception("boom")
        fh = logging.FileHandler("grader.log"); log.addHandler(fh); log.error("to file"); fh.close(); log.removeHandler(fh)
        rh = logging.handlers.RotatingFileHandler("rot.log", maxBytes=50, backupCount=2); log.addHandler(rh)
        for i in range(10): log.error("rotating %d", i)
        rh.close(); log.removeHandler(rh)
        q = queue.Queue(); qh = logging.handlers.QueueHandler(q); log.addHandler(qh); log.info("queued"); log.removeHandler(qh)
        mh = logging.handlers.MemoryHandler(10, target=h); log.addHandler(mh); log.info("mem"); mh.flush(); log.removeHandler(mh)
        logging.config.dictConfig({"version": 1, "disable_existing_loggers": False, "handlers": {"s": {"class": "logging.StreamHandler", "stream": "ext://sys.stdout"}}, "root": {"handlers": ["s"], "level": "INFO"}})
        logging.getLogger().info("via dictConfig")
        logging.captureWarnings(True); warnings.warn("captured"); logging.captureWarnings(False)
        logging.basicConfig(stream=io.StringIO(), force=True, level=logging.DEBUG)
        logging.debug("basic")
        lines = buf.getvalue().splitlines()
        records = [l.split(" ")[2] for l in lines if l[:2] == "20"]  # asctime's year, then level
        return [records, "ZeroDivisionError" in buf.getvalue(), open("grader.log").read().strip(), sorted(f for f in os.listdir(".") if ".log" in f), q.qsize()]


def logging_timed_and_watched():
        import logging, logging.handlers
        t = logging.handlers.TimedRotatingFileHandler("timed.log", when="midnight", backupCount=1)
        w = logging.handlers.WatchedFileHandler("watched.log")
        log = logging.getLogger("t2"); log.addHandler(t); log.addHandler(w); log.error("x")
        t.close(); w.close()
        return [open("timed.log").read(), open("watched.log").read()]


def warnings_usage():
        import warnings, io
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            warnings.warn("old", DeprecationWarning)
            warnings.warn_explicit("x", UserWarning, "f.py", 3)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            try:
                warnings.warn("as error")
                raised = False
            except UserWarning:
                raised = True
        warnings.filterwarnings("ignore", category=ResourceWarning)
        warnings.warn("to stderr")
        s = io.StringIO(); warnings.showwarning("m", UserWarning, "f.py", 1, file=s)
        return [[str(w.message) for w in caught], [w.category.__name__ for w in caught], raised, "UserWarning" in s.getvalue(),
                warnings.formatwarning("m", UserWarning, "f.py", 1).strip()]


def contextvars_usage():
        import contextvars
        v = contextvars.ContextVar("v", default=0)
        tok = v.set(5)
        ctx = contextvars.copy_context()
        inner = ctx.run(lambda: (v.set(9), v.get())[1])
        v.reset(tok)
        return [v.get(), inner, ctx[v], len(list(ctx.keys())) >= 1]


def time_clocks():
        import time
        a, b, c, d = time.monotonic(), time.perf_counter(), time.process_time(), time.thread_time()
        time.sleep(0.01)
        ns = time.monotonic_ns(), time.perf_counter_ns(), time.process_time_ns(), time.time_ns()
        return [time.monotonic() > a, time.perf_counter() > b, time.process_time() >= c, time.thread_time() >= d, all(x > 0 for x in ns[:1]),
                time.get_clock_info("monotonic").monotonic, time.strftime("%Y", time.gmtime(0)), time.localtime().tm_year > 2000,
                time.tzname[0], time.strftime("%Z"), time.timezone, time.mktime(time.localtime(1000)), time.asctime(time.gmtime(0))]


def resource_getrlimit_pagesize():
        import resource
        return [resource.getrlimit(resource.RLIMIT_CPU)[0] > 0, resource.getpagesize()]


def signal_alarm_timeout():
        import signal
        class Timeout(Exception): pass
        def on_alarm(signum, frame): raise Timeout()
        old = signal.signal(signal.SIGALRM, on_alarm)
        signal.setitimer(signal.ITIMER_REAL, 0.05)
        try:
            n = 0
            while True: n += 1
        except Timeout:
            hit = True
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0); signal.alarm(0); signal.signal(signal.SIGALRM, old)
        signal.setitimer(signal.ITIMER_REAL, 0.02); signal.signal(signal.SIGALRM, lambda *a: None); r = signal.sigtimedwait if False else None
        signal.setitimer(signal.ITIMER_REAL, 0)
        return [hit, signal.getsignal(signal.SIGINT) is signal.default_int_handler, signal.Signals.SIGTERM.name, signal.strsignal(signal.SIGTERM)]


def unicodedata_shlex():
        import unicodedata, shlex
        return [unicodedata.normalize("NFKD", "é"), unicodedata.name("é"), unicodedata.category("A"), unicodedata.east_asian_width("中"),
                shlex.split("a 'b c' \"d e\""), shlex.quote("a b"), shlex.join(["x", "y z"]), unicodedata.unidata_version > "10"]


def argparse_usage():
        import argparse, io, contextlib
        p = argparse.ArgumentParser(prog="grade", description="d")
        p.add_argument("--n", type=int, default=3); p.add_argument("files", nargs="*"); p.add_argument("-v", action="store_true")
        ns = p.parse_args(["--n", "5", "a", "b", "-v"])
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            try:
                p.parse_args(["--help"])
            except SystemExit as e:
                code = e.code
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            try:
                p.parse_args(["--n", "x"])
            except SystemExit as e:
                code2 = e.code
        return [vars(ns), code, "usage: grade" in out.getvalue(), code2, "invalid int" in err.getvalue(), p.format_usage()]


def pprint_traceback():
        import pprint, traceback, sys, io
        try:
            {}["missing"]
        except KeyError:
            tb = traceback.format_exc()
            exc = sys.exc_info()
        te = traceback.TracebackException(*exc)
        s = io.StringIO(); traceback.print_exception(exc[1], file=s)
        stack = traceback.extract_stack()
        return [pprint.pformat({"b": list(range(30)), "a": 1}, width=40).count("\n") > 2, "KeyError: 'missing'" in tb,
                "".join(te.format_exception_only()).strip(), "KeyError" in s.getvalue(), len(stack) >= 1,
                traceback.format_exception_only(ValueError, ValueError("x"))[0].strip(), pprint.saferepr([1, {2: 3}]), len(traceback.format_stack()) >= 1]


def inspect_members():
        import inspect, json
        def f(a, b=2, *args, c, **kw): pass
        return [list(inspect.signature(f).parameters), inspect.getfullargspec(f).kwonlyargs, len(inspect.getmembers(json)) > 5,
                inspect.getmodule(json.dumps).__name__, inspect.getsource(json.dumps).startswith("def dumps"), inspect.isclass(int),
                inspect.getdoc(f), inspect.cleandoc("  a\n  b"), inspect.currentframe().f_code.co_name, inspect.stack()[0].function]


def importlib_resources():
        import importlib.resources as ir, importlib, importlib.util
        j = ir.files("json").joinpath("__init__.py").read_text(encoding="utf-8")
        listed = sorted(p.name for p in ir.files("json").iterdir() if p.name.endswith(".py"))
        with ir.as_file(ir.files("json") / "decoder.py") as path:
            exists = path.exists()
        return [j.startswith('r"""JSON'), listed[:3], exists, importlib.util.find_spec("csv") is not None, importlib.import_module("string").digits,
                ir.is_resource("json", "encoder.py") if hasattr(ir, "is_resource") else True]


def gettext_usage():
        import gettext
        t = gettext.translation("grader", localedir="locale", languages=["fr"], fallback=True)
        gettext.install("grader")
        _ = t.gettext
        return [_("hello"), gettext.gettext("x"), gettext.ngettext("a", "as", 2), t.ngettext("one", "many", 1), _("y"),
                gettext.find("grader", "locale") is None, gettext.dgettext("dom", "z")]


def misc_std_modules():
        import copy, weakref, gc, operator, calendar, ipaddress, configparser, tomllib, plistlib, string, secrets, keyword, fractions
        import http, http.cookies, mimetypes, colorsys, numbers, abc, types, reprlib, sched, queue, graphlib, zlib
        ts = graphlib.TopologicalSorter({"b": {"a"}, "c": {"b"}})
        cp = configparser.ConfigParser(); cp.read_string("[s]\nk = v\n")
        class O: pass
        o = O(); r = weakref.ref(o)
        ck = http.cookies.SimpleCookie(); ck["a"] = "b"
        return [copy.deepcopy({"a": [1]}), r() is o, gc.collect() >= 0, calendar.isleap(2024), calendar.monthrange(2024, 2), calendar.month(2024, 1).splitlines()[0].strip(),
                str(ipaddress.ip_address("10.0.0.1")), ipaddress.ip_network("10.0.0.0/30").num_addresses, cp["s"]["k"], tomllib.loads("a = 1")["a"],
                plistlib.loads(plistlib.dumps({"a": 1})), http.HTTPStatus(404).phrase, ck.output(), list(ts.static_order()), keyword.iskeyword("for"),
                reprlib.repr(list(range(100)))[:10], colorsys.rgb_to_hsv(1, 0, 0)]


def mimetypes_guess():
        import mimetypes
        return [mimetypes.guess_type("a.json")[0], mimetypes.guess_type("x.tar.gz"), mimetypes.guess_extension("text/html"), mimetypes.types_map.get(".csv")]


def mimetypes_init():
        import mimetypes
        mimetypes.init()
        return mimetypes.guess_type("a.png")[0]


def terminal_size():
        import shutil, os
        try:
            os.get_terminal_size(); direct = "tty"
        except OSError:
            direct = "OSError"
        return [tuple(shutil.get_terminal_size((80, 24))), direct]


def faulthandler_enable():
        import faulthandler, sys, io
        faulthandler.enable()
        on = faulthandler.is_enabled()
        faulthandler.dump_traceback(sys.stderr)
        faulthandler.disable()
        return on


def sched_affinity():
        import os
        return len(os.sched_getaffinity(0)) >= 1


def tracemalloc_gc():
        import tracemalloc, gc, sys
        tracemalloc.start()
        x = [bytes(1000) for _ in range(100)]
        cur, peak = tracemalloc.get_traced_memory()
        snap = tracemalloc.take_snapshot(); top = snap.statistics("lineno")[:1]
        tracemalloc.stop()
        return [cur > 50000, peak >= cur, len(top), sys.getsizeof(x) > 0, gc.isenabled(), len(gc.get_stats()), sys.getrecursionlimit() > 100]


def mmap_anonymous():
        import mmap
        m = mmap.mmap(-1, 4096); m.write(b"abc"); m.seek(0); v = m.read(3); m.close()
        with open("m.bin", "wb") as f: f.write(b"x" * 10)
        with open("m.bin", "r+b") as f:
            mm = mmap.mmap(f.fileno(), 0); first = mm[:2]; mm.close()
        return [v.decode(), first.decode()]


def fileinput_filecmp_linecache():
        import fileinput, filecmp, linecache, os
        open("a.txt", "w").write("l1\nl2\n"); open("b.txt", "w").write("l1\nl2\n")
        with fileinput.input(files=["a.txt", "b.txt"]) as f:
            n = sum(1 for _ in f)
        return [n, filecmp.cmp("a.txt", "b.txt", shallow=False), linecache.getline(os.path.abspath("a.txt"), 2).strip(),
                filecmp.dircmp(".", ".").same_files[:0]]


def calendar_text_locale():
        import calendar
        return [calendar.LocaleTextCalendar(locale="C.UTF-8").formatmonthname(2024, 1, 0).strip(), calendar.day_name[0], calendar.TextCalendar().formatweekheader(2)]


def pickle_copyreg_shelve():
        import pickle, shelve, json, dbm
        with shelve.open("sh") as s:
            s["k"] = {"v": 1}
        with shelve.open("sh") as s:
            v = s["k"]
        return [pickle.loads(pickle.dumps({"a": (1, 2)})), v, dbm.whichdb("sh") is not None]


def random_module_state():
        import random
        st = random.getstate(); a = random.random(); random.setstate(st)
        return [a == random.random(), random.Random("seed").randrange(1000), round(random.Random(1).uniform(1, 2), 6),
                random.Random(3).getrandbits(16), round(random.Random(2).triangular(), 6), random.Random(5).randbytes(2).hex()]


def string_and_text_builtins():
        import string
        return ["Straße".casefold(), "ß".upper(), "abc".translate(str.maketrans("a", "x")), string.capwords("hi there"), "%(a)s" % {"a": 1},
                "{0!r:>6}".format("x"), f"{3.14159:.2e}", f"{255:#x} {255:08b}", "x".zfill(3), "a\tb".expandtabs(4), "ß".encode("idna").decode() if False else "",
                "日本".encode("shift_jis").hex(), b"caf\xc3\xa9".decode("utf-8"), "é".encode("latin-1").hex(), int("١٢", 10), str(10**100)[:5]]



def standard_streams():
        import builtins, code, contextlib, doctest, faulthandler, io, os, sys
        buf = io.StringIO()
        print("a", 1, None, sep="-", end="!\n", file=buf, flush=True)
        print("x", "y", sep=None, end=None, file=buf)
        with contextlib.redirect_stdout(io.StringIO()) as shown:
            print("redirected", 2)
            sys.displayhook(42)
            sys.displayhook(None)
            sys.__displayhook__("s")
            code.InteractiveInterpreter().runsource("1 + 2")
        underscore = builtins._
        errors = []
        for bad in ({"sep": 3}, {"end": 4.5}, {"file": 7}):
            try:
                print("z", **bad)
            except Exception as e:
                errors.append(f"{type(e).__name__}: {e}")
        saved_in, saved_out = sys.stdin, sys.stdout
        try:
            sys.stdout = None
            errors.append(repr(print("lost")))
            try:
                sys.displayhook(1)
            except RuntimeError as e:
                errors.append(str(e))
            del sys.stdout
            try:
                print("q")
            except RuntimeError as e:
                errors.append(str(e))
            sys.stdin, sys.stdout = io.StringIO("line one\nline two\n"), io.StringIO()
            lines = [input("p> "), input(), sys.stdout.getvalue()]
            try:
                input()
            except EOFError as e:
                errors.append(repr(e))
        finally:
            sys.stdin, sys.stdout = saved_in, saved_out
        test = doctest.DocTestParser().get_doctest(">>> 6 * 7\n42\n>>> [1, 2]\n[1, 2]\n", {}, "t", "t", 0)
        runner = doctest.DocTestRunner()
        with contextlib.redirect_stdout(io.StringIO()):
            runner.run(test)
        with open("traceback.txt", "w") as f:
            faulthandler.dump_traceback(f, all_threads=False)
        return [buf.getvalue(), shown.getvalue(), underscore, errors, lines, list(runner.summarize(verbose=False)),
                os.path.getsize("traceback.txt") > 0]


EXPECTED = {'standard_streams': ['a-1-None!\nx y\n', "redirected 2\n42\n's'\n3\n", 3, ['TypeError: sep must be None or a string, not int', 'TypeError: end must be None or a string, not float', "AttributeError: 'int' object has no attribute 'write'", 'None', 'lost sys.stdout', 'lost sys.stdout', "EOFError('EOF when reading a line')"], ['line one', 'line two', 'p> '], [0, 2], True],
 'argparse_usage': [{'files': ['a', 'b'], 'n': 5, 'v': True}, 0, True, 2, True,
                    'usage: grade [-h] [--n N] [-v] [files ...]\n'],
 'base64_binascii': ['aGk=', 'hi', 'PA======', 'czF', 'G^0', '6162', 'nop', 'caf=E9', 'AB'],
 'calendar_text_locale': ['January 2024', 'Monday', 'Mo Tu We Th Fr Sa Su'],
 'collections_heapq_bisect': [[['a', 5], ['b', 2]], {'k': [1]}, [4, 2, 3], [1, 3], ['b', 'a'], 0, [9, 3],
                              [1, 2, 3, 4], [1, 3, 4, 5], 2, {'a': 1, 'b': 3}, ['a', 'b', 'c']],
 'contextvars_usage': [0, 9, 9, True],
 'csv_dialects': [[{'a': '1', 'b': 'x,y'}], ';', True],
 'csv_readers': [[[['a', 'b'], ['1', 'x\r\ny', '3'], [], ['q"t', '', '']], 5, ','], [['a', 'b'], ['c', 'd']],
                 [['a', 'b'], [1.0, '2']], [{'k': '1', 'v': '2', 'more': ['3']}, {'k': '4', 'v': '-'}],
                 ['TypeError', "'int' object is not iterable"], ['Error', 'unknown dialect'],
                 ['Error', 'iterator should return strings, not bytes (the file should be opened in text mode)'],
                 ['TypeError', ' expected at least 1 argument, got 0'], ['Error', 'unexpected end of data'],
                 [['a', 'b']], [[['c', 'd']], 2]],
 'dataclasses_enum_typing': [{'tags': ['t'], 'x': 1}, True, 5, 1, ['x', 'tags'], 1, 'BLUE', 'Perm.R|W', True,
                             {'a': 1, 'b': 'x'}, False, 'list[str]', 'list', 'str', {'a': 1}, 2],
 'datetime_usage': ['2024-03-10T12:30:00', '2024-03-10T10:30:00+00:00', 'Friday 19 April 2024', 9, True, True,
                    True],
 'decimal_fractions': ['0.14286', '2.68', '11/12', '1/10', '1.1', 28],
 'decimal_contexts': [['DecimalException', 'Inexact'], '0.666666', ['Inexact', 'Rounded'], '1.41421', '2.30259', '2.71828', '1.23', [],
                      ['DecimalException', 'DivisionByZero'], ['DecimalException', 'InvalidOperation'],
                      ['DecimalException', 'InvalidOperation'], ['DecimalException', 'Inexact', 'Overflow', 'Rounded'], 'TypeError',
                      '1.414213562373095048801688724', 'ValueError', ['DecimalException', 'InvalidOperation'],
                      ['DecimalException', 'InvalidOperation'], '-1,234,567.90', '-1.235e+6', '12.5%', '_____-1234567.9_____', '1.2',
                      '1e+100', '-1234567.8951', '     7', {'digits': [1, 2, 3, 4, 5, 6, 7, 8, 9, 5, 1], 'exponent': -4, 'sign': 1},
                      '-3.14', [-12345678951, 10000], '1234567.8951',
                      ['-1234567.90', '-1234567.89', '-1234567.90', '-1234567.89', '-1234567.90'],
                      [True, False, True, True, True, True, True, '1/3'], '0.1000000000000000055511151231257827021181583404541015625',
                      '3.14', '0.142857143', '-1234567.8951', '-1234567.8951', True, ['Infinity', 'NaN', True], [True, '0.143'], 28,
                      999999999999999999, '1.70', True, True, '1.0', '2.68', 2, '1.3', 1, '1'],
 'difflib_textwrap': [0.75, ['--- ', '+++ ', '@@ -1,4 +1,4 @@', ' the', ' quick', '-brown', '+red', ' fox'],
                      ['apple', 'ape'], True, ['a a a a a a a a a a', 'a a a a a a a a a a', 'a a a a a a a a a a'],
                      'x\ny', 'Hello [...]', '> a\n> b', 'word word\nword word\nword'],
 'email_parsing': ['héllo', ['Ann', 'ann@example.com'], 'Body text', '2024-03-05T10:00:00+01:00', ['f.bin'],
                   'Ann <ann@example.com>', True, True],
 'faulthandler_enable': True,
 'fileinput_filecmp_linecache': [4, True, 'l2', []],
 'gettext_usage': ['hello', 'x', 'as', 'one', 'y', True, 'z'],
 'hashlib_hmac': ['2d711642b726b044', '9dd4e461', '4adf4367f96e584f', '741efa31', '0a382535', '254059b2',
                  '11f6ad8e', 'b60090e3', True, 'a4abd444', True, '772b71c8'],
 'html_parser': [[['div', {'class': 'a'}], ['p', {}], 'Hi & bye', ['br', {}]], '&lt;a href=&#x27;x&#x27;&gt;',
                 '<éA'],
 'importlib_resources': [True, ['__init__.py', 'decoder.py', 'encoder.py'], True, True, '0123456789', True],
 'inspect_members': [['a', 'b', 'args', 'c', 'kw'], ['c'], True, 'json', True, True, None, 'a\nb',
                     'inspect_members', 'inspect_members'],
 'io_compression': [True, True, True, 2363233923, 7929977, True, True, 'c3a9', ['a\n', 'b']],
 'itertools_functools': [23416728348467685, True, 16, 'int', 'obj', 3, True, 120, 1024,
                         [['a', 2], ['b', 3], ['c', 1]], [['a', 'b'], ['b', 'a']], [1, 3, 6],
                         [['a', 'b'], ['b', 'c']], [5, 6, 7], [1, 2], [['a', 'c'], ['b', '-']], 8,
                         [[0, 1], [0, 2]]],
 'json_roundtrip': [True, '{"x": Infinity}', 103],
 'locale_formatting': ['1234567', '.', '1.5', 2.5, '1,234,567.89', '1_234_567', '25.0%', '       a|b   |  c  ',
                       "003.1 x 'y'", 'tim likes pie', True, '1-2', '12345.7', 'C.UTF-8', 'no currency'],
 'locale_names': [['Error', 'Error', 'C', 'C', 'C.utf8'], [None, None], 'en_US.ISO8859-1'],
 'logging_handlers': [['INFO', 'WARNING', 'ERROR', 'ERROR', 'ERROR', 'ERROR', 'ERROR', 'ERROR', 'ERROR', 'ERROR',
                       'ERROR', 'ERROR', 'ERROR', 'ERROR', 'INFO', 'INFO', 'INFO'],
                      True, 'to file', ['grader.log', 'rot.log', 'rot.log.1', 'rot.log.2'], 1],
 'logging_timed_and_watched': ['x\n', 'x\n'],
 'mimetypes_guess': ['application/json', ['application/x-tar', 'gzip'], '.html', 'text/csv'],
 'mimetypes_init': 'image/png',
 'misc_std_modules': [{'a': [1]}, True, True, True, [3, 29], 'January 2024', '10.0.0.1', 4, 'v', 1, {'a': 1},
                      'Not Found', 'Set-Cookie: a=b', ['a', 'b', 'c'], True, '[0, 1, 2, ', [0.0, 1.0, 1]],
 'mmap_anonymous': ['abc', 'xx'],
 'pathlib_scratch': [['c.txt', 'sub', 'sub/b.json', 'sub/d.txt'], 5, ['c.txt', 'd.txt'],
                     ['b.json', 'c.txt', 'd.txt'], True, True, [], ['.tar', '.gz'], '/a', True, True],
 'pickle_copyreg_shelve': [{'a': [1, 2]}, {'v': 1}, True],
 'pprint_traceback': [True, True, "KeyError: 'missing'", True, True, 'ValueError: x', '[1, {2: 3}]', True],
 'random_module_state': [True, 141, 1.134364, 15595, 0.851734, '769f'],
 're_usage': [{'m': '05', 'y': '2024'}, 'a2b4', ['Ab', 'aB'], ['', 'a', 'b', ''], 'a\\.b', True],
 'resource_getrlimit_pagesize': [True, 4096],
 'sched_affinity': True,
 'signal_alarm_timeout': [True, True, 'SIGTERM', 'Terminated'],
 'statistics_usage': [5, 4.5, 2.13809, 4, [4.0, 4.5, 6.5], 0.927426, [0.809524, 2.166667], 0.841345, 2.0,
                      1.3333333333333333],
 'string_and_text_builtins': ['strasse', 'SS', 'xbc', 'Hi There', '1', "   'x'", '3.14e+00', '0xff 11111111', '00x',
                              'a   b', '', '93fa967b', 'café', 'e9', 12, '10000'],
 'struct_array_math': ['01000000feff03', [1.5], 12, '01000000', 4, 'bc', 10000000000, 120, 1.0, 6, 5.0, 1.0, 6, 12,
                       '1j', 1.570796, [1.414214, 0.785398], True, 'little', True, True, 15],
 'tempfile_usage': [['f'], 'abc', 100, 'q', True, False],
 'terminal_size': [[80, 24], 'OSError'],
 'time_clocks': [True, True, True, True, True, True, '1970', True, 'UTC', 'UTC', 0, 1000.0,
                 'Thu Jan  1 00:00:00 1970'],
 'tracemalloc_gc': [True, True, 1, True, True, 3, True],
 'unicodedata_shlex': ['é', 'LATIN SMALL LETTER E WITH ACUTE', 'Lu', 'W', ['a', 'b c', 'd e'], "'a b'", "x 'y z'",
                       True],
 'urllib_parse': ['ex.com', 8080, {'q': ['1', '2']}, 'a%20b/c', 'é', 'a=x+y&b=2', 'https://a.com/z',
                  'http://a/b?c'],
 'uuid_random_secrets': [4, 36, 'cfbff0d1-9375-5685-968c-48ce8b15ae17', '60a7f89c-e446-309c-8b4f-460bfdfd0dee',
                         [7, 3, 2, 8, 5, 6, 9, 4, 0, 1], [75, 54, 4], ['a', 'a', 'b', 'a'], [42, 20, 51], 0.457751,
                         16, True, True, '1234'],
 'warnings_usage': [['old', 'x'], ['DeprecationWarning', 'UserWarning'], True, True, 'f.py:1: UserWarning: m'],
 'xml_etree': [[['1', 'a'], ['2', 'b']], [['start', 'a'], ['start', 'b'], ['end', 'b'], ['end', 'a']],
               '<x y="1"><z>t</z></x>', ['a', 'b', 'c'], 't', 'b', 42],
 'zip_tar_memory': [['a/b.txt', 'c.json'], 'hi', None, ['a', 'c.json'], ['x.txt'], 'data'],
 'zip_tar_scratch': [True, True, True, 'arch.tar.gz'],
 'zoneinfo_usage': [-14400.0, 'EDT', 'Europe/Berlin', '2024-07-01T00:00:00+05:30']}


def check(**p):
    found = json.loads(json.dumps({name: globals()[name]() for name in EXPECTED}))
    wrong = {name: value for name, value in found.items() if value != EXPECTED[name]}
    return 1 if not wrong else json.dumps(wrong)[:4000]
