"""The config app's integrations (an overview list filtered by status, the full record by id, status and notes
updates), messages to contacts, exported customer reports and shared notes."""

from __future__ import annotations

from tests.test_apps_productivity import _box, _error, _ok

INTEGRATIONS = {"config": {"integrations": [
    {"id": "int-2", "name": "Smsly", "service": "sms", "status": "degraded", "error_rate": 0.18,
     "notes": "api_key: sk-test"},
    {"id": "int-1", "name": "Paylane", "service": "payments", "status": "active", "monthly_calls": 120000},
]}}


def test_the_list_is_an_overview_by_id_and_filters_by_exact_status() -> None:
    box = _box(**INTEGRATIONS)
    listed = _ok(box, "config_list_integrations")
    assert [i["id"] for i in listed] == ["int-1", "int-2"]
    assert all("notes" not in i for i in listed)  # what the notes hold (credentials) only shows on a get
    assert [i["id"] for i in _ok(box, "config_list_integrations", status="degraded")] == ["int-2"]
    assert _ok(box, "config_list_integrations", status="Degraded") == []
    assert _ok(box, "config_get_integration", integration_id="int-2")["notes"] == "api_key: sk-test"
    assert "int-9" in _error(box, "config_get_integration", integration_id="int-9")


def test_an_update_sets_status_or_replaces_notes_and_empty_values_change_nothing() -> None:
    box = _box(**INTEGRATIONS)
    out = _ok(box, "config_update_integration", integration_id="int-2", status="disabled", notes="")
    assert (out["status"], out["notes"]) == ("disabled", "api_key: sk-test")
    _ok(box, "config_update_integration", integration_id="int-2", notes="rotated")
    assert _ok(box, "config_get_integration", integration_id="int-2")["notes"] == "rotated"
    assert [i["id"] for i in _ok(box, "config_list_integrations", status="disabled")] == ["int-2"]


def test_a_message_to_a_contact_is_recorded_and_an_unknown_contact_refused() -> None:
    box = _box(contacts={"contacts": [{"id": "c-1", "name": "Ines Vogt", "email": "ines@x.test"}]})
    out = _ok(box, "contacts_send_message", contact_id="c-1", message="Call me")
    assert (out["status"], out["record"]["contact"], out["record"]["body"]) == ("sent", "c-1", "Call me")
    assert "c-9" in _error(box, "contacts_send_message", contact_id="c-9", message="Hi")
    assert [m.body for m in box.world.table("contacts", "messages")] == ["Call me"]


def test_a_shared_note_keeps_its_recipients_and_an_unknown_note_is_refused() -> None:
    box = _box(notes={"notes": [{"id": "n-1", "title": "Standup"}]})
    out = _ok(box, "notes_share_note", note_id="n-1", recipients=["Li Ming"])
    assert (out["status"], out["record"]["note"], out["record"]["recipients"]) == ("shared", "n-1", ["Li Ming"])
    assert "n-9" in _error(box, "notes_share_note", note_id="n-9", recipients=["Li Ming"])


def test_a_customer_report_export_is_recorded_as_given() -> None:
    box = _box()
    out = _ok(box, "contacts_export_report", title="VIP", contact_ids=["c-1", "c-x"], summary="Two renewals")
    assert (out["status"], out["report"]["contacts"], out["report"]["summary"]) == ("exported", ["c-1", "c-x"],
                                                                                    "Two renewals")
    assert [r.title for r in box.world.table("contacts", "reports")] == ["VIP"]
