"""Services: a small simulated production system with versioned configs, deployments and feature flags."""

from __future__ import annotations

from typing import Any, Literal

from coworkenv.apps._common import dump, dump_many
from coworkenv.tools import ToolError, Toolkit, read, write
from coworkenv.world import AppDef, AppState, Key, Order, Record

ConfigValue = str | int | float | bool


class Service(Record):
    name: str
    owner_team: str = ""
    status: Literal["healthy", "degraded", "down"] = "healthy"
    config_version: int = 1
    deployed_version: str = "1.0.0"
    flags: dict[str, bool] = {}
    restarts: int = 0


class ConfigVersion(Record):
    """One version of a service's config; id is `<service>@<version>`."""

    service: str
    version: int
    values: dict[str, ConfigValue]
    author: str = ""
    created_at: str = ""
    note: str = ""


class Deployment(Record):
    service: str
    version: str
    at: str
    by: str = ""


class ServicesState(AppState):
    services: list[Service] = []
    configs: list[ConfigVersion] = []
    deployments: list[Deployment] = []


class ServicesTools(Toolkit):
    app = "services"

    @read
    def list_services(self) -> list[dict[str, Any]]:
        """List services with their status, active config version and deployed version."""
        fields = ("id", "name", "status", "config_version", "deployed_version", "owner_team")
        return dump_many(self.world.table("services", "services").select("id"), *fields)

    @read
    def get_service(self, service: str) -> dict[str, Any]:
        """Get a service: status, active config version, deployed version, flags.

        Args:
            service: Service id, e.g. svc-payments.
        """
        return dump(self._service(service))

    @read
    def get_config(self, service: str, version: int | None = None) -> dict[str, Any]:
        """Get a config version of a service (the active one by default).

        Args:
            service: Service id.
            version: Config version number; default the active one.
        """
        found = self._service(service)
        return dump(self._config(service, version if version is not None else found.config_version))

    @read
    def config_history(self, service: str) -> list[dict[str, Any]]:
        """All config versions of a service, oldest first, with author, time and note.

        Args:
            service: Service id.
        """
        self._service(service)
        configs = self.world.table("services", "configs")
        return dump_many(configs.select("version", sets=[configs.key("service").ids(service)]))

    @write
    def rollback_config(self, service: str, to_version: int) -> dict[str, Any]:
        """Make an earlier config version the active one.

        Args:
            service: Service id.
            to_version: The config version to return to.
        """
        found = self._service(service)
        self._config(service, to_version)
        if to_version == found.config_version:
            raise ToolError(f"{service} already runs config version {to_version}")
        self.put("services", found.model_copy(update={"config_version": to_version}))
        return {"service": service, "config_version": to_version, "previous": found.config_version}

    @write
    def update_config(self, service: str, changes: dict[str, ConfigValue], note: str) -> dict[str, Any]:
        """Create and activate a new config version with some keys changed.

        Args:
            service: Service id.
            changes: Keys and their new values.
            note: Why the change is made.
        """
        found = self._service(service)
        current = self._config(service, found.config_version)
        unknown = sorted(set(changes) - set(current.values))
        if unknown:
            raise ToolError(f"unknown config keys for {service}: {', '.join(unknown)}; see services_get_config")
        configs = self.world.table("services", "configs")
        latest = configs.select("version", sets=[configs.key("service").ids(service)], limit=1, last=True)[0].version
        version = latest + 1
        self.put("configs", ConfigVersion(
            id=f"{service}@{version}", service=service, version=version, values={**current.values, **changes},
            author=self.world.user or "", created_at=self.world.now_iso, note=note,
        ))
        self.put("services", found.model_copy(update={"config_version": version}))
        return {"service": service, "config_version": version}

    @write
    def restart(self, service: str) -> dict[str, Any]:
        """Restart a service (it comes back with its active config).

        Args:
            service: Service id.
        """
        found = self._service(service)
        self.put("services", found.model_copy(update={"restarts": found.restarts + 1}))
        return {"service": service, "restarted_at": self.world.now_iso}

    @write
    def deploy(self, service: str, version: str) -> dict[str, Any]:
        """Deploy a release version of a service.

        Args:
            service: Service id.
            version: Release version, e.g. 2.4.1.
        """
        found = self._service(service)
        deployment = Deployment(id=self.world.new_id("dep", "services", "deployments"), service=service,
                                version=version, at=self.world.now_iso, by=self.world.user or "")
        self.put("deployments", deployment)
        self.put("services", found.model_copy(update={"deployed_version": version}))
        return dump(deployment)

    @write
    def set_flag(self, service: str, flag: str, enabled: bool) -> dict[str, Any]:
        """Turn a feature flag of a service on or off.

        Args:
            service: Service id.
            flag: Flag name (must exist on the service).
            enabled: New value.
        """
        found = self._service(service)
        if flag not in found.flags:
            raise ToolError(f"{service} has no flag {flag!r}; flags: {', '.join(sorted(found.flags)) or 'none'}")
        self.put("services", found.model_copy(update={"flags": {**found.flags, flag: enabled}}))
        return {"service": service, "flag": flag, "enabled": enabled}

    def _service(self, service: str) -> Service:
        return self.require("services", service, "service", "use services_list_services")  # type: ignore[no-any-return]

    def _config(self, service: str, version: int) -> ConfigVersion:
        hint = f"use services_config_history {service}"
        return self.require("configs", f"{service}@{version}", f"config version {version} of {service}", hint)  # type: ignore[no-any-return]


APP = AppDef("services", ServicesState, ServicesTools, "production services: status, configs, deploys, flags", indexes={
    "services": {"id": Order(lambda s: s.id)},
    "configs": {"service": Key(lambda c: c.service), "version": Order(lambda c: c.version)},
})
