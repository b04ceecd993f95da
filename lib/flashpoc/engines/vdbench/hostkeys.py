"""vdbench's keys of a load host (``hosts[].<key>``), as plain data: the parameters build the host
model from them (:func:`flashpoc.core.registry.host_keys`)."""

HOST_KEYS = {
    "vdbench": {"kind": "directory", "default": None,
                "description": "vdbench install directory on this host (hd vdbench=)"},
    "jvms": {"kind": "count", "default": None, "limits": {"ge": 1, "le": 256},
             "description": "vdbench slave JVMs on this host (hd jvms=)"},
}
