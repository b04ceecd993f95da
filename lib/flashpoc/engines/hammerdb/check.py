"""The HammerDB check: HammerDB runs on the load host, its database driver loads, the database
answers, the TPROC-C schema is there with the warehouse count of the settings (or absent when the
settings ask for a build: a build never goes over an existing schema), and on Oracle AWR is
licensed (the Diagnostics Pack), as for SLOB.

:func:`check_problems` (pure) turns the facts the check script printed into problems, one line
each; :func:`check_hammerdb` runs the script through the host interface.
"""

from __future__ import annotations

from flashpoc.hosts.group import Group
from flashpoc.engines.hammerdb.parse import parse_check
from flashpoc.engines.hammerdb.plan import check_script
from flashpoc.engines.hammerdb.run import attempt_dir, attempts_root, clear_stale, run_hammerdb
from flashpoc.engines.hammerdb.settings import HammerdbSettings


def check_problems(s: HammerdbSettings, facts: dict[str, str], *, where: str = "") -> list[str]:
    """What stops a HammerDB campaign, from the check's facts (empty: nothing)."""
    at = f"{where}: " if where else ""
    target = f"{s.service}" if s.database == "oracle" else f"{s.host}:{s.port}"
    if "hammerdb" not in facts or "tcl" not in facts:
        return [f"{at}HammerDB does not run from {s.hammerdb_dir} (hammerdb_dir: install it there, e.g. with the "
                "HammerDB kit's install.sh)"]
    if "error" in facts:
        return [f"{at}{facts['error']} (the HammerDB scripts read the passwords there; env_file may export them)"]
    if "driver_error" in facts:
        return [f"{at}HammerDB's {s.database} driver does not load: {facts['driver_error']}"]
    if "password_unusable" in facts:
        return [f"{at}the password in {facts['password_unusable']} holds a space, quote, brace or backslash, which "
                "HammerDB's PostgreSQL connection string cannot carry: choose a password without them"]
    if "connect_error" in facts:
        return [f"{at}cannot connect to {target} as {s.superuser_name}: {facts['connect_error']}"]
    if facts.get("connect") != "ok" or "database" not in facts:
        return [f"{at}the HammerDB check script did not complete (its console says why)"]
    exists = facts["database"] not in ("", "0")
    what = f"schema user {s.user}" if s.database == "oracle" else f"database {s.dbname}"
    problems = []
    if s.database == "oracle" and "DIAGNOSTIC" not in facts.get("pack", "").upper():
        problems.append(f"{at}AWR needs the Diagnostics Pack: control_management_pack_access="
                        f"{facts.get('pack') or '(unknown)'} on {target}")
    if s.build_schema:
        if exists:
            problems.append(f"{at}build_schema is set but the TPROC-C {what} already exists on {target}: "
                            "HammerDB never builds over a schema; drop it first or set build_schema: false")
        return problems
    if exists and "user_connect_error" in facts:
        where_to = f"database {s.dbname} on {target}" if s.database == "postgresql" else target
        problems.append(f"{at}the TPROC-C {what} exists but {s.user} cannot log in to {where_to}: "
                        f"{facts['user_connect_error']} (its password is read from {s.password_env} on the load "
                        "host: password_env)")
    elif not exists or "warehouses" not in facts:
        reason = facts.get("schema_error", f"no {what}")
        problems.append(f"{at}no TPROC-C schema on {target} ({reason}): set build_schema: true to build "
                        f"{s.warehouses} warehouses")
    elif int(facts["warehouses"]) != s.warehouses:
        problems.append(f"{at}the TPROC-C schema on {target} has {facts['warehouses']} warehouses; the settings "
                        f"say warehouses: {s.warehouses}")
    return problems


