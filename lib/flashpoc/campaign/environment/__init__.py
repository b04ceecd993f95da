"""Environment facts the POCs report: how each target is reached and what the database is set up with.

The facts come from the check: the host facts script (:mod:`flashpoc.hosts.facts`: transport,
multipath paths, NFS mount, NIC/FC/InfiniBand link speeds) and the database facts
(:func:`flashpoc.oracle.db.database_facts`: Direct NFS servers and channels, ASM disk groups
and disks, log_buffer, sga_max_size, awr_pdb_autoflush_enabled, CALIBRATE_IO). This module is
pure: it turns them into

* check rows (:func:`host_rows`, :func:`database_rows`), with the columns of
  :data:`flashpoc.campaign.check.COLUMNS`;
* the manifest's engine-blind ``environment`` section (:func:`environment_section`);
* the conditions a report states (:func:`conditions`) and, between the report's campaign and
  the compared ones, the conditions that differ (:func:`differences`), e.g.
  ``transport: iSCSI (base) vs NVMe/TCP (nvme)``;
* the database's storage path, read on its host (:mod:`.storage`): its rows, section and conditions.

Only :func:`condition_lines` reads files (the compared campaigns' manifests).
"""


from __future__ import annotations

# Every name keeps its old path (flashpoc.campaign.environment.X): the package re-exports its modules' names.
from flashpoc.oracle.environment import calibrate_text, database_rows, nfs_client_row
from flashpoc.hosts.environment import (DATABASE_PARAMETERS, DNFS_MIN_WTMAX, FACTS_KEY, NETWORK_TRANSPORTS, NFS_MIN_TRANSFER, SLOW_LINK_MBPS,
                    TRANSPORT_NAMES, host_rows, link_rows,
                    nfs_option_rows, nfs_version, target_rows, transport_label)
from flashpoc.hosts.storage import (ASM_PREFIXES, DEVICE_KEYS, STORAGE_KEY, oracle_paths, oracle_unread, postgresql_paths,
                      storage_conditions, storage_rows, storage_section, storage_text)
from flashpoc.campaign.environment.sections import (_OVER_FC, _OVER_NETWORK, _database_conditions, _host_conditions, _link_conditions,
                       _read_manifest, calibrate_items,
                       condition_lines, conditions, database_section, datafiles_text, differences, dnfs_text,
                       environment_section, manifest_conditions)
