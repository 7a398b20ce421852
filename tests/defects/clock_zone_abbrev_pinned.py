"""Times of day the user gave on the 24-hour clock with a colon and an IANA zone ("my on-call shift ends at 02:30
(America/Toronto)") that the writer relays dotted with a one-digit hour and the zone's everyday abbreviation after it,
the Americas' generic ones that hold in either season: "My shift ended 2.30 ET." for Toronto or New York, "9.15 BRT"
for Sao Paulo; the booking mail's "My own working hours start 9.00 CT." for the user's "09:00-17:00" in Chicago. The
post's or the mail's check wants the writer's "2.30", so the honest agent that copies "02:30" fails.
Nobody asked for a notation. The sound twin accepts either.

clock_dotted_bare_pinned's reading placed such a time by a zone's abbreviation after it, but knew only the seasonal
ones (`EST`, `EDT`, `PST`, ...), not `ET`, `CT`, `MT`, `PT`, `BRT` or `ART`, so it did not read the time and never
wrote the user's back: main accepted every case here.

Caught by the format replay (`format_pinned`, `_user_formats`), which now knows those abbreviations too.
"""

from __future__ import annotations

from tests.defects._core import Defect
from tests.defects.clock_dotted_bare_pinned import Site, _edit, _honest

CLASS = "clock_zone_abbrev_pinned"
DETECTION = (
    "read a dotted time with a one-digit hour placed by a zone's generic abbreviation after it ('2.30 ET', '9.15 BRT'); "
    "replay the reference with each time its messages write that the user wrote in another notation, written as the "
    "user did; where a check the reference passes then fails, it pins the writer's notation"
)

EASTERN: Site = ("chat_post_message", "text", "chat", "My shift ended {t} ET.")
BRASILIA: Site = ("chat_post_message", "text", "chat", "My shift ended {t} BRT.")
BOOKING_CT: Site = ("mail_send", "body", "mail", "My own working hours start {t} CT.")
BOOKING_ET: Site = ("mail_send", "body", "mail", "My own working hours start {t} ET.")
BOOKING_BRT: Site = ("mail_send", "body", "mail", "My own working hours start {t} BRT.")


def _pair(name: str, base: str, site: Site, user: str, mine: str) -> Defect:
    what = "posts the shift's end" if site[0] == "chat_post_message" else "mails the working hours"
    away = f"fails the agent that {what} as the user wrote it ('{user}'), not as '{mine}'"
    return Defect(CLASS, name, base, away, breaks=_edit(site, True), fix=_edit(site, False), witness=_honest(site),
                  witness_kind="honest", gate="mutations", code="format_pinned")


DEFECTS = [
    _pair("handoff-post-et-1", "synth:oncall_handoff@1", EASTERN, "02:30", "2.30 ET"),
    _pair("handoff-post-et-2", "synth:oncall_handoff@2", EASTERN, "07:00", "7.00 ET"),
    _pair("handoff-post-et-23", "synth:oncall_handoff@23", EASTERN, "07:15", "7.15 ET"),
    _pair("handoff-post-et-39", "synth:oncall_handoff@39", EASTERN, "07:30", "7.30 ET"),
    _pair("handoff-post-et-43", "synth:oncall_handoff@43", EASTERN, "05:00", "5.00 ET"),
    _pair("handoff-post-brt-4", "synth:oncall_handoff@4", BRASILIA, "09:00", "9.00 BRT"),
    _pair("handoff-post-brt-16", "synth:oncall_handoff@16", BRASILIA, "08:00", "8.00 BRT"),
    _pair("handoff-post-brt-19", "synth:oncall_handoff@19", BRASILIA, "09:15", "9.15 BRT"),
    *(_pair(f"booking-mail-ct-{n}", f"synth:schedule_meeting_timezones@{n}", BOOKING_CT, "09:00", "9.00 CT")
      for n in (3, 15, 19)),
    *(_pair(f"booking-mail-et-{n}", f"synth:schedule_meeting_timezones@{n}", BOOKING_ET, "09:00", "9.00 ET")
      for n in (17, 22, 29)),
    *(_pair(f"booking-mail-brt-{n}", f"synth:schedule_meeting_timezones@{n}", BOOKING_BRT, "09:00", "9.00 BRT")
      for n in (4,)),
]
