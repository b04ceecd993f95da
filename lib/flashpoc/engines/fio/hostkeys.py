"""fio's keys of a load host (``hosts[].<key>``), as plain data: the parameters build the host
model from them (:func:`flashpoc.core.registry.host_keys`)."""

HOST_KEYS = {
    "fio": {"kind": "command", "default": "fio", "description": "fio executable on this host"},
}
