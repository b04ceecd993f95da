"""The ``engine: {fio: ...}`` settings block (:class:`FioSettings`), validated by :class:`flashpoc.params.Campaign`."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator

from ...params import STEADYSTATE_RE, Flag, _Strict, ascii_note


class FioSettings(_Strict):
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


SETTINGS = FioSettings
