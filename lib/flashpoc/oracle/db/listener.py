"""The listener's answer to a TNS ping (or a TLS handshake), required before python-oracledb connects."""

from __future__ import annotations

import socket
import ssl
import struct

from flashpoc.core.errors import RemoteError
from flashpoc.oracle.db.settings import OracleSettings, _endpoint


def _tns_ping_packet(host: str, port: int) -> bytes:
    """A TNS CONNECT packet carrying ``(CONNECT_DATA=(COMMAND=ping))``, as ``tnsping`` sends."""
    data = f"(DESCRIPTION=(CONNECT_DATA=(COMMAND=ping))(ADDRESS=(PROTOCOL=TCP)(HOST={host})(PORT={port})))"
    payload = data.encode("ascii")
    offset = 58
    body = struct.pack(
        ">HHHHHHHHHHIBB",
        0x0136,  # version
        0x012C,  # lowest compatible version
        0x0000,  # service options
        0x0800,  # session data unit
        0x7FFF,  # transport data unit
        0x4F98,  # protocol characteristics
        0x0000,  # line turnaround
        0x0001,  # value of 1 in hardware byte order
        len(payload),
        offset,
        0,  # max receivable connect data
        0x41,  # connect flags 0
        0x41,  # connect flags 1
    )
    header_len = 8
    padding = offset - header_len - len(body)
    body += b"\x00" * padding
    header = struct.pack(">HHBBH", offset + len(payload), 0, 1, 0, 0)  # type 1: CONNECT
    return header + body + payload


def check_listener(settings: OracleSettings) -> None:
    """Require the listener behind ``settings.dsn`` to answer within ``connect_timeout_s``.

    Sends a TNS ping (plain TCP) or does a TLS handshake (``tcps``); any answer, even a refusal
    or a closed connection, counts: only silence and failed TCP connects fail.

    Raises:
        ParameterError: The DSN cannot be parsed.
        RemoteError: The TCP connect failed, or the listener did not answer in time.
    """
    host, port, protocol = _endpoint(settings)
    timeout_s = settings.connect_timeout_s
    where = f"Oracle listener {host}:{port} (dsn {settings.dsn})"
    try:
        sock = socket.create_connection((host, port), timeout=timeout_s)
    except OSError as exc:
        raise RemoteError(f"{where}: TCP connect failed within {timeout_s:g} s: {exc}") from None
    try:
        sock.settimeout(timeout_s)
        if protocol == "tcps":
            context = ssl.create_default_context()
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE  # liveness only; oracledb verifies the certificate
            try:
                with context.wrap_socket(sock, server_hostname=host, do_handshake_on_connect=False) as tls:
                    tls.do_handshake()
            except ssl.SSLError:
                return  # the server answered (with a TLS alert)
        else:
            sock.sendall(_tns_ping_packet(host, port))
            sock.recv(8)  # b"" (closed) is an answer too
    except (socket.timeout, TimeoutError):
        raise RemoteError(
            f"{where}: accepted the TCP connection but did not answer within {timeout_s:g} s "
            f"(not an Oracle listener, or hung)"
        ) from None
    except OSError as exc:
        if isinstance(exc, ConnectionResetError):
            return  # answered by resetting: alive, oracledb will report the real error
        raise RemoteError(f"{where}: {exc}") from None
    finally:
        sock.close()
