"""Times of day the user gave on the 24-hour clock with a colon ("my on-call shift ends at 02:30 (America/Toronto)",
"working hours 09:00-17:00") that the writer relays dotted with a one-digit hour and the zone after it written as
people write it in a hurry or in full: an abbreviation in lower or mixed case ("2.30 est.", "7.00 Edt.", "9.00 cdt.",
"9.00 Cst.", "2.30 ist."), one the reading did not know ("9.00 GST" for Dubai), the zone's everyday name ("7.30
Eastern time.", "9.00 Central Time.", "9.00 Brasilia time.") or its city's ("7.00 Toronto time.", "9.00 (Sao
Paulo).", "9.00 Helsinki time."). The post's, mail's or DM's check wants the writer's "2.30", so the honest agent that
copies the user's "02:30" fails. Nobody asked for a notation. The sound twin accepts either.

The format replay placed such a time only by an upper-case abbreviation of its list (`EST`, `ET`, `BRT`, ...) or an
IANA name in brackets, so it never wrote the user's time back: main accepted every case here.

Caught by the format replay (`format_pinned`, `_user_formats`), which now places a one-digit dotted time by a zone's
abbreviation in any case (one that is also a word, `et`, `est`, `ist`, `art`, `wet`, `cat`, only where the clause
ends after it: "2.30 et 3.15" is French, "2.30 et cetera" Latin), by the everyday names of the zones of the Americas
and by the name of a city that names an IANA zone, with or without `time`, bare or in brackets.
"""

from __future__ import annotations

from collections.abc import Callable

from tests.defects._core import CorpusError, Defect, Spec
from tests.defects.clock_dotted_bare_pinned import Site, _edit, _honest, _zone

CLASS = "clock_zone_case_pinned"
DETECTION = (
    "read a dotted time with a one-digit hour placed by a zone written in any case ('2.30 est.', '9.00 Cst.'), by a "
    "zone's everyday name ('Eastern time') or by its city's ('Toronto time', '(Sao Paulo)'); replay the reference "
    "with each time its messages write that the user wrote in another notation, written as the user did; where a "
    "check the reference passes then fails, it pins the writer's notation"
)

POST = ("chat_post_message", "text", "chat", "My shift ended {t} {z}.")
MAIL = ("mail_send", "body", "mail", "My own working hours start {t} {z}.")
DM = ("chat_send_dm", "text", "chat", "My working day starts {t} {z}.")


def _city(spec: Spec) -> str:
    """The city of the user's zone: named in the turn (oncall_handoff, schedule_meeting_timezones) or their
    directory card's (reschedule_conflict)."""
    try:
        zone = _zone(spec)
    except CorpusError:
        people = spec["world"]["apps"]["directory"]["people"]
        zone = next((p["timezone"] for p in people if p["id"] == spec["user"]), "")
    if "/" not in zone:
        raise CorpusError(f"{spec['capability']}: the user's zone {zone!r} names no city")
    return zone.rsplit("/", 1)[1].replace("_", " ")


def _site(site: tuple[str, str, str, str], zone: str) -> Callable[[Spec], Site]:
    tool, arg, app, sentence = site
    return lambda spec: (tool, arg, app, sentence.replace("{z}", zone.replace("{city}", _city(spec))))


def _pair(name: str, base: str, site: tuple[str, str, str, str], zone: str) -> Defect:
    placed = _site(site, zone)

    def edit(defect: bool) -> Callable[[Spec], None]:
        return lambda spec: _edit(placed(spec), defect)(spec)

    what = {"chat_post_message": "posts the shift's end", "mail_send": "mails the working hours",
            "chat_send_dm": "DMs the working hours"}[site[0]]
    away = f"fails the agent that {what} as the user wrote it ('HH:MM'), not dotted with a one-digit hour before '{zone}'"
    return Defect(CLASS, name, base, away, breaks=edit(True), fix=edit(False), witness=_honest(site),
                  witness_kind="honest", gate="mutations", code="format_pinned")


DEFECTS = [
    _pair("handoff-post-est-lower-1", "synth:oncall_handoff@1", POST, "est"),
    _pair("handoff-post-edt-mixed-2", "synth:oncall_handoff@2", POST, "Edt"),
    _pair("handoff-post-et-lower-23", "synth:oncall_handoff@23", POST, "et"),
    _pair("handoff-post-brt-lower-4", "synth:oncall_handoff@4", POST, "brt"),
    _pair("handoff-post-eastern-time-39", "synth:oncall_handoff@39", POST, "Eastern time"),
    _pair("handoff-post-city-time-43", "synth:oncall_handoff@43", POST, "{city} time"),
    _pair("handoff-post-city-bracketed-16", "synth:oncall_handoff@16", POST, "({city})"),
    _pair("handoff-post-west-lower-11", "synth:oncall_handoff@11", POST, "west"),
    _pair("handoff-post-gmt-lower-46", "synth:oncall_handoff@46", POST, "gmt"),
    _pair("handoff-post-cet-mixed-27", "synth:oncall_handoff@27", POST, "Cet"),
    _pair("booking-mail-cdt-lower-3", "synth:schedule_meeting_timezones@3", MAIL, "cdt"),
    _pair("booking-mail-central-time-15", "synth:schedule_meeting_timezones@15", MAIL, "Central Time"),
    _pair("booking-mail-cst-mixed-19", "synth:schedule_meeting_timezones@19", MAIL, "Cst"),
    _pair("booking-mail-city-time-22", "synth:schedule_meeting_timezones@22", MAIL, "{city} time"),
    _pair("booking-mail-gst-1", "synth:schedule_meeting_timezones@1", MAIL, "GST"),
    _pair("booking-mail-cest-lower-20", "synth:schedule_meeting_timezones@20", MAIL, "cest"),
    _pair("booking-mail-eat-lower-11", "synth:schedule_meeting_timezones@11", MAIL, "eat"),
    _pair("booking-mail-ist-mixed-33", "synth:schedule_meeting_timezones@33", MAIL, "Ist"),
    _pair("booking-mail-sgt-lower-2", "synth:schedule_meeting_timezones@2", MAIL, "sgt"),
    _pair("booking-mail-brasilia-time-4", "synth:schedule_meeting_timezones@4", MAIL, "Brasilia time"),
    _pair("moved-dm-city-time-4", "synth:reschedule_conflict@4", DM, "{city} time"),
    _pair("moved-dm-cet-lower-5", "synth:reschedule_conflict@5", DM, "cet"),
    _pair("moved-dm-ist-lower-7", "synth:reschedule_conflict@7", DM, "ist"),
    _pair("moved-dm-city-bracketed-3", "synth:reschedule_conflict@3", DM, "({city})"),
    _pair("moved-dm-cdt-mixed-8", "synth:reschedule_conflict@8", DM, "Cdt"),
]
