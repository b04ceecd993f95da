"""The ``engine: {fio: ...}`` settings block (:class:`FioSettings`), validated by :class:`flashpoc.params.Campaign`."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator, model_validator

from flashpoc.params import STEADYSTATE_RE, EngineSettings, Flag, ascii_note


class FioSettings(EngineSettings):
    """Settings of the fio engine shared by every run point."""

    ioengine: Literal["libaio", "io_uring", "psync", "sync", "posixaio"] = "libaio"
    direct: Flag = True
    runtime_s: int = Field(60, ge=1, le=86400, description="measured time per point (s)")
    ramp_s: int = Field(0, ge=0, le=3600, description="warm-up per point, not measured (s)")
    steadystate: str | None = Field(
        None, description="fio steady-state criterion, e.g. 'iops_slope:0.3%' (ends a point early)"
    )
    ss_dur_s: int = Field(10, ge=1, le=86400)
    ss_ramp_s: int = Field(0, ge=0, le=86400)
    buffer_compress_percentage: int | None = Field(None, ge=0, le=100)
    dedupe_percentage: int | None = Field(None, ge=0, le=100)
    randrepeat: Flag = False
    interval_s: int = Field(1, ge=0, le=3600, description="seconds per interval of the per-point time "
                            "series (fio log_avg_msec); 0: no interval logs")
    multi_host: Literal["client-server", "per-host"] = Field(
        "client-server", description="several hosts: 'client-server' runs fio --server on each host and one "
                                     "fio --client=... here, so all start together; 'per-host' one fio per host over SSH")
    server_port: int = Field(8765, ge=1024, le=65535, description="TCP port of fio --server on the load hosts")

    @field_validator("steadystate")
    @classmethod
    def _ss(cls, value: str | None) -> str | None:
        if value is not None and not STEADYSTATE_RE.match(value):
            raise ValueError(f"{value!r} is not a fio steady-state criterion (e.g. 'iops_slope:0.3%'){ascii_note(value)}")
        return value

    @model_validator(mode="after")
    def _window(self) -> FioSettings:
        """``ss_dur_s`` and ``ss_ramp_s`` are the window of ``steadystate`` (the phases' until_steady has
        its own): without it fio would never read them."""
        if self.steadystate is None:
            for key in ("ss_dur_s", "ss_ramp_s"):
                if getattr(self, key) != type(self).model_fields[key].default:
                    raise ValueError(f"{key}: goes with steadystate (fio's own criterion), which is not set: set "
                                     f"steadystate or leave {key} out")
        return self

    def not_defining_a_point(self, n_hosts: int) -> tuple[str, ...]:
        """How several hosts run (client-server or one fio per host, the servers' port) does not
        define a point on one host."""
        return ("multi_host", "server_port") if n_hosts == 1 else ()


SETTINGS = FioSettings

DEFAULT_ENGINE = True
"""fio is the engine of a campaign whose parameters name none (:func:`flashpoc.core.registry.default_engine`)."""

#: fio's key in the campaign's ``engine_state`` (:class:`flashpoc.hosts.workbench.Workbench`): its
#: servers run on every host, True read-only, False read-write; absent: none started (the engine's
#: ``close`` stops them)
SERVERS = "fio_servers"
