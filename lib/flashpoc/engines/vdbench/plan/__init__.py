"""vdbench parameter files from campaign parameters (pure: parameters in, parmfile text out).

A parmfile holds, in this order: general parameters (``compratio=``, ``dedupratio=``,
``dedupunit=``, ``data_errors=``, ``messagescan=``), host definitions (``hd=``, only for
several hosts or a remote one), one storage definition (``sd=``) per target, one workload
definition (``wd=``) per workload, and the run definitions (``rd=``) last::

    hd=default,user=root,shell=ssh,jvms=16
    hd=hd1,system=srv1
    sd=sd1,lun=/dev/mapper/3600...,size=250g,openflags=o_direct
    wd=wd1,sd=sd*,rdpct=100,seekpct=100
    rd=rd1,wd=wd1,iorate=max,elapsed=60,interval=1,xfersize=4k,forthreads=(100-500,100)

Thread semantics: vdbench's ``threads`` are per SD (each storage definition gets that many
outstanding I/Os, shared by the hosts and slave JVMs that run it), so a run point keeps
threads x SDs I/Os in flight: the guide's 300 threads on 4 LUNs show a queue depth of 1198 in
totals.html. See :func:`outstanding_ios`.

Every SD is named after its target and every WD after its workload, so vdbench's per-SD
reports and ``Starting RD=`` lines join back to the campaign. Target paths are written as
given: pass ``campaign.resolved()`` so that relative scratch paths become absolute (vdbench
runs in its own directory). Values that vdbench cannot read, or that would break a parmfile
line, raise :class:`~flashpoc.core.errors.ParameterError` naming the key.
"""

from __future__ import annotations

# Every name keeps its old path (flashpoc.engines.vdbench.plan.X): the package re-exports its modules' names.
from flashpoc.engines.vdbench.plan.checks import (NAME_RE, UNSAFE_CHARS, _JAVA_DOUBLE, _SIZE_UNITS, _check_campaign, _check_iorate, _check_name,
                     _check_timing, _check_token, _nonempty, _num, _reads_as_number, _seq, _whole, _xfer, vdbench_size)
from flashpoc.engines.vdbench.plan.hosts import outstanding_ios, remote_hosts, ssh_config, threads_per_host
from flashpoc.engines.vdbench.plan.parmfile import (FILL_ELAPSED_S, FILL_THREADS, FILL_XFERSIZE, _HD_SETTINGS, _check_workloads, _general_lines,
                       _host_lines, _host_settings, _sd_lines, _sd_selector, _seekpct, _wd_line, data_text,
                       fill_xfersize, render_fill_parmfile, render_parmfile)
from flashpoc.engines.vdbench.plan.rd import (RunDefinition, WARMUP_INTERVALS, _run, format_threads, longer_run, probe_run, round_run, sweep_run,
                 warmup_s)
from flashpoc.engines.vdbench.plan.rules import check_params
