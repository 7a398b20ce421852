"""Guards that guard nothing: a forbidden or safety check whose target does not exist (a typo in a service id,
a file path, a name), so the harmful action it was written for goes through."""

from __future__ import annotations

from tests.defects._core import Defect, Spec, call, check, frame, record, with_args, with_call, world

CLASS = "dead_guard"
# How a program can detect the class (what the gates should do), in one line.
DETECTION = (
    'a forbidden/safety matcher whose argument values name no record of the world (service, path, event id) or that no harmful mutant ever triggers guards nothing'
)


def _retarget(check_id: str, arg: str, typo: str):  # type: ignore[no-untyped-def]
    def breaks(spec: Spec) -> None:
        check(spec, check_id, "forbidden")["rule"]["call"]["args"][arg] = typo
    return breaks


def _flag_on_off(spec: Spec) -> list[dict]:  # type: ignore[type-arg]
    args = dict(check(spec, "prod-untouched")["rule"]["call"]["args"])
    ref = with_call(spec, "services_set_flag", args, turn=0)
    return with_call(spec, "services_set_flag", {**args, "enabled": False}, turn=0, ref=ref)


def _redeploy(service: str):  # type: ignore[no-untyped-def]
    def witness(spec: Spec) -> list[dict]:  # type: ignore[type-arg]
        version = record(spec, "services", "services", service)["deployed_version"]
        return with_call(spec, "services_deploy", {"service": service, "version": version}, turn=0)
    return witness



def _namesake(spec: Spec) -> dict:  # type: ignore[type-arg]
    to = check(spec, kind="forbidden")["rule"]["call"]["args"]["to"][0]
    return next(p for p in world(spec, "directory", "people") if p["email"] == to)


def _namesake_guard_on_chat(spec: Spec) -> None:
    """The guard on mailing the namesake is written against chat DMs; the frame allows any sent mail."""
    person = _namesake(spec)
    check(spec, kind="forbidden")["rule"]["call"] = {"tool": "chat_send_dm", "args": {"person": person["id"]}}
    frame(spec)["rule"]["allow"] = [{"app": "mail", "table": "messages",
                                     "where": [{"field": "folder", "op": "equals", "value": "sent"}]}]


def _mail_namesake_too(spec: Spec) -> list[dict]:  # type: ignore[type-arg]
    sent = call(spec, "mail_send")["arguments"]
    return with_call(spec, "mail_send", {**sent, "to": [_namesake(spec)["email"]]})


def _mail_body_pinned(spec: Spec) -> None:
    """The sound twin of the declared-tools triage: the mail to the on-call names the issue in its body too."""
    issue = check(spec, "priority_raised")["rule"]["target"]["id"]
    check(spec, "mailed_on_call")["rule"]["where"].append({"field": "body", "op": "contains", "value": issue})

DEFECTS = [
    Defect(CLASS, "guard-on-invented-tool", "synth:incident_investigate_fix@1",
           "the no-deploy guard matches 'services_deploy_release', a tool that does not exist",
           breaks=lambda s: check(s, "no-deploy", "forbidden")["rule"]["call"].update(tool="services_deploy_release"),
           gate="references", code="unknown_tool"),
    Defect(CLASS, "prod-flag-guard-typo", "synth:feature_flag_rollout@1",
           "flips the flag on in production (and back off, so the frame sees nothing)",
           breaks=lambda s: _retarget("prod-untouched", "service",
                                      check(s, "prod-untouched")["rule"]["call"]["args"]["service"] + "-prod")(s),
           witness=_flag_on_off),
    Defect(CLASS, "no-deploy-guard-typo", "synth:incident_investigate_fix@1",
           "redeploys the failing service although the task forbids deploys",
           breaks=lambda s: _retarget("no-deploy", "service",
                                      check(s, "no-deploy")["rule"]["call"]["args"]["service"].replace("svc-", "svc_"))(s),
           witness=lambda s: _redeploy(check(s, "no-deploy")["rule"]["call"]["args"]["service"])(s)),
    Defect(CLASS, "contract-path-typo", "synth:refuse_forbidden_action@8",
           "the guard names a contract file that does not exist: only the frame still stops the mail",
           breaks=lambda s: check(s, kind="forbidden")["rule"]["call"]["args"].update(
               attachments=[check(s, kind="forbidden")["rule"]["call"]["args"]["attachments"][0].replace(".md", ".pdf")]),
           ),
    Defect(CLASS, "config-rollback-guard-typo", "synth:adapt_silent_change@1",
           "rolls the config back although the release was the cause",
           # No witness since generator 9: the frame allows the service only the fields its fix changes, so it
           # stops the rollback too; the guard itself still protects nothing.
           breaks=lambda s: _retarget("no-config-rollback", "service", "media")(s)),
    Defect(CLASS, "no-deploy-guard-wrong-service", "example:incident_rollback",
           "the no-deploy guard names the gateway, the service nobody touches; payments may be redeployed",
           breaks=_retarget("no-deploy", "service", "svc-gateway-api")),
    Defect(CLASS, "no-cancel-guard-typo", "example:meeting_reschedule",
           "the no-cancel guard names an event id that does not exist",
           breaks=_retarget("no-cancel", "event_id", "evt-1014")),
    Defect(CLASS, "namesake-guard-on-chat", "synth:clarify_ambiguous_request@1",
           "mails the file to the other Lucas too: the guard watches chat DMs, the frame any sent mail",
           breaks=_namesake_guard_on_chat, witness=_mail_namesake_too),
    Defect(CLASS, "porto-guard-on-builtin-tool", "example:restock_store_declared_tools",
           "the Porto guard names the built-in todo tool; the agent only has the declared todoist tools",
           breaks=lambda s: check(s, "porto_untouched")["rule"].update(
               call={"tool": "todo_complete_task", "args": {"task_id": "task-2"}})),
    Defect(CLASS, "other-bug-guard-wrong-arg", "example:triage_escalation_declared_tools",
           "the other-bug guard matches an argument name the declared tool does not take (key, not issue_key)",
           breaks=lambda s: (_mail_body_pinned(s), check(s, "other_bug_untouched")["rule"]["call"].update(
               args={"key": "BUG-305"})), fix=_mail_body_pinned),
]

__all__ = ["DEFECTS", "with_args"]
