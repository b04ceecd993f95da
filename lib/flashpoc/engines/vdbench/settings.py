"""The ``engine: {vdbench: ...}`` settings block (:class:`VdbenchSettings`), validated by :class:`flashpoc.params.Campaign`."""

from __future__ import annotations

import ipaddress
import re
from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from flashpoc.params import EngineSettings, Flag, Size, parse_size


class VdbenchSettings(EngineSettings):
    """Settings of the vdbench engine: general parameters and the run definition (rd=)."""

    controller: str | None = Field(None, description="host that runs vdbench (the master; default the first)")
    controller_address: str | None = Field(
        None, description="the controller's IP address as the other hosts reach it: vdbench gives it to its slaves "
                          "(its own way, the controller's host name, fails when that name resolves to a loopback "
                          "address); needs Java 9 or later on the controller")
    elapsed_s: int = Field(60, ge=1, le=86400, description="rd elapsed= (s)")
    interval_s: int = Field(1, ge=1, le=3600, description="rd interval= (s)")
    warmup_s: int | None = Field(None, ge=0, le=86400, description="rd warmup= (s)")
    iorate: Literal["max", "curve"] | int = Field("max", description="rd iorate=: max, curve or IOPS")
    curve: list[float] | None = Field(None, min_length=1, max_length=100,
                                      description="iorate=curve: % of the measured max, e.g. [10, 50, 90]")
    compratio: float | None = Field(None, ge=1, le=25, description="compratio= (data compressibility)")
    dedupratio: float | None = Field(None, ge=1, le=100, description="dedupratio=")
    dedupunit: Size | None = Field(None, description="dedupunit=, e.g. '4k' (needed with dedupratio)")
    data_errors: int | None = Field(None, ge=0, le=10**9, description="data_errors=")
    messagescan: Flag | None = Field(None, description="messagescan=")
    openflags: str | None = Field("o_direct", description="sd openflags=")
    jvms: int | None = Field(None, ge=1, le=256, description="jvms= for every host (hd=default)")
    shell: Literal["ssh", "rsh", "vdbench"] = Field("ssh", description="hd shell= for remote hosts")

    @field_validator("controller_address")
    @classmethod
    def _ip(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                address = ipaddress.ip_address(value)
            except ValueError:
                raise ValueError(f"{value!r} is not an IP address") from None
            if address.is_loopback or address.is_unspecified:
                raise ValueError(f"{value} is no address the other hosts can reach")
            if address.is_multicast or address == ipaddress.IPv4Address("255.255.255.255"):
                kind = "a multicast" if address.is_multicast else "the broadcast"
                raise ValueError(f"{value} is {kind} address: vdbench's slaves call the controller back at an "
                                 "address of its own (one host's)")
        return value

    @field_validator("dedupunit")
    @classmethod
    def _unit(cls, value: str | None) -> str | None:
        if value is not None and parse_size(value) % 512:
            raise ValueError(f"{value!r}: vdbench needs a dedupunit that is a multiple of 512 bytes")
        return value

    @field_validator("openflags")
    @classmethod
    def _flags(cls, value: str | None) -> str | None:
        if value is not None and not re.match(r"^[a-z_]+(,[a-z_]+)*$|^\([a-z_]+(,[a-z_]+)*\)$", value, re.ASCII):
            raise ValueError(f"{value!r} is not a vdbench openflags value (e.g. o_direct, o_sync)")
        return value

    @field_validator("iorate", mode="before")
    @classmethod
    def _iorate(cls, value: Any) -> Any:
        if isinstance(value, bool) or not (value in ("max", "curve") or isinstance(value, int)):
            raise ValueError(f"use max, curve or an I/O rate in whole IOPS, not {value!r}")
        return value

    @model_validator(mode="after")
    def _consistent(self) -> VdbenchSettings:
        if isinstance(self.iorate, int) and not 1 <= self.iorate <= 10**9:
            raise ValueError("iorate: use max, curve or an I/O rate from 1 to 1000000000 IOPS")
        if self.dedupratio is not None and self.dedupunit is None:
            raise ValueError("dedupratio needs dedupunit (e.g. '4k')")
        if (self.iorate == "curve") != (self.curve is not None):
            raise ValueError("curve goes with iorate: curve (and only with it)")
        if self.curve is not None and not all(0 < c <= 100 for c in self.curve):
            raise ValueError("curve: the values are percentages of the maximum (0-100]")
        return self

    def not_defining_a_point(self, n_hosts: int) -> tuple[str, ...]:
        """How vdbench's slaves reach the controller does not define a point."""
        return ("controller_address",)


SETTINGS = VdbenchSettings