def check_hammerdb(host, s: HammerdbSettings, run_dir: str, *, timeout_s: float = 120) -> tuple[dict, list[str]]:
    """Run the check script on ``host`` (in the new directory ``run_dir``); return its facts and
    the problems found (none: the campaign can run).

    Raises:
        RemoteError: the host cannot be reached.
    """
    run = run_hammerdb(host, check_script(s), run_dir, hammerdb_dir=s.hammerdb_dir, env_file=s.env_file,
                       secret_names=s.password_variables,
                       timeout_s=timeout_s, purpose="check HammerDB and the TPROC-C schema")
    facts = parse_check(run.console)
    return facts, check_problems(s, facts, where=host.name)


#: the check row that holds HammerDB's version as its banner prints it (the manifest's engine_versions)
VERSION_ROW = "HammerDB"
_DATABASE_FAILS = ("error", "driver_error", "password_unusable", "connect_error")


def check_rows(s: HammerdbSettings, host: str, facts: dict[str, str]) -> list:
    """The check's rows of one load host from the facts its check script printed (pure): HammerDB
    and its version, the database (reached as the superuser, its version), the TPROC-C schema (its
    warehouses against the settings, or its absence when the settings ask for a build)."""
    from flashpoc.core.records import check_row

    problems = check_problems(s, facts)
    if "hammerdb" not in facts or "tcl" not in facts:
        return [check_row(host, VERSION_ROW, None, "fail", problems[0])]
    rows = [check_row(host, VERSION_ROW, facts["hammerdb"], "pass", f"Tcl {facts['tcl']}"
                 + (f", {facts['driver']}" if facts.get("driver") else "") + f", in {s.hammerdb_dir}")]
    target = s.service if s.database == "oracle" else f"{s.host}:{s.port}"
    if any(k in facts for k in _DATABASE_FAILS) or facts.get("connect") != "ok" or "database" not in facts:
        return rows + [check_row(host, "database", None, "fail", problems[0])]
    rows.append(check_row(host, "database", facts.get("version"), "pass",
                     f"{s.database} at {target}, connected as {s.superuser_name}"))
    awr = [p for p in problems if p.startswith("AWR needs")]
    if s.database == "oracle":
        rows.append(check_row(host, "AWR licence", facts.get("pack"), "fail" if awr else "pass", "; ".join(awr)))
    schema = [p for p in problems if p not in awr]
    value = f"{facts['warehouses']} warehouses" if "warehouses" in facts else "none"
    detail = "; ".join(schema) or (f"to be built ({s.warehouses} warehouses, build_schema)" if s.build_schema
                                    else f"{s.warehouses} warehouses, as the settings say")
    return rows + [check_row(host, "TPROC-C schema", value, "fail" if schema else "pass", detail)]


def check_campaign_hosts(campaign, connect, seen: dict | None = None) -> list:
    """Rows of every load host of ``campaign``: its check script run as a new attempt in the host's
    attempts folder (:mod:`.run`; what earlier attempts left there removed first); an unreachable
    host is one ``fail`` row naming it. ``seen`` gets each reached host's facts, by name."""
    from flashpoc.core.records import check_row
    from flashpoc.core.errors import RemoteError

    s = campaign.settings

    def host_rows(params) -> list:
        try:
            with connect(params) as host:
                root = attempts_root(params.workdir, campaign.campaign, params.name)
                clear_stale(host, root, purpose="check HammerDB")
                facts, _ = check_hammerdb(host, s, attempt_dir(params.workdir, campaign.campaign, params.name, "check"),
                                          timeout_s=min(params.command_timeout_s, 300))
        except (RemoteError, OSError, EOFError) as error:
            return [check_row(params.name, VERSION_ROW, None, "fail", str(error) or type(error).__name__)]
        if seen is not None:
            seen[params.name] = facts
        return check_rows(s, params.name, facts)

    done = Group(campaign.hosts).map(host_rows, purpose="check HammerDB")  # side by side: a HammerDB start takes seconds
    return [row for p in campaign.hosts for row in (done.succeeded.get(p.name) or
                                                   [check_row(p.name, VERSION_ROW, None, "fail", str(done.failed[p.name]))])]
