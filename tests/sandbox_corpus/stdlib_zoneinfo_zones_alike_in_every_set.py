# expect: ok
# expect-kernel: ok
# value: 10
# Honest twin of `memory_zoneinfo_transition_index_one_past_its_table`: what a check does with `zoneinfo` answers
# alike in every set, where the C zones are absent (the pure-Python twin) included: zones by key converted to and from
# UTC across daylight saving (a gap and a fold), names and offsets, a zone file of the host's read with `from_file`,
# a TZif file of the check's own (version 1, from a BytesIO), a fixed offset from a POSIX rule, the cache and
# `no_cache`, pickling by key, comparisons of aware datetimes in different zones, and the errors of a missing key and
# a key that climbs out of the search path (the same exception).
import datetime as dt
import io
import pickle
import struct
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError


def own_file():
    """A version 1 TZif file: one transition (at 10**9 s) from an hour east to two hours east."""
    head = b"TZif" + b"\0" * 16 + struct.pack(">6l", 0, 0, 0, 1, 2, 8)
    body = struct.pack(">l", 10**9) + bytes([1]) + struct.pack(">lbB", 3600, 0, 0) + struct.pack(">lbB", 7200, 1, 4)
    return head + body + b"ONE\0TWO\0"


def error(call):
    try:
        call()
    except Exception as exc:
        return type(exc).__name__
    return None


def check(**p):
    results = []
    paris, york, utc = ZoneInfo("Europe/Paris"), ZoneInfo("America/New_York"), ZoneInfo("UTC")
    summer = dt.datetime(2021, 7, 1, 12, tzinfo=paris)
    results.append(summer.utcoffset() == dt.timedelta(hours=2) and summer.tzname() == "CEST"
                   and summer.dst() == dt.timedelta(hours=1))
    results.append(summer.astimezone(york).hour == 6 and summer.astimezone(utc).hour == 10)
    gap = dt.datetime(2021, 3, 14, 2, 30, tzinfo=york)  # skipped: fold 0 takes the offset before
    fold = dt.datetime(2021, 11, 7, 1, 30, tzinfo=york)
    results.append(gap.utcoffset() == dt.timedelta(hours=-5) and fold.tzname() == "EDT"
                   and fold.replace(fold=1).tzname() == "EST")
    stamp = dt.datetime(2021, 11, 7, 5, 30, tzinfo=dt.UTC)
    results.append(stamp.astimezone(york).fold == 0 and (stamp + dt.timedelta(hours=1)).astimezone(york).fold == 1)
    with open("/usr/share/zoneinfo/Europe/Paris", "rb") as fh:
        loaded = ZoneInfo.from_file(fh, key="paris-copy")
    results.append(dt.datetime(2021, 1, 1, tzinfo=loaded).utcoffset() == dt.timedelta(hours=1)
                   and str(loaded) == "paris-copy")
    own = ZoneInfo.from_file(io.BytesIO(own_file()), key="own")
    results.append([dt.datetime(y, 1, 1, tzinfo=own).tzname() for y in (2000, 2002)] == ["ONE", "TWO"]
                   and dt.datetime(2002, 1, 1, tzinfo=own).dst() == dt.timedelta(hours=1))
    results.append(ZoneInfo("Europe/Paris") is paris and ZoneInfo.no_cache("Europe/Paris") is not paris)
    results.append(pickle.loads(pickle.dumps(paris)) is paris and str(paris) == paris.key == "Europe/Paris")
    a = dt.datetime(2021, 7, 1, 12, tzinfo=paris)
    b = dt.datetime(2021, 7, 1, 6, tzinfo=york)
    results.append(a == b and sorted([b, a, dt.datetime(2021, 7, 1, 9, tzinfo=utc)])[0].tzinfo is utc)
    results.append([error(lambda: ZoneInfo("Nowhere/Zone")), error(lambda: ZoneInfo("../../etc/passwd"))]
                   == [ZoneInfoNotFoundError.__name__, "ValueError"])
    return sum(results)
