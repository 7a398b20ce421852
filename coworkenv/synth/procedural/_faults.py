"""Production faults for incident tasks: a bad config version, a bad release, or a bad feature flag.

A fault writes its own evidence into the Org (config history, deploy logs, error lines with request ids, a
degraded status) and knows its fix, the state that proves the fix, and how it can silently come back.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from coworkenv.apps.services import ConfigVersion
from coworkenv.synth import pools
from coworkenv.synth.procedural._task import Wire, cond, field_is, log, on_call, put, records, stream, update
from coworkenv.synth.world_builder import Org, Person, Service

FaultKind = Literal["config", "deploy", "flag"]
FAULT_KINDS: tuple[FaultKind, ...] = ("config", "deploy", "flag")
# The service's fields each kind of fix changes; recovery sets `status`, and a restart (`restarts`) is an honest step.
_FIXED_FIELDS: dict[FaultKind, str] = {"config": "config_version", "deploy": "deployed_version", "flag": "flags"}

# config key fragment -> (bad value from good value, error message with {bad})
_CONFIG_FAULTS: tuple[tuple[str, Any, str], ...] = (
    ("pool_size", lambda v: max(2, v // 10), "db pool exhausted (size={bad}): timed out acquiring connection"),
    ("timeout", lambda v: max(20, v // 25), "upstream call timed out after {bad} (limit too low)"),
    ("ttl", lambda v: 0, "cache disabled (ttl={bad}): backend overloaded, returning 503"),
    ("rate_limit", lambda v: max(1, v // 50), "rate limit exceeded ({bad} rps): request rejected"),
    ("retry_budget", lambda v: 0, "retry budget {bad}: gave up on first transient error"),
)
_CRASHES = (
    "panic: nil pointer dereference in {comp}",
    "NullPointerException in {comp}",
    "TypeError: cannot read properties of undefined in {comp}",
    "index out of range in {comp}",
)
_COMPONENTS = ("OrderMapper", "PriceFormatter", "SessionStore", "RateCalculator", "InvoiceWriter", "TokenParser")
_FLAG_ERRORS = (
    "{flag}: KeyError 'currency' in request handler",
    "{flag}: schema mismatch, expected v2 payload",
    "{flag}: division by zero in ranking step",
    "{flag}: unknown enum value 'PENDING_V2'",
)


@dataclass
class Fault:
    """One injected fault and everything a task needs to say about it."""

    kind: FaultKind
    service: Service
    culprit: Person
    started: int  # offset from the world start (negative)
    cause: str  # human summary of the root cause
    fix: tuple[str, Wire]  # tool and arguments of the reference fix
    fixed: Wire  # state rule that holds once fixed
    active: list[Wire]  # state predicates that hold while the fault is active
    error: str  # the error message the service logs
    bad: Any = None
    good: Any = None
    key: str = ""
    failing_requests: list[str] = field(default_factory=list)
    error_lines: list[str] = field(default_factory=list)

    @property
    def service_fields(self) -> list[str]:
        """The fields of the service the fix and the recovery change (a frame allowing these, not the service
        whole: a flag flipped or a config changed beside a redeploy is not the fix)."""
        return [_FIXED_FIELDS[self.kind], "status", "restarts"]


def inject_fault(org: Org, svc: Service, kind: FaultKind, culprit: Person, started: int) -> Fault:
    """Break `svc` at `started` seconds (negative) relative to the world start, leaving evidence in the world."""
    rng = org.rng
    svc.status = "degraded"
    if kind == "config":
        key, make_bad, message = _config_fault(svc)
        good_version, good_value = svc.config_version, svc.values[key]
        bad = make_bad(good_value)
        version = max(c.version for c in svc.configs) + 1
        svc.configs.append(
            ConfigVersion(
                id=f"{svc.id}@{version}",
                service=svc.id,
                version=version,
                values={**svc.values, key: bad},
                author=culprit.id,
                created_at=org.iso(started),
                note=rng.choice(("reduce cost", "tune for load test", "align with staging", "experiment")),
            )
        )
        svc.config_version = version
        org.add_log(svc.id, started + 5, "INFO", f"config version {version} activated")
        return Fault(
            kind,
            svc,
            culprit,
            started,
            f"config v{version} of {svc.id} changed {key} from {good_value} to {bad}",
            ("services_rollback_config", {"service": svc.id, "to_version": good_version}),
            field_is("services", "services", svc.id, "config_version", good_version),
            [field_is("services", "services", svc.id, "config_version", version)],
            message.format(bad=bad),
            bad=version,
            good=good_version,
            key=key,
        )
    if kind == "deploy":
        good = svc.deployed_version
        major, minor, patch = (int(x) for x in good.split("."))
        bad = f"{major}.{minor}.{patch + 1}" if rng.random() < 0.6 else f"{major}.{minor + 1}.0"
        svc.deployed_version = bad
        org.deployments.append(
            {"id": org.new_id("dep"), "service": svc.id, "version": bad, "at": org.iso(started), "by": culprit.id}
        )
        org.add_log(svc.id, started + 5, "INFO", f"release {bad} rolled out (previous {good}) by {culprit.id}")
        message = rng.choice(_CRASHES).format(comp=rng.choice(_COMPONENTS)) + f" (release {bad})"
        return Fault(
            kind,
            svc,
            culprit,
            started,
            f"release {bad} of {svc.id} crashes ({good} was fine)",
            ("services_deploy", {"service": svc.id, "version": good}),
            field_is("services", "services", svc.id, "deployed_version", good),
            [field_is("services", "services", svc.id, "deployed_version", bad)],
            message,
            bad=bad,
            good=good,
        )
    flag = rng.choice([f for f in pools.FLAGS if f not in svc.flags])
    svc.flags[flag] = True
    org.add_log(svc.id, started + 5, "INFO", f"feature flag {flag} enabled by {culprit.id}")
    return Fault(
        "flag",
        svc,
        culprit,
        started,
        f"feature flag {flag} on {svc.id} breaks requests",
        ("services_set_flag", {"service": svc.id, "flag": flag, "enabled": False}),
        field_is("services", "services", svc.id, f"flags.{flag}", False),
        [field_is("services", "services", svc.id, f"flags.{flag}", True)],
        rng.choice(_FLAG_ERRORS).format(flag=flag),
        bad=True,
        good=False,
        key=flag,
    )


def _config_fault(svc: Service) -> tuple[str, Any, str]:
    for key in svc.values:
        for fragment, make_bad, message in _CONFIG_FAULTS:
            if fragment in key:
                return key, make_bad, message
    key = next(iter(svc.values))
    return key, (lambda v: max(1, v // 10)), f"{key}={{bad}} rejected by the worker: request failed"


def log_failures(org: Org, fault: Fault, entry: Service | None, n: int) -> None:
    """Error lines with request ids after the fault started; the entry service logs the same ids upstream."""
    step = max(60, -fault.started // (n + 1))
    for k in range(n):
        at = fault.started + 30 + k * step + org.rng.randrange(0, 40)
        rid = org.request_id()
        fault.failing_requests.append(rid)
        fault.error_lines.append(org.add_log(fault.service.id, at, "ERROR", fault.error, rid))
        if entry is not None:
            org.add_log(entry.id, at + 1, "WARN", f"upstream {fault.service.id} returned 503", rid)


def recovery_dynamics(org: Org, fault: Fault) -> tuple[list[Wire], list[Wire]]:
    """Rules (the fix heals the service; a restart does not) and the error stream that runs while broken."""
    svc = fault.service
    tool, args = fault.fix
    rules = [
        on_call(
            "fix-recovers",
            tool,
            args,
            [
                update("services", "services", svc.id, {"status": "healthy"}),
                log(svc.id, "INFO", "error rate back to normal after the fix"),
            ],
            once=False,
        ),
        on_call(
            "restart-does-not-help",
            "services_restart",
            {"service": svc.id},
            [log(svc.id, "WARN", f"restart complete; still failing: {fault.error}")],
            once=False,
            when=fault.active[:1],
        ),
    ]
    streams = [
        stream("errors", svc.id, "ERROR", fault.error + " (#{n})", org.rng.choice((120, 180, 300)), fault.active[:1])
    ]
    return rules, streams


def recurrence(org: Org, fault: Fault, bot: Person) -> tuple[list[Wire], list[Wire]]:
    """Effects that silently bring the fault back (an automation re-applies it) and the widened 'active' test."""
    svc = fault.service
    effects: list[Wire]
    if fault.kind == "config":
        version = fault.bad + 1
        bad_values = next(c.values for c in svc.configs if c.version == fault.bad)
        effects = [
            put(
                "services",
                "configs",
                {
                    "id": f"{svc.id}@{version}",
                    "service": svc.id,
                    "version": version,
                    "values": bad_values,
                    "author": bot.id,
                    "created_at": "$now",
                    "note": "scheduled profile re-applied",
                },
            ),
            update("services", "services", svc.id, {"config_version": version, "status": "degraded"}),
            log(svc.id, "INFO", f"config version {version} activated by {bot.id}"),
        ]
        active = [
            records("services", "services", [cond("id", svc.id), cond("config_version", [fault.bad, version], "in")])
        ]
    elif fault.kind == "deploy":
        effects = [
            put(
                "services",
                "deployments",
                {
                    "id": f"dep-auto-{org.rng.randrange(100, 999)}",
                    "service": svc.id,
                    "version": fault.bad,
                    "at": "$now",
                    "by": bot.id,
                },
            ),
            update("services", "services", svc.id, {"deployed_version": fault.bad, "status": "degraded"}),
            log(svc.id, "INFO", f"release {fault.bad} rolled out again by {bot.id} (pinned release)"),
        ]
        active = fault.active
    else:
        effects = [
            update("services", "services", svc.id, {"flags": {**svc.flags, fault.key: True}, "status": "degraded"}),
            log(svc.id, "INFO", f"feature flag {fault.key} enabled by {bot.id} (rollout schedule)"),
        ]
        active = fault.active
    return effects, active
