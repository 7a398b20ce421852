"""What a text writes: the dates, times, durations, amounts, numbers and phone numbers in it, however they are written
(`mentions`), and a text with those the user also wrote written as the user did (`as_user_wrote`). The readings of
`_user_formats` (the format replay), `_user_zones`, `_numerals` and `_asked_facts`; it imports nothing of the gates,
so that any gate module can read a text without an import circle.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta
from functools import lru_cache
from zoneinfo import available_timezones

from coworkenv.checks.text import IN_WORDS as _IN_WORDS
from coworkenv.checks.text import UNIT_WORDS
from coworkenv.checks.text import in_words as _in_words

_MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december"]
_MONTH = r"(?P<{n}>jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|" \
         r"oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
_WEEKDAY = r"(?:(?:mon|tues?|wed(?:nes)?|thu(?:rs?)?|fri|sat(?:ur)?|sun)(?:day)?\.?,?\s+)?"
_ORD = r"(?:st|nd|rd|th)?"
# A day of the month as an ordinal in words ("third", "twenty-first", "thirtieth"): read only next to a month's name,
# after it ("November third") or before it with "of" ("third of November"); "may first" in lower case is a verb.
_DAY_ORDINALS = ["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth",
                 "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth", "seventeenth",
                 "eighteenth", "nineteenth", "twentieth"]
_DAY_WORDS = r"(?:(?:twenty|thirty)[\s-])?(?:" + "|".join(_DAY_ORDINALS[:9]) + r")|" + \
    "|".join(_DAY_ORDINALS[9:]) + r"|thirtieth"
_CURRENCIES = {"eur": "EUR", "€": "EUR", "usd": "USD", "$": "USD", "gbp": "GBP", "£": "GBP", "chf": "CHF",
               "euro": "EUR", "dollar": "USD", "pound": "GBP", "franc": "CHF", "inr": "INR", "₹": "INR",
               "rupee": "INR"}
_CURRENCY = r"(?P<{n}>eur|usd|gbp|chf|inr|€|\$|£|₹|euros?|dollars?|pounds?|rupees?|(?:swiss\s+)?francs?)"
# A sum grouped with commas (1,200.50), with dots (1.200,50: the European way), with spaces (1 200,50), with
# apostrophes (1'200.50, 1’200: the Swiss way), the Indian way (1,24,500: the last three digits, then pairs), or not
# at all (1200.50, 12,50); a whole sum may be closed with a dash (1,200.-, 1.200,–: German and Swiss prices).
_INDIAN = r"\d{1,2}(?:,\d{2})+,\d{3}(?:\.\d{1,2})?(?![\d,])"
_DASH_CLOSED = r"(?:[.,][-\u2013](?![\d\u2013-]))?"
_AMOUNT = r"(?P<{n}>(?:" + _INDIAN.replace("{", "{{").replace("}", "}}") + r"|\d{{1,3}}(?:,\d{{3}})+(?:\.\d{{1,2}})?|\d{{1,3}}(?:\.\d{{3}})+(?:,\d{{1,2}})?|" \
          r"\d{{1,3}}(?:['\u2019]\d{{3}})+(?:\.\d{{1,2}})?|" \
          r"\d{{1,3}}(?:[ \u00a0\u202f]\d{{3}})+(?:[.,]\d{{1,2}})?(?!\d)|\d+(?:[.,]\d{{1,2}})?)" \
          + _DASH_CLOSED.replace("{", "{{").replace("}", "}}") + ")"
# A duration: "90 minutes", "45 min", "60-minute", "45'", "60m", "1 hour", "1.5 h", "1h30", "1 hr 30 min", "2 days",
# or in words ("half an hour", "forty-five minutes", "two hours").
_WORD_MINUTES = {"half an hour": 30, "a half hour": 30, "half hour": 30, "a quarter of an hour": 15,
                 "quarter of an hour": 15, "three quarters of an hour": 45, "an hour and a half": 90,
                 "one hour and a half": 90, "one and a half hours": 90, "an hour": 60, "one hour": 60,
                 "three quarter hour": 45, "quarter hour": 15, "an hour and a quarter": 75,
                 "an hour and three quarters": 105, "a full hour": 60}
_MINUTES_PER = {"m": 1, "h": 60, "d": 24 * 60}
_CLOCK_WORDS = UNIT_WORDS[1:13]  # one ... twelve, read before "o'clock"
_FACE = r"1[0-2]|0?[1-9]|" + "|".join(_CLOCK_WORDS[::-1])  # an hour on the clock's face, in digits or words
_PART = r"in\s+the\s+(?:morning|afternoon|evening)|at\s+night"  # a part of the day after an hour
# Words after "five to ten" that make it a range of counts, not a time ("five to ten minutes", "two to three days").
_NOT_AFTER_HOUR = r"min|minutes?|hours?|hrs?|days?|weeks?|months?|years?|times|people|persons?|percent|%|of|more|" \
                  r"items?|tickets?|pages?|rows?|tasks?"
# An hour and two-digit minutes joined by an h ("14h30", "9h00", "15 h 15", "16H00"): the French (Belgian, Swiss,
# Quebec) time of day, and a duration too ("a 1h30 meeting"); read as a duration, it is also that time of day. So is
# the bare hour mark ("7h", "16h") and a clock's face with an hour unit ("17:00 hrs", "08:45 h").
_HOUR_MARK = re.compile(r"(?:[01]?\d|2[0-3])(?:\s?h(?:\s?[0-5]\d)?|:[0-5]\d\s*(?:h|hrs?|hours?))", re.IGNORECASE)
_DURATION = (
    # 1½ hours, ¾ h, ½-hour, ¾ of an hour, 3/4 hour, 1/2 hr: a fraction of an hour (before "3/4" reads as a date)
    r"(?P<fw>\d{1,2}\s?)?(?P<fv>[¼½¾])\s*(?:-\s*)?(?:of\s+an\s+)?(?:h|hrs?|hours?)(?!\w)"
    r"|(?<![\d/])(?P<fn>[13])/(?P<fd>[24])\s*(?:-\s*)?(?:of\s+an\s+)?(?:h|hrs?|hours?)(?!\w)"
    # two and a half hours, 2 and a half hours; an hour and fifteen minutes, 1 hour and 30 minutes
    r"|(?P<dah>" + _IN_WORDS + r"|\d{1,2})\s+and\s+a\s+half\s+hours?(?!\w)"
    r"|(?P<dhw>an|" + _IN_WORDS + r"|\d{1,2})\s+hours?\s+and\s+(?P<dhn>" + _IN_WORDS + r"|\d{1,2})\s+min(?:ute)?s?(?!\w)"
    r"|(?P<dh>\d+(?:\.\d+)?)(?:\s*|-)(?:h|hrs?|hours?)(?:\s*(?:and\s+)?(?P<dhm>\d{1,2})(?:\s*(?:m|mins?|minutes?))?)?(?!\w)"
    r"|(?P<dm_>\d+)(?:\s*|-)(?:mins?|minutes?|mn)(?!\w)|(?P<dmm>\d+)(?:m|['\u2019])(?![\w'\u2019])"
    r"|(?P<dd_>\d+(?:\.\d+)?)(?:\s*|-)days?(?!\w)"
    r"|(?P<dw>" + "|".join(sorted((w.replace(" ", r"[\s-]+") for w in _WORD_MINUTES), key=len, reverse=True))
    + r")(?!\w)"
    # forty-five minutes, two hours, seven days (the first letter a number's in words: a cheap test first)
    r"|(?=[efnost])(?P<dwn>" + _IN_WORDS + r")(?:\s+|-)(?P<dwu>m(?:inutes?|ins?)|h(?:ours?)|d(?:ays?))(?!\w)")
_ABBREVIATED = r"\d{1,3}(?:[.,]\d{1,3})?\s?"
# k, M, bn, or the scale in a word: 41.62 thousand, 1.2 million
_SCALE = r"(?:(?-i:k|K|M|bn)|thousand|million|billion)"
# A number without a currency, where grouping can differ: 1,200 / 1.200 / 1200 / 1 200 / 1,00,000 (four digits or
# more; not a group of a number written in spaced groups, 020 7946 0958, nor part of a path, a date-time or a code:
# 2026-11-03T09:30).
_NUMBER = r"(?<!\d )(?<![/#@=])" \
          r"(?P<n>" + _INDIAN + r"|\d{1,3}(?:,\d{3})+(?:\.\d{1,2})?|\d{1,3}(?:[ \u00a0\u202f\u2009]\d{3})+(?:[.,]\d{1,2})?|\d{1,3}(?:\.\d{3})+(?:,\d{1,2})?|" \
          r"\d{1,3}(?:['\u2019]\d{3})+(?:\.\d{1,2})?|[1-9]\d{3,}(?:\.\d{1,2})?)" \
          r"(?![\w\-/:@%]|[.,]\d| \d)"
# What places a dotted time with a one-digit hour after it, where no word before it does: a zone's abbreviation or
# its IANA name ("9.30 UTC", "2.30 CET", "2.30 (America/Toronto)"), or a dash or `to` before the range's other end
# ("9.00-17.00", "9.00 to 17.30"): a sum, a version or a share has none of these after it.
# The Americas' generic abbreviations, whichever the season ("2.30 ET", "9.30 PT") and Brasilia's and Buenos Aires' too.
_ZONES = r"UTC|GMT|CET|CEST|EET|EEST|WET|WEST|BST|IST|EST|EDT|CST|CDT|MST|MDT|PST|PDT|JST|KST|AEST|AEDT|SGT|HKT|NZST|NZDT" \
         r"|ET|CT|MT|PT|BRT|ART|GST|MSK|SAST|EAT|WAT|CAT|PKT|ICT|WIB|PHT|AWST|ACST|ACDT|AKST|AKDT|HST|AST|ADT|NZT|AET"
# An abbreviation is written in any case too ("2.30 est", "9.00 Cst"), but those that are also words ("et" and "est"
# in French, "ist" in German, "art", "west", "cat", "eat") place a time in lower or mixed case only where the clause
# ends after them, or in brackets: "2.30 et 3.15" is French, "2.30 et cetera" Latin.
_WORDLIKE_ZONES = frozenset({"ET", "EST", "IST", "ART", "WEST", "WET", "CAT", "EAT", "WAT", "CT", "MT", "PT", "AST",
                             "ICT", "GST", "ADT", "PHT"})
_ZONES_ANY_CASE = "|".join(z for z in _ZONES.split("|") if z not in _WORDLIKE_ZONES)
_CLAUSE_ENDS = r"(?=\s*(?:[.,;:!?)\n]|$))"
# A zone's everyday name ("Eastern", "Central Standard Time", "Brasilia time") or a city that names an IANA zone
# ("Toronto time", "(Sao Paulo)", "Helsinki time"), and the cities people say for the zone of their region.
_ZONE_NAMES = r"(?:eastern|central|mountain|pacific|atlantic|alaska|hawaii|brasilia|argentina|india|gulf|greenwich|" \
              r"(?:central|eastern|western)\s+european|(?:east|west|central|south)\s+africa|british|irish|" \
              r"japan|korea|china|moscow|indochina|singapore)(?:\s+(?:standard|daylight|summer))?"
_CITY_NAMES = sorted({z.rsplit("/", 1)[1].replace("_", " ") for z in available_timezones()
                      if z.split("/")[0] in ("Africa", "America", "Antarctica", "Asia", "Atlantic", "Australia",
                                             "Europe", "Indian", "Pacific") and "/" in z and z.rsplit("/", 1)[1][0].isupper()}
                     | {"San Francisco", "Seattle", "Boston", "Washington", "Dallas", "Houston", "Austin", "Atlanta",
                        "Miami", "Mumbai", "Delhi", "New Delhi", "Bangalore", "Bengaluru", "Munich", "Frankfurt",
                        "Hamburg", "Geneva", "Barcelona", "Milan", "Osaka", "Beijing", "Rio de Janeiro", "Rio"},
                     key=len, reverse=True)
_PLACES = r"(?:" + _ZONE_NAMES + "|" + "|".join(re.escape(c).replace(r"\ ", r"\s+") for c in _CITY_NAMES) + ")"
_ZONE_AFTER = (r"\s*(?:(?-i:(?:" + _ZONES + r")(?![\w/]))|(?i:(?:" + _ZONES_ANY_CASE + r")(?![\w/]))"
               r"|(?i:(?:" + "|".join(sorted(_WORDLIKE_ZONES)) + r"))" + _CLAUSE_ENDS +
               r"|\((?:[A-Z][A-Za-z_]+/[A-Za-z_/]+|(?i:" + _ZONES + r")|" + _PLACES + r"(?:\s+time)?)\))"
               r"|\s+" + _PLACES + r"(?:\s+time(?!\w)|" + _CLAUSE_ENDS + ")")
# A zone written after a time in any of the ways above (the zone replay reads such a time in the zone it names).
ZONE_AFTER = re.compile(_ZONE_AFTER, re.IGNORECASE)
# A time's end that is no clock's: a word, a decimal, an hour unit, a share or a currency after it.
_NOT_A_CLOCK = r"(?![\w:]|[.,]\d|\s*(?:h|hrs?|hours?|%)(?!\w)|\s?(?:eur|usd|gbp|chf|inr|€|\$|£|₹|euros?|dollars?|" \
               r"pounds?)(?!\w))"
_PLACED_AFTER = (r"\.[0-5]\d(?:\s*(?:[-\u2013\u2014]|\s(?:to|until|till)\s)\s*(?:[01]?\d|2[0-3])[.:][0-5]\d" + _NOT_A_CLOCK +
                 r"|" + _ZONE_AFTER + ")")
# The other end of a range of times after a dash ("14:30-15:00", "9.00-17.00"): read where a time ends just before.
_RANGE_END = re.compile(r"\s*[-\u2013\u2014]\s*(?P<h>[01]?\d|2[0-3])[.:](?P<m>[0-5]\d)" + _NOT_A_CLOCK,
                        re.IGNORECASE)
# A numbered part of a year or of a whole, however its number is written: a quarter ("Q4", "4Q", "fourth quarter",
# "4th quarter", "quarter 4"), a half ("H2", "second half"), a week ("week 14", "wk 14", "W14", "CW14", "KW14",
# "14th week") or a part, phase, stage, ... ("part 2", "Part II", "phase three", "second phase"). Its value is the
# label and the number; a path's or a code's ("reports/q4-review.md", "Q4-2026") is no label.
_LABEL_WORDS = ["quarter", "half", "week", "part", "phase", "stage", "tier", "level", "round", "volume", "chapter",
                "section", "season", "sprint", "wave"]
_LABEL_ORDINALS = ["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth",
                   "eleventh", "twelfth"]
_LABEL_ORD = r"(?:" + "|".join(_LABEL_ORDINALS) + r"|\d{1,2}(?:st|nd|rd|th))"
_LABEL_COUNT = r"(?:\d{1,2}|(?-i:[IVX]{1,5})|" + "|".join(UNIT_WORDS[1:13][::-1]) + ")"
_LABEL = (r"(?<![/\\])(?:(?-i:Q)(?P<lq>[1-4])|(?P<lq2>[1-4])(?-i:Q)|(?-i:H)(?P<lh>[12])|(?-i:C?W|KW)(?P<lwk>\d{1,2})"
          r"|(?P<lwn>" + "|".join(w for w in _LABEL_WORDS if w != "half") + r"|wk\.?)\s*(?P<ln>" + _LABEL_COUNT + r")"
          r"|(?P<lo>" + _LABEL_ORD + r")[\s-]+(?P<lwo>" + "|".join(_LABEL_WORDS) + r"))(?![\w-]|[.,:]\d)")
_ROMAN = {"I": 1, "V": 5, "X": 10}


def _label(g: dict[str, str | None]) -> tuple[str, tuple[tuple[int | None, int, int], ...]] | None:
    """A numbered part (`_LABEL`) as (None, the label's index, its number)."""
    if g["lq"] or g["lq2"]:
        return "label", ((None, 0, int(g["lq"] or g["lq2"] or 0)),)
    if g["lh"]:
        return "label", ((None, 1, int(g["lh"])),)
    if g["lwk"]:
        return "label", ((None, 2, int(g["lwk"])),)
    word = (g["lwn"] or g["lwo"] or "").lower().rstrip(".")
    index = 2 if word == "wk" else _LABEL_WORDS.index(word)
    written = g["ln"] or g["lo"] or ""
    if written.isdigit():
        number = int(written)
    elif written[:1].isdigit():
        number = int(written[:-2])
    elif written.lower() in _LABEL_ORDINALS:
        number = _LABEL_ORDINALS.index(written.lower()) + 1
    elif written.lower() in UNIT_WORDS:
        number = UNIT_WORDS.index(written.lower())
    else:  # a roman numeral
        values = [_ROMAN[c] for c in written]
        number = sum(-v if i + 1 < len(values) and v < values[i + 1] else v for i, v in enumerate(values))
    return ("label", ((None, index, number),)) if number > 0 and (index > 1 or number <= 4 - 2 * index) else None


# One alternation, so that a date's parts are never read again as another date or a time.
_WHEN = re.compile(
    r"(?<![\w:.+-])(?:"
    r"(?P<ph>\+\d{1,3}(?:[ .\-/]?(?:\(\d{1,4}\)|\d{2,4}))+)(?![\w+])|"  # +44 20 7946 0958, +44-20-7946-0958
    # 2026-W23-2, 2026W232: an ISO week date (year, week, day of the week)
    r"(?P<wy>\d{4})(?:-W(?P<ww>\d{2})-(?P<wd>[1-7])|W(?P<ww2>\d{2})(?P<wd2>[1-7]))(?![\w-])|"
    # Q4, 4Q, fourth quarter, 4th quarter, quarter 4; H2, second half; week 14, wk 14, W14, CW14, 14th week; part 2,
    # Part II, second part (a phase, stage, tier, level, round, volume, chapter, section, season, sprint, wave):
    # a numbered part of a year or of a whole (`_label`)
    + _LABEL + r"|"
    # 2026-06-02 (not a date-time), 2026/06/02, 2026.06.02
    rf"(?P<iy>\d{{4}})(?:-(?P<im>\d{{2}})-(?P<id>\d{{2}})|(?P<is>[./])(?P<im2>\d{{1,2}})(?P=is)(?P<id2>\d{{1,2}}))"
    r"(?![\w:]|[./-]\d)"
    rf"|{_WEEKDAY}(?:(?P<dd>\d{{1,2}}){_ORD}(?:\s+(?:of\s+)?|-(?=[a-z]{{3,9}}\.?-\d{{4}}(?!\w)))|(?P<ddw>{_DAY_WORDS})\s+of\s+)"
    rf"{_MONTH.format(n='dm')}(?:(?:,?\s+|-)(?P<dy>\d{{4}}))?(?![\w])"
    rf"|{_WEEKDAY}(?:(?=(?-i:May)\s)|(?!may\s+(?:{_DAY_WORDS})(?![\w-])))"
    rf"{_MONTH.format(n='mm')}\s+(?:(?P<md>\d{{1,2}}){_ORD}|(?P<mdw>{_DAY_WORDS}))(?:,?\s+(?P<my>\d{{4}}))?(?![\w:-])"
    # 02/06/2026, 6/2/2026, 02-06-2026: day and month either way; 02.06.2026, 2.6.2026: day first
    r"|(?P<sa>\d{1,2})(?P<ss>[/.-])(?P<sb>\d{1,2})(?P=ss)(?P<sy>\d{4})(?!\w|[/.-]\d)"
    # 02.06., 19.05.: day and month, two digits each closed by a dot (German, Nordic), no year ("1.2." and "3.11."
    # are versions as often: "TLS is now 1.2.", "Python 3.11.")
    r"|(?P<ua>[0-3]\d)\.(?P<ub>[01]\d)\.(?!\d)"
    # today, tomorrow, Friday, this Friday, next Tuesday: a date relative to the day the turn is written
    r"|(?P<rel>today|tomorrow|yesterday|(?:(?P<rq>next|this|coming)\s+)?(?P<rw>mon|tues|wednes|thurs|fri|satur|sun)day)"
    r"(?!\w)"
    # 1:30 h, 0:45 hrs (a duration on a clock's face: hours and minutes) and ISO 8601's PT1H30M, PT45M
    r"|(?P<dch>\d{1,2}):(?P<dcm>[0-5]\d)\s*(?:h|hrs?|hours?)(?!\w)|PT(?=\d+[HM])(?:(?P<dih>\d+)H)?(?:(?P<dim>\d+)M)?(?!\w)"
    r"|(?P<th>\d{1,2}):(?P<tm>\d{2})(?::\d{2})?(?:\s*(?P<tap>[ap])\.?m\b\.?)?(?![\w:]|\.\d)"  # 15:00, 2:30 am
    # 0230h, 1430 hrs, 0900 hours (four digits: a military time, not a duration of hundreds of hours); but a length
    # of time where a word says so: "for 1000 hours", "over 1200 hrs", "1000 hours of uptime", "at least 2000 hours"
    r"|" + "".join(rf"(?<!\b{w}\s)" for w in ("for", "over", "of", "than", "nearly", "almost", "least", "about"))
    + r"(?P<xh>[01]\d|2[0-3])(?P<xm>[0-5]\d)\s*(?:h|hrs|hours)(?!\w|\s+(?:of|in\s+total|total)\b)"
    # 2.30 am, 11.15pm (dotted, on the twelve-hour clock); 02.30, 14.30 Uhr (dotted, two-digit hour: not a sum, a
    # share, a version or a duration in hours); "at 9.30", "until 2.30" (a one-digit hour after a word that places
    # a time: a sum there has its currency or a rate, "at 9.30 EUR", "at 2.50 per seat")
    r"|(?P<yh>\d{1,2})\.(?P<ym>[0-5]\d)\s*(?P<yap>[ap])\.?m\b\.?"
    # a one-digit hour placed by what follows it instead: a zone ("9.30 UTC", "2.30 (America/Toronto)") or the other
    # end of a range of times ("9.00-17.00", "9.00\u201317.00", "9.00 to 17.00")
    r"|(?P<zh>[01]\d|2[0-3]|(?:" + "|".join(rf"(?<=\b{w}\s)" for w in ("at", "by", "until", "till", "from", "before",
                                                                     "after")) + r")[1-9]|[1-9](?=" + _PLACED_AFTER + "))"
    rf"\.(?P<zm>[0-5]\d)(?:\s*uhr\b)?(?!\s+(?:per|each|a\s+(?:piece|unit|seat|month|year))\b)"
    rf"(?![\w%]|[.,:]\d|\s*(?:h|hrs?|hours?|%)(?!\w)|\s?{_CURRENCY.format(n='zc')}(?!\w))"
    # 9 o'clock, nine o'clock, 1 o'clock in the afternoon: the hour on the clock's face
    r"|(?P<oh>" + _FACE + r")(?:\s+o['\u2019]\s?clock"
    r"(?:\s+(?P<od>" + _PART + r"|[ap]\.?m\b\.?))?|\s+(?P<od2>" + _PART + r"))(?!\w)"
    # half past two, quarter to nine, twenty-five past six, 10 minutes to 3; noon, midnight
    r"|(?<!from\s)(?P<spm>half|(?:a\s+)?quarter|five|ten|twenty(?:[\s-]five)?|(?:" + _IN_WORDS + r"|\d{1,2})\s+minutes?)"
    r"\s+(?P<spd>past|after|to|before)\s+(?P<sph>" + _FACE + r")"
    r"(?:\s+(?P<spp>" + _PART + r"|[ap]\.?m\b\.?))?(?!\w|\s+(?:" + _NOT_AFTER_HOUR + r")\b)"
    r"|(?:12\s+)?(?P<noon>noon|midday|midnight)(?!\w)"
    # nine thirty, two fifteen pm, eight forty-five, six oh five: an hour and its minutes in words
    r"|(?P<wh>" + "|".join(_CLOCK_WORDS[::-1]) + r")\s+(?P<wm>o[h']?[\s-](?:" + "|".join(UNIT_WORDS[9:0:-1]) + r")|"
    + _IN_WORDS + r")(?:\s+(?P<wp>" + _PART + r"|[ap]\.?m\b\.?))?(?![\w-]|\s+(?:" + _NOT_AFTER_HOUR + r")\b)"
    r"|(?P<ah>\d{1,2})\s*(?P<aap>[ap])\.?m\b\.?"  # 3pm, 3 p.m.
    # 020 7946 0958, 020-7946-0958, (020) 7946 0958, 02079460958: dialled at home (a trunk 0, no country code)
    r"|(?P<np>(?:0\d{1,4}|\(0\d{1,4}\))(?:[ .\-/]?\d{2,4}){1,4})(?![\w+:]|[.,/-]\d)"
    # 89.76k EUR, 1.2M, 3bn; EUR 93.75k, €41.62k (below): a sum with its thousands (millions, billions) abbreviated
    rf"|(?P<kn>{_ABBREVIATED})(?P<ku>{_SCALE})(?!\w)(?:\s?{_CURRENCY.format(n='c4')}(?!\w))?"
    rf"|{_CURRENCY.format(n='c1')}\s?(?:(?P<kn2>{_ABBREVIATED})(?P<ku2>{_SCALE})(?!\w)|{_AMOUNT.format(n='a1')})"
    # EUR 45,300, $1,200.50
    rf"|{_AMOUNT.format(n='a2')}\s?{_CURRENCY.format(n='c2')}(?!\w)"  # 45,300 EUR, 45,300€, 45,300 euros
    rf"|{_DURATION}"  # 90 minutes, 1.5 h, half an hour
    # 3/11, 11/3: day and month either way, no year (not a part of a path, a fraction of an hour or a ratio's run)
    r"|(?<![\d/])(?P<va>[0-3]?\d)/(?P<vb>[0-3]?\d)(?![\w/]|[.,]\d)"
    rf"|{_NUMBER}"  # 12,973, 12.973, 12973
    r")",
    re.IGNORECASE)


@dataclass(frozen=True)
class When:
    """A date, time, amount, number, duration or phone number, and how it was written."""

    kind: str  # "date", "time", "amount", "number", "duration" or "phone"
    # (year or None, month, day), (None, hour, minute), (None, currency, cents), (None, 0, cents), (None, 0, minutes)
    # or (None, digit count, digits); a date written 02/06/2026 reads either way round
    values: tuple[tuple[int | None, int, int], ...]
    shown: str
    start: int
    end: int

    def same(self, other: When) -> bool:
        if {self.kind, other.kind} == {"amount", "number"}:  # a sum with its currency and without
            return bool({v[2] for v in self.values} & {v[2] for v in other.values})
        if {self.kind, other.kind} == {"time", "duration"}:  # 14h30: a time of day written as a duration
            clock, marked = (self, other) if self.kind == "time" else (other, self)
            return _HOUR_MARK.fullmatch(marked.shown) is not None and \
                any((None, *divmod(v[2], 60)) in clock.values for v in marked.values)
        if self.kind != other.kind:
            return False
        if self.kind == "phone":
            return _same_phone(self.shown, other.shown)
        if self.kind != "date":
            return bool(set(self.values) & set(other.values))
        return any((m1, d1) == (m2, d2) and (y1 is None or y2 is None or y1 == y2)
                   for y1, m1, d1 in self.values for y2, m2, d2 in other.values)


def mentions(text: str, today: date | None = None) -> list[When]:
    """Every date, time, amount, phone number, duration and number written in `text` (ISO dates, "3 November",
    "June 2, 2026", "15:00", "3pm", "EUR 41,620", "+44 20 7946 0958", "90 minutes", "1.5 h", "12,973"), and given
    the day it is written, the dates it gives relative to that day ("tomorrow", "Friday", "next Tuesday").

    A pure function of its arguments, read once per text (the replays read the same turns and replies again and
    again); each call gets a list of its own."""
    return list(_mentions(text, today))


@lru_cache(maxsize=4096)
def _mentions(text: str, today: date | None) -> tuple[When, ...]:
    out = []
    for m in _WHEN.finditer(text):
        g = m.groupdict()
        found = _read(g, today)
        if found is not None:
            shown = m.group(0)
            if shown.endswith(".") and re.search(r"\b(?:" + "|".join(_MONTHS) + r")\.$", shown, re.IGNORECASE):
                shown = shown[:-1]  # a full month name ending a sentence, not an abbreviation's dot
            elif re.search(r"[^.][ap]m\.$", shown, re.IGNORECASE):
                shown = shown[:-1]  # "3pm." ends a sentence; "3 p.m." keeps its dot
            out.append(When(found[0], found[1], shown, m.start(), m.start() + len(shown)))
        if g["ua"] and int(g["ua"]) <= 23:
            # "03.11." is also the time 03:11 ending a sentence
            out.append(When("time", ((None, int(g["ua"]), int(g["ub"] or 0)),), m.group(0)[:5], m.start(),
                            m.start() + 5))
    starts = {w.start for w in out}
    for w in [w for w in out if w.kind == "time"]:
        if (end := _RANGE_END.match(text, w.end)) is not None and end.start("h") not in starts:
            out.append(When("time", ((None, int(end["h"]), int(end["m"])),), text[end.start("h"):end.end()],
                            end.start("h"), end.end()))
    return tuple(sorted(out, key=lambda w: w.start))


def _read(g: dict[str, str | None], today: date | None = None) -> tuple[str, tuple[tuple[int | None, int, int], ...]] | None:
    """What one match of `_WHEN` holds, by the group that matched (a relative date only where `today` is known)."""
    if g["rel"]:
        return _relative(g, today) if today is not None else None
    if g["lq"] or g["lq2"] or g["lh"] or g["lwk"] or g["lwn"] or g["lwo"]:
        return _label(g)
    if g["ph"] or g["np"]:
        return _phone(g["ph"] or g["np"] or "")
    if g["kn"] or g["kn2"]:
        return _abbreviated(g)
    if g["a1"] or g["a2"]:
        return _amount(g)
    if g["n"]:
        return _number(g["n"])
    if any(g[k] for k in ("dh", "dm_", "dmm", "dd_", "dw", "dwn", "dch", "dih", "dim", "fv", "fn", "dah", "dhw")):
        return _duration(g)
    if g["ua"] or g["va"]:
        return _yearless(g)
    if g["spm"] or g["noon"]:
        return _spoken(g)
    if g["wh"]:
        return _hour_and_minutes(g)
    if g["wy"]:
        return _week_date(int(g["wy"]), int(g["ww"] or g["ww2"] or 0), int(g["wd"] or g["wd2"] or 0))
    if g["oh"]:
        return _on_the_hour(g["oh"], g["od"] or g["od2"])
    return _date(g) if all(g[k] is None for k in ("th", "ah", "xh", "yh", "zh")) else _time(g)


_WEEKDAYS = ["mon", "tues", "wednes", "thurs", "fri", "satur", "sun"]


def _relative(g: dict[str, str | None], today: date) -> tuple[str, tuple[tuple[int | None, int, int], ...]]:
    """today, tomorrow, yesterday; a weekday ("Friday", "this Friday") as the next such day from today on, "next
    Friday" as that day or the one a week later (usage differs)."""
    word = (g["rel"] or "").lower()
    if g["rw"] is None:
        days = [{"today": 0, "tomorrow": 1, "yesterday": -1}[word]]
    else:
        ahead = (_WEEKDAYS.index((g["rw"] or "").lower()) - today.weekday()) % 7
        days = [ahead, ahead + 7] if g["rq"] and g["rq"].lower() == "next" else [ahead]
    return "date", tuple((d.year, d.month, d.day) for d in (today + timedelta(days=n) for n in days))


def _month(name: str) -> int:
    return next(i + 1 for i, full in enumerate(_MONTHS) if full.startswith(name.lower().rstrip(".")[:3]))


def _date(g: dict[str, str | None]) -> tuple[str, tuple[tuple[int | None, int, int], ...]] | None:
    if g["sy"] is not None:
        a, b, slashed = int(g["sa"] or 0), int(g["sb"] or 0), int(g["sy"])
        orders = {(b, a)} if g["ss"] == "." else {(a, b), (b, a)}  # a dotted date is day first wherever it is written
        both = tuple((slashed, m, d) for m, d in sorted(orders) if 1 <= m <= 12 and 1 <= d <= 31)
        return ("date", both) if both else None
    year: int | None
    if g["iy"] is not None:
        year, month, day = int(g["iy"]), int(g["im"] or g["im2"] or 0), int(g["id"] or g["id2"] or 0)
    elif g["dm"] is not None:
        year, month, day = (int(g["dy"]) if g["dy"] else None), _month(g["dm"]), _day(g["dd"], g["ddw"])
    else:
        year, month, day = (int(g["my"]) if g["my"] else None), _month(g["mm"] or ""), _day(g["md"], g["mdw"])
    return ("date", ((year, month, day),)) if 1 <= month <= 12 and 1 <= day <= 31 else None


def _week_date(year: int, week: int, weekday: int) -> tuple[str, tuple[tuple[int | None, int, int], ...]] | None:
    """An ISO week date (2026-W23-2: the Tuesday of ISO week 23 of 2026) as the day it names."""
    try:
        day = date.fromisocalendar(year, week, weekday)
    except ValueError:  # (no week 53 that year, week 00)
        return None
    return "date", ((day.year, day.month, day.day),)


def _day(digits: str | None, words: str | None) -> int:
    """A day of the month written in digits ("3", "3rd") or as an ordinal in words ("third", "twenty-first")."""
    if words is None:
        return int(digits or 0)
    *tens, unit = re.split(r"[\s-]+", words.lower())
    if unit == "thirtieth":
        return 30
    return _DAY_ORDINALS.index(unit) + 1 + {"twenty": 20, "thirty": 30}.get(tens[0] if tens else "", 0)


def _currency(written: str) -> int:
    """The index of a currency however it is written ("EUR", "€", "euros", "Swiss francs")."""
    name = " ".join(written.lower().split()).removeprefix("swiss ")
    return sorted(set(_CURRENCIES.values())).index(_CURRENCIES[name.rstrip("s") if len(name) > 3 else name])


def _abbreviated(g: dict[str, str | None]) -> tuple[str, tuple[tuple[int | None, int, int], ...]] | None:
    """A sum with its thousands, millions or billions abbreviated ("€41.62k", "1.2M", "3bn"), as cents: an amount
    where a currency is written, else a number; None where the abbreviation is not a whole number of cents."""
    whole, _, part = (g["kn"] or g["kn2"] or "0").strip().replace(",", ".").partition(".")
    scale = {"k": 10 ** 3, "m": 10 ** 6, "b": 10 ** 9, "t": 10 ** 3}[(g["ku"] or g["ku2"] or "k")[0].lower()]
    cents, rest = divmod((int(whole) * 10 ** len(part) + int(part or 0)) * scale * 100, 10 ** len(part))
    if rest:
        return None
    named = g["c1"] or g["c4"]
    if named is None:
        return "number", ((None, 0, cents),)
    return "amount", ((None, _currency(named), cents),)


def _amount(g: dict[str, str | None]) -> tuple[str, tuple[tuple[int | None, int, int], ...]]:
    currency = _currency(g["c1"] or g["c2"] or "")
    return "amount", tuple((None, currency, cents) for cents in _sums(g["a1"] or g["a2"] or "0"))


def _sums(written: str) -> list[int]:
    """A sum in cents, however it is grouped: 1,200.50, 1.200,50 and 1 200,50 are 120050; a separator followed by
    three digits groups thousands (1,200 and 1.200 are 1200), one followed by one or two digits is the decimal point
    (12,50 and 12.50). Empty where it reads neither way (1.2345)."""
    written = re.sub(r"[\s'\u2019]|[.,][-\u2013]$", "", written)
    if re.fullmatch(_INDIAN, written):  # 1,24,500 (the Indian way: pairs above the thousands)
        whole, _, cents = written.partition(".")
        return [int(whole.replace(",", "")) * 100 + int(cents.ljust(2, "0") or 0)]
    if "," in written and "." in written:
        point = max(written.rfind(","), written.rfind("."))
        whole, cents = re.sub(r"\D", "", written[:point]), written[point + 1:]
        return [int(whole) * 100 + int(cents.ljust(2, "0"))]
    sep = "," if "," in written else "." if "." in written else ""
    if not sep:
        return [int(written) * 100]
    parts = written.split(sep)
    if all(len(p) == 3 for p in parts[1:]):
        return [int("".join(parts)) * 100]
    return [int(parts[0]) * 100 + int(parts[1].ljust(2, "0"))] if len(parts) == 2 and len(parts[1]) <= 2 else []


def _number(written: str) -> tuple[str, tuple[tuple[int | None, int, int], ...]]:
    """A number without a currency (12,973, 12.973, 12973), as cents like an amount's sum."""
    return "number", tuple((None, 0, cents) for cents in _sums(written))


def _duration(g: dict[str, str | None]) -> tuple[str, tuple[tuple[int | None, int, int], ...]] | None:
    """A duration as minutes: "90 minutes", "45'", "1.5 h", "1h30", "2 days", "half an hour", "forty-five minutes",
    "1:30 h", "PT1H30M"."""
    if g["fv"]:
        minutes = int(g["fw"] or 0) * 60 + {"¼": 15, "½": 30, "¾": 45}[g["fv"]]
    elif g["fn"]:
        minutes = 60 * int(g["fn"]) // int(g["fd"] or 1)
    elif g["dah"]:
        minutes = _count(g["dah"]) * 60 + 30
    elif g["dhw"]:
        minutes = (1 if g["dhw"].lower() == "an" else _count(g["dhw"])) * 60 + _count(g["dhn"] or "0")
    elif g["dw"]:
        minutes = _WORD_MINUTES[" ".join(re.split(r"[\s-]+", g["dw"].lower()))]
    elif g["dwn"]:
        minutes = _in_words(g["dwn"]) * _MINUTES_PER[(g["dwu"] or "m")[0].lower()]
    elif g["dd_"]:
        minutes = round(float(g["dd_"]) * 24 * 60)
    elif g["dmm"]:
        minutes = int(g["dmm"])
    elif g["dch"]:
        minutes = int(g["dch"]) * 60 + int(g["dcm"] or 0)
    elif g["dih"] or g["dim"]:
        minutes = int(g["dih"] or 0) * 60 + int(g["dim"] or 0)
    elif g["dh"]:
        minutes = round(float(g["dh"]) * 60) + int(g["dhm"] or 0)
    else:
        minutes = int(g["dm_"] or 0)
    return ("duration", ((None, 0, minutes),)) if 0 < minutes <= 7 * 24 * 60 else None


def _count(written: str) -> int:
    """A number in digits or in words ("2", "two", "forty-five")."""
    return int(written) if written.isdigit() else _in_words(written)


def _phone(number: str) -> tuple[str, tuple[tuple[int | None, int, int], ...]] | None:
    """A phone number as its digits (the country code's plus kept apart), however they are grouped."""
    digits = re.sub(r"\D", "", number)
    return ("phone", ((None, len(digits), int(digits)),)) if 7 <= len(digits) <= 15 else None


def _same_phone(one: str, other: str) -> bool:
    """Whether two phone numbers are one: the same digits however grouped, or one written with its country code
    (+31 284 9988) and the other as dialled at home, from a trunk 0 (0284 9988; some countries keep the 0 after
    the code: +39 06 ... and 06 ...)."""
    a, b = re.sub(r"\D", "", one), re.sub(r"\D", "", other)
    if one.lstrip().startswith("+") == other.lstrip().startswith("+"):
        return a == b
    full, home = (a, b) if one.lstrip().startswith("+") else (b, a)
    return any(full.endswith(tail) and 1 <= len(full) - len(tail) <= 3 for tail in (home[1:], home))


def _time(g: dict[str, str | None]) -> tuple[str, tuple[tuple[int | None, int, int], ...]] | None:
    hour, minute, half = next((int(g[h] or 0), int(g[m] or 0) if m else 0, g[ap] if ap else None)
                              for h, m, ap in (("th", "tm", "tap"), ("xh", "xm", ""), ("yh", "ym", "yap"),
                                               ("zh", "zm", ""), ("ah", "", "aap")) if g[h] is not None)
    if half is not None:
        if not 1 <= hour <= 12:
            return None
        hour = hour % 12 + (12 if half.lower() == "p" else 0)
    return ("time", ((None, hour, minute),)) if hour <= 23 and minute <= 59 else None


def _yearless(g: dict[str, str | None]) -> tuple[str, tuple[tuple[int | None, int, int], ...]] | None:
    """A day and a month without a year: "02.06." (day first, dotted, two digits each), "3/11" (either way round, as a
    slashed date with its year is read)."""
    if g["ua"] is not None:
        orders = {(int(g["ub"] or 0), int(g["ua"]))}
    else:
        a, b = int(g["va"] or 0), int(g["vb"] or 0)
        orders = {(a, b), (b, a)}
    both = tuple((None, m, d) for m, d in sorted(orders) if 1 <= m <= 12 and 1 <= d <= 31)
    return ("date", both) if both else None


def _spoken(g: dict[str, str | None]) -> tuple[str, tuple[tuple[int | None, int, int], ...]]:
    """"half past two", "quarter to nine", "twenty-five past six", "10 minutes to 3" (morning or afternoon unless a
    part of the day says which); "noon", "midnight"."""
    if g["noon"]:
        return "time", ((None, 0 if g["noon"].lower() == "midnight" else 12, 0),)
    said = " ".join((g["spm"] or "").lower().replace("-", " ").split()).removeprefix("a ")
    minutes = {"half": 30, "quarter": 15}.get(said) or _count(said.split(" minute")[0].strip())
    face = _face(g["sph"] or "12")
    if (g["spd"] or "").lower() in ("to", "before"):
        face, minutes = (face - 1) % 12, 60 - minutes
    return "time", _in_part(face, minutes, g["spp"])


def _hour_and_minutes(g: dict[str, str | None]) -> tuple[str, tuple[tuple[int | None, int, int], ...]] | None:
    """"nine thirty", "eight forty-five", "six oh five": an hour on the clock's face and its minutes, in words (ten
    to fifty-nine, or a single minute after "oh"); None where the second number is no minute ("two three")."""
    said = (g["wm"] or "").lower()
    oh = re.match(r"o[h']?[\s-]", said)
    minute = _in_words(said[oh.end():] if oh else said)
    if not (1 <= minute <= 9 if oh else 10 <= minute <= 59):
        return None
    return "time", _in_part(_face(g["wh"] or "twelve"), minute, g["wp"])


def _face(hour: str) -> int:
    return (int(hour) if hour.isdigit() else _CLOCK_WORDS.index(hour.lower()) + 1) % 12


def _in_part(face: int, minute: int, part: str | None) -> tuple[tuple[int | None, int, int], ...]:
    """An hour on the clock's face (0-11) as the times of day it may be: morning or afternoon, unless a part of the
    day says which."""
    said = " ".join((part or "").lower().replace(".", "").split())
    if not said:
        return (None, face, minute), (None, face + 12, minute)
    return ((None, face + (0 if said in ("in the morning", "am", "a m") else 12), minute),)


def _on_the_hour(hour: str, part: str | None) -> tuple[str, tuple[tuple[int | None, int, int], ...]]:
    """"9 o'clock" as 09:00 or 21:00 (either, unless a part of the day says which), "nine o'clock in the evening" as
    21:00; "12 o'clock" is noon or midnight."""
    return "time", _in_part(_face(hour), 0, part)


def _is_phone(value: str) -> bool:
    """Whether a structured argument is one phone number and nothing else (`phone="+41650123456"`)."""
    found = mentions(value.strip())
    return len(found) == 1 and found[0].kind == "phone" and found[0].shown == value.strip()


def _shape(text: str) -> str:
    return " ".join(text.lower().split())


def as_user_wrote(text: str, said: str | list[When], today: date | None = None) -> str | None:
    """`text` with each date, time, duration, amount, number or phone number the user also wrote (`said`, or what
    `mentions` read in it), in another format, written as the user did; None where nothing changes."""
    theirs = mentions(said, today) if isinstance(said, str) else said
    out, at = [], 0
    for mine in mentions(text, today):
        if mine.start < at:
            continue  # (another reading of a span already written back)
        same = [u for u in theirs if u.same(mine)]
        if not same or any(_shape(u.shown) == _shape(mine.shown) for u in same):
            continue  # (written as one of the sources wrote it)
        user = same[0]
        if (mine.kind, user.kind) == ("amount", "number"):
            continue  # (the writer who names the currency the source left out adds a fact, not a format)
        out += [text[at:mine.start], user.shown]
        at = mine.end
    return None if not out else "".join(out) + text[at:]
