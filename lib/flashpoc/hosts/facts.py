"""Host facts: what a load host is and what its targets look like, in one round-trip.

:func:`collect_host_facts` sends one POSIX shell script to a host (local or SSH) and
:func:`parse_facts` turns its ``key=value`` output into a dict. The script only reads: it
never writes to a target. To learn whether O_DIRECT works for a file the campaign creates and
that does not exist yet, it creates a 4 KiB temporary file next to it (once its path is judged,
:mod:`flashpoc.hosts.paths`), reads it with ``iflag=direct`` and removes it (never under ``/dev``).
A missing tool or an unreadable file gives ``unknown`` (``None`` once parsed), never a failed script.

The parsed dict (JSON-serialisable, for the results manifest)::

    {"facts_version": 1, "hostname": "db1", "os": "Debian GNU/Linux 12 (bookworm)",
     "kernel": "6.1.0-18-amd64", "cpus": 32, "mem_total_bytes": 270582939648,
     "fio_path": "/usr/bin/fio", "fio_version": "fio-3.33",      # "missing" when absent
     "targets": [{"path": "/dev/mapper/lun1", "exists": True, "type": "block",
                  "size_bytes": 107374182400, "parent_exists": True, "parent_writable": True,
                  "free_bytes": None, "direct": True, "direct_error": None,
                  "source": "/dev/mapper/lun1", "device": "dm-3", "slaves": "sdb sdc",
                  "scheduler": "none", "queue_depth": None, "nr_requests": 256,
                  "rotational": False, "transport": "iscsi", "paths": 2, "paths_live": 2,
                  "multipath": "dm mpatha", "fstype": None, "mount_source": None,
                  "mount_options": None}],
     "links": {"net": [{"name": "ens1f0", "speed_mbps": 25000, "state": "up"}],
               "fc": [{"name": "host0", "speed": "16 Gbit", "state": "Online"}],
               "ib": [{"name": "mlx4_0/1", "rate": "40 Gb/sec (4X QDR)", "state": "4: ACTIVE",
                       "link_layer": "InfiniBand"}]}}

``type`` is ``block``, ``file``, ``directory``, ``other`` or ``missing``; ``free_bytes`` is
the space available (``df -P -B1``) on the file system holding a file target or, when
it is missing, its parent directory (``None`` for block devices); ``device`` is the
``/sys/block`` name of the whole disk (or device-mapper device) behind the target.
``cpus`` is the number of online CPUs (``getconf _NPROCESSORS_ONLN``, else ``nproc``).

How a target is reached (read-only, from sysfs and procfs): ``transport`` of the disk under it
(``nvme-pcie``/``nvme-tcp``/``nvme-rdma``/``nvme-fc`` from the NVMe controller's ``transport``,
``fc``/``iscsi``/``sas`` from the SCSI host's class, ``sata``, ``virtio-blk``, ``virtio-scsi``,
``scsi``, ``loop``, ...); for a device-mapper multipath device (dm uuid ``mpath-``) or a native
NVMe multipath namespace, ``paths`` and ``paths_live`` (paths whose SCSI device is ``running`` or
NVMe controller ``live``) and ``multipath`` (``dm NAME`` or ``nvme SUBSYSTEM IOPOLICY``); for a
file, ``fstype``, ``mount_source`` and ``mount_options`` of the mount holding it
(``/proc/self/mountinfo``: an NFS mount's version and options). ``links`` lists the host's network
links (``/sys/class/net``, lo left out; ``speed_mbps`` None when the link reports none), FC ports
(``/sys/class/fc_host``) and InfiniBand ports (``/sys/class/infiniband``).

For an existing block device or file, read-only probes say what a write would destroy and who
uses it (see :mod:`flashpoc.hosts.safety`): ``header_hex`` (its first 8 KiB, ``od``), ``blkid``
(``TYPE=``/``PTTYPE=``/``USAGE=``/``LABEL=`` of ``blkid -p``, low-level probing), ``mounted``
(mount points of it or, for a device, of its partitions), ``holders`` (device-mapper, md or
LVM devices on a device; loop devices backed by a file) and ``open_by`` (``pid:command`` of
processes that have it open, as far as /proc shows them); ``none`` when nothing was found.
"""

from __future__ import annotations

import time
from collections.abc import Collection
from typing import Any

from flashpoc.hosts import safety
from flashpoc.core.errors import ParseError, RemoteError
from flashpoc.hosts.host import LocalHost, SSHHost, quote

FACTS_VERSION = 1
FACTS_TIMEOUT_S = 120.0

INT_KEYS = frozenset({"facts_version", "cpus", "mem_total_bytes", "size_bytes", "free_bytes",
                      "queue_depth", "nr_requests", "paths", "paths_live"})
BOOL_KEYS = frozenset({"exists", "parent_exists", "parent_writable", "direct", "rotational"})
HOST_KEYS = ("facts_version", "hostname", "os", "kernel", "cpus", "mem_total_bytes", "fio_path",
             "fio_version", "tools_missing")
HOST_TOOLS = {
    "pkill": "Ctrl-C and a point past its timeout end the command on the host with it, and fio's server is "
             "stopped with it: without it they run on to their own timeout (procps)",
    "pgrep": "fio's server is waited for with it as it stops (procps)",
    "stat": "the live view finds the targets' devices with it (coreutils)",
    "date": "the live view samples the devices' counters on the second with it (coreutils)",
}
"""The host's tools the workbook calls beyond the shell's and the engine's, each with what it needs
it for: the check warns when one is missing (the facts' ``tools_missing``: ``none`` or their names)."""
TARGET_KEYS = ("path", "exists", "type", "size_bytes", "parent_exists", "parent_writable",
               "free_bytes", "direct", "direct_error", "source", "device", "slaves", "scheduler",
               "queue_depth", "nr_requests", "rotational", "header_hex", "blkid", "mounted", "holders",
               "open_by", "transport", "paths", "paths_live", "multipath", "fstype", "mount_source",
               "mount_options")
LINK_KEYS = ("links.net", "links.fc", "links.ib")
"""Host keys listing the host's links, ``;``-separated entries of ``|``-separated fields:
``links.net`` ``name|speed Mb/s|operstate`` (/sys/class/net), ``links.fc``
``host|speed|port_state`` (/sys/class/fc_host), ``links.ib`` ``device/port|rate|state|link_layer``
(/sys/class/infiniband)."""
LINK_FIELDS = {"links.net": ("name", "speed_mbps", "state"), "links.fc": ("name", "speed", "state"),
               "links.ib": ("name", "rate", "state", "link_layer")}

# Functions first, then the host facts; the per-call part (fio executable, one
# ``target_facts`` line per path, each value quoted) is appended by facts_script().
_SCRIPT_HEAD = r"""
set +e
# put and firstline keep to the shell's builtins (a value's first line, its carriage returns removed):
# about 90 values a host, each a head and a tr process before, were most of the script's CPU
NL='
'
CR=$(printf '\r')
nocr() { case $1 in *"$CR"*) printf '%s' "$1" | tr -d '\r' ;; *) printf '%s' "$1" ;; esac; }
have() { command -v "$1" >/dev/null 2>&1; }
limit() { if have timeout; then timeout 20 "$@"; else "$@"; fi; }
put() {
  v=${2%%"$NL"*}
  case $v in *"$CR"*) v=$(nocr "$v") ;; esac
  [ -n "$v" ] || v=unknown
  printf '%s=%s\n' "$1" "$v"
}
yesno() { if "$@"; then echo yes; else echo no; fi; }
sysblock() {
  n=$(readlink -f "$1" 2>/dev/null); n=${n##*/}
  if [ -n "$n" ] && [ -e "/sys/class/block/$n" ]; then
    if [ -e "/sys/class/block/$n/partition" ]; then
      n=$(readlink -f "/sys/class/block/$n" 2>/dev/null); n=${n%/*}; n=${n##*/}
    fi
  elif have lsblk; then
    n=$(lsblk -ndo PKNAME "$1" 2>/dev/null | head -n 1)
    [ -n "$n" ] || n=$(lsblk -ndo KNAME "$1" 2>/dev/null | head -n 1)
  else
    n=
  fi
  [ -n "$n" ] && [ -d "/sys/block/$n" ] && printf '%s\n' "$n"
}
freebytes() {
  f=$(limit df -P -B1 "$1" 2>/dev/null | awk 'NR == 2 { print $4 }')
  case $f in
    ''|*[!0-9]*)
      f=$(limit df -Pk "$1" 2>/dev/null | awk 'NR == 2 { print $4 }')
      case $f in ''|*[!0-9]*) f= ;; *) f=$((f * 1024)) ;; esac ;;
  esac
  printf '%s\n' "$f"
}
readdirect() {
  err=$(limit dd if="$1" of=/dev/null bs=4096 count=1 iflag=direct 2>&1 >/dev/null)
  if [ $? -eq 0 ]; then direct=yes; else direct=no; direct_error=$(printf '%s\n' "$err" | head -n 1); fi
}
orempty() { if [ -n "$1" ]; then printf '%s\n' "$1"; else echo none; fi; }
safety_facts() {
  # read-only: what a write would destroy (signatures) and who uses the target
  k=$1; p=$2; t=$3
  real=$(readlink -f "$p" 2>/dev/null); [ -n "$real" ] || real=$p
  if [ -r "$p" ] && have od; then
    put "$k.header_hex" "$(limit od -An -v -tx1 -N @HEADER_BYTES@ "$p" 2>/dev/null | tr -d ' \n')"
  fi
  if have blkid; then
    b=$(limit blkid -p -o export "$p" 2>/dev/null | grep -E '^(TYPE|PTTYPE|USAGE|LABEL)=' | tr '\n' ' ')
    put "$k.blkid" "$(orempty "${b% }")"
  fi
  m=$(awk -v r="$real" -v p="$p" '$1 == r || $1 == p { printf "%s ", $2 }' /proc/mounts 2>/dev/null)
  if [ "$t" = block ] && have lsblk; then
    m="$m$(lsblk -nro NAME,MOUNTPOINT "$p" 2>/dev/null | awk 'NF > 1 { printf "%s:%s ", $1, $2 }')"
  fi
  put "$k.mounted" "$(orempty "${m% }")"
  h=
  if [ "$t" = block ]; then
    h=$(ls "/sys/class/block/${real##*/}/holders" 2>/dev/null | tr '\n' ' ')
  else
    for f in /sys/block/loop*/loop/backing_file; do
      [ -r "$f" ] && [ "$(cat "$f" 2>/dev/null)" = "$real" ] && h="$h${f#/sys/block/}"
    done
    h=$(printf '%s' "$h" | sed 's#/loop/backing_file# #g')
  fi
  put "$k.holders" "$(orempty "${h% }")"
  esc=$(printf '%s' "$real" | sed 's/[][*?\\]/\\&/g')
  o=$(limit find /proc/[0-9]*/fd -maxdepth 1 -lname "$esc" 2>/dev/null | while read -r f; do
        pid=${f#/proc/}; pid=${pid%%/*}
        [ "$pid" = "$$" ] || printf '%s:%s ' "$pid" "$(cat "/proc/$pid/comm" 2>/dev/null)"
      done)
  put "$k.open_by" "$(orempty "${o% }")"
}
target_facts() {
  # $3: yes for a file the campaign creates, whose directory the O_DIRECT probe may write a file in
  k=target.$1; p=$2; creates=${3:-no}
  printf '%s.path=%s\n' "$k" "$p"
  if [ -b "$p" ]; then type=block; elif [ -f "$p" ]; then type=file
  elif [ -d "$p" ]; then type=directory; elif [ -e "$p" ]; then type=other; else type=missing; fi
  put "$k.type" "$type"
  if [ "$type" = missing ]; then put "$k.exists" no; else put "$k.exists" yes; fi
  parent=$(dirname "$p")
  # a scratch file's missing directories are created with it: look at the nearest existing one
  while [ ! -d "$parent" ] && [ "$parent" != / ] && [ "$parent" != . ]; do parent=$(dirname "$parent"); done
  put "$k.parent_exists" "$(yesno test -d "$parent")"
  put "$k.parent_writable" "$(yesno test -w "$parent")"
  case $type in
    block)
      s=$(blockdev --getsize64 "$p" 2>/dev/null)
      if [ -z "$s" ]; then
        n=$(readlink -f "$p" 2>/dev/null); n=${n##*/}
        s=$(cat "/sys/class/block/$n/size" 2>/dev/null)
        case $s in ''|*[!0-9]*) s= ;; *) s=$((s * 512)) ;; esac
      fi
      put "$k.size_bytes" "$s" ;;
    file) put "$k.size_bytes" "$(stat -L -c %s "$p" 2>/dev/null)" ;;
  esac
  where=
  if [ "$type" != missing ]; then where=$p; elif [ -d "$parent" ]; then where=$parent; fi
  if [ "$type" != block ] && [ -n "$where" ]; then put "$k.free_bytes" "$(freebytes "$where")"; fi
  direct=unknown; direct_error=
  if have dd; then
    case $type in
      block|file) if [ -r "$p" ]; then readdirect "$p"; fi ;;
      missing)
        case $p in /dev/*) probe=no ;; *) probe=$creates ;; esac
        if [ $probe = yes ] && [ -d "$parent" ] && [ -w "$parent" ] && have mktemp; then
          tmp=$(mktemp "$parent/.flashpoc-direct.XXXXXX" 2>/dev/null)
          if [ -n "$tmp" ]; then
            if dd if=/dev/zero of="$tmp" bs=4096 count=1 2>/dev/null; then readdirect "$tmp"; fi
            rm -f "$tmp"
          fi
        fi ;;
    esac
  fi
  put "$k.direct" "$direct"
  [ -z "$direct_error" ] || put "$k.direct_error" "$direct_error"
  case $SAFETY$type in yesblock|yesfile) safety_facts "$k" "$p" "$type" ;; esac
  src=; dev=
  if [ "$type" = block ]; then
    src=$p
  elif [ -n "$where" ]; then
    if have findmnt; then src=$(limit findmnt -no SOURCE -T "$where" 2>/dev/null | head -n 1); fi
    [ -n "$src" ] || src=$(limit df -P "$where" 2>/dev/null | awk 'NR == 2 { print $1 }')
    src=${src%%\[*}
  fi
  if [ -n "$src" ] && [ -b "$src" ]; then dev=$(sysblock "$src"); fi
  put "$k.source" "$src"
  put "$k.device" "$dev"
  if [ -n "$dev" ]; then
    q=/sys/block/$dev/queue
    s=$(cat "$q/scheduler" 2>/dev/null)
    case $s in *\[*\]*) s=${s#*\[}; s=${s%%\]*} ;; esac
    put "$k.scheduler" "$s"
    put "$k.slaves" "$(ls "/sys/block/$dev/slaves" 2>/dev/null | tr '\n' ' ' | sed 's/ *$//')"
    put "$k.queue_depth" "$(cat "/sys/block/$dev/device/queue_depth" 2>/dev/null)"
    put "$k.nr_requests" "$(cat "$q/nr_requests" 2>/dev/null)"
    r=$(cat "$q/rotational" 2>/dev/null)
    case $r in 1) put "$k.rotational" yes ;; 0) put "$k.rotational" no ;; *) put "$k.rotational" unknown ;; esac
    transport_facts "$k" "$dev"
  fi
  [ "$type" = block ] || [ -z "$where" ] || mount_facts "$k" "$(readlink -f "$where" 2>/dev/null || printf '%s' "$where")"
}
firstline() {
  l=; { IFS= read -r l < "$1"; } 2>/dev/null
  [ -z "$l" ] || { nocr "$l"; echo; }
}
leaf_transport() {
  # the transport of a whole disk (/sys/block name $1): sets tr (and np/nl for NVMe multipath)
  n=$1; dv=$(readlink -f "$SYS/block/$n/device" 2>/dev/null)
  case $n in
    nvme*)
      num=${n#nvme}; num=${num%%[!0-9]*}; t=; c=0; live=0
      if [ -n "$dv" ] && [ -r "$dv/transport" ]; then t=$(firstline "$dv/transport")
      else
        sub=$dv; [ -n "$sub" ] && ls -d "$sub"/nvme[0-9]* >/dev/null 2>&1 || sub=$SYS/class/nvme-subsystem/nvme-subsys$num
        for x in "$sub"/nvme[0-9]*; do
          [ -r "$x/transport" ] || continue
          c=$((c + 1)); [ -n "$t" ] || t=$(firstline "$x/transport")
          [ "$(firstline "$x/state")" = live ] && live=$((live + 1))
        done
        [ -n "$t" ] || t=$(firstline "$SYS/class/nvme/nvme$num/transport")
        if [ $c -gt 0 ] && [ -z "$np" ]; then np=$c; nl=$live; mp="nvme ${sub##*/} $(firstline "$sub/iopolicy")"; fi
      fi
      tp=nvme-${t:-unknown} ;;
    sd*|sr*)
      h=$(printf '%s\n' "$dv" | tr '/' '\n' | grep -E '^host[0-9]+$' | head -n 1)
      if [ -n "$h" ] && [ -d "$SYS/class/fc_host/$h" ]; then tp=fc
      elif [ -n "$h" ] && [ -d "$SYS/class/iscsi_host/$h" ]; then tp=iscsi
      elif printf '%s' "$dv" | grep -q '/session[0-9]'; then tp=iscsi
      elif [ -n "$h" ] && [ -d "$SYS/class/sas_host/$h" ]; then tp=sas
      elif printf '%s' "$dv" | grep -q '/ata[0-9]'; then tp=sata
      elif printf '%s' "$dv" | grep -q '/usb[0-9]'; then tp=usb
      elif printf '%s' "$dv" | grep -q '/virtio[0-9]'; then tp=virtio-scsi
      else tp=scsi; fi ;;
    vd*) tp=virtio-blk ;;
    xvd*) tp=xen-blk ;;
    loop*) tp=loop ;;
    md*) tp=md ;;
    zram*) tp=zram ;;
    *) tp= ;;
  esac
}
transport_facts() {
  # transport, multipath paths of the /sys/block device $2, printed under key $1
  k=$1; n=$2; tp=; np=; nl=; mp=; depth=0
  while :; do
    case $n in dm-*) ;; *) break ;; esac
    sl=$(ls "$SYS/block/$n/slaves" 2>/dev/null | tr '\n' ' ')
    case $(firstline "$SYS/block/$n/dm/uuid") in
      mpath-*)
        np=0; nl=0
        for s in $sl; do
          np=$((np + 1))
          case $(firstline "$SYS/block/$s/device/state") in running|live|'') nl=$((nl + 1)) ;; esac
        done
        mp="dm $(firstline "$SYS/block/$n/dm/name")" ;;
    esac
    set -- $sl; depth=$((depth + 1))
    [ -n "$1" ] && [ $depth -lt 8 ] || { n=; break; }
    n=$1
  done
  [ -n "$n" ] && leaf_transport "$n"
  put "$k.transport" "$tp"
  put "$k.paths" "$np"
  put "$k.paths_live" "$nl"
  put "$k.multipath" "$mp"
}
mount_facts() {
  # file system type, source and options of the mount holding path $2 (longest mount point
  # prefix in mountinfo, the last mounted on top), printed under key $1
  awk -v p="$2" -v k="$1" '
    { for (i = 7; i <= NF && $i != "-"; i++) ; if (i > NF) next
      m = $5; gsub(/\\040/, " ", m)
      if (m == "/" || p == m || index(p, m "/") == 1) {
        if (length(m) >= best) { best = length(m); fs = $(i + 1); src = $(i + 2); opt = $(i + 3) }
      } }
    END { if (fs != "") printf "%s.fstype=%s\n%s.mount_source=%s\n%s.mount_options=%s\n", k, fs, k, src, k, opt }
  ' "$PROC/self/mountinfo" 2>/dev/null
}
link_facts() {
  # the host's network, FC and InfiniBand links and their speeds
  l=
  for d in "$SYS"/class/net/*; do
    [ -e "$d" ] || continue; i=${d##*/}; [ "$i" = lo ] && continue
    sp=$(firstline "$d/speed"); case $sp in ''|*[!0-9-]*) sp=unknown ;; esac
    l="$l$i|$sp|$(firstline "$d/operstate");"
  done
  put links.net "${l%;}"
  l=
  for d in "$SYS"/class/fc_host/*; do
    [ -e "$d" ] || continue
    l="$l${d##*/}|$(firstline "$d/speed")|$(firstline "$d/port_state");"
  done
  put links.fc "${l%;}"
  l=
  for d in "$SYS"/class/infiniband/*/ports/*; do
    [ -e "$d" ] || continue; dev=${d%/ports/*}
    l="$l${dev##*/}/${d##*/}|$(firstline "$d/rate")|$(firstline "$d/state")|$(firstline "$d/link_layer");"
  done
  put links.ib "${l%;}"
}
put facts_version 1
put hostname "$( (hostname || uname -n || cat /proc/sys/kernel/hostname) 2>/dev/null)"
put os "$(sed -n 's/^PRETTY_NAME=//p' /etc/os-release 2>/dev/null | head -n 1 | sed -e 's/^"\(.*\)"$/\1/' -e "s/^'\(.*\)'$/\1/")"
put kernel "$(uname -r 2>/dev/null)"
put cpus "$( (getconf _NPROCESSORS_ONLN || nproc) 2>/dev/null)"
m=; for t in @HOST_TOOLS@; do have "$t" || m="$m $t"; done; [ -n "$m" ] || m=' none'; put tools_missing "${m# }"
kb=$(sed -n 's/^MemTotal: *\([0-9][0-9]*\) kB$/\1/p' /proc/meminfo 2>/dev/null)
case $kb in ''|*[!0-9]*) put mem_total_bytes "" ;; *) put mem_total_bytes $((kb * 1024)) ;; esac
link_facts
"""

_SCRIPT_FIO = r"""
case $fio in
  */*) if [ -f "$fio" ] && [ -x "$fio" ]; then fio_path=$fio; else fio_path=; fi ;;
  *) fio_path=$(command -v "$fio" 2>/dev/null) ;;
esac
if [ -n "$fio_path" ]; then
  put fio_path "$fio_path"
  put fio_version "$(limit "$fio_path" --version 2>/dev/null)"
else
  put fio_path missing
  put fio_version missing
fi
"""


def facts_script(fio: str, target_paths: list[str], *, sys_root: str = "/sys", proc_root: str = "/proc",
                 creating: Collection[str] = (), data_safety: bool = True) -> str:
    """Return the shell script that prints the facts of a host and of ``target_paths``.

    Args:
        fio: the fio executable on the host (a name looked up in PATH, or a path).
        target_paths: block devices or files, in the order they appear in the output.
        creating: those of ``target_paths`` the campaign creates: only in their directory does the
            O_DIRECT probe of a missing target write (and remove) its temporary file.
        sys_root, proc_root: where the transport, multipath, mount and link facts read sysfs
            and procfs (tests point them at captured trees).
        data_safety: read what a write would destroy and who uses each path (``header_hex`` ...
            ``open_by``); False for paths flashpoc never writes (the database's own devices).

    Raises:
        ValueError: when a path is empty or spans lines (it would break the output format).
    """
    for path in [fio, *target_paths]:
        if not path or any(ch in path for ch in "\n\r\0"):
            raise ValueError(f"{path!r} is not a usable path (empty or spans lines)")
    head = (_SCRIPT_HEAD.strip("\n").replace("@HEADER_BYTES@", str(int(safety.HEADER_BYTES)))
            .replace("@HOST_TOOLS@", " ".join(HOST_TOOLS)))
    lines = [f"SYS={quote(sys_root)}; PROC={quote(proc_root)}; SAFETY={'yes' if data_safety else 'no'}", head,
             f"fio={quote(fio)}", _SCRIPT_FIO.strip("\n")]
    lines += [f"target_facts {i} {quote(path)} {'yes' if path in creating else 'no'}"
              for i, path in enumerate(target_paths)]
    lines.append("exit 0")
    return "\n".join(lines) + "\n"


def collect_host_facts(host: LocalHost | SSHHost, target_paths: list[str], *,
                       creating: Collection[str] = (), data_safety: bool = True) -> dict[str, Any]:
    """Collect the facts of ``host`` and of its targets with one command (one round-trip).

    Args:
        host: a connected host from :func:`flashpoc.hosts.host.connect`; its ``fio``
            parameter names the fio executable.
        target_paths: paths of the targets this host uses.
        creating: those the campaign creates (see :func:`facts_script`).
        data_safety: read the data-safety facts of each path (see :func:`facts_script`).

    Returns:
        The parsed facts (see the module docstring).

    Raises:
        RemoteError: when the host cannot be reached or the script cannot run.
        ParseError: when the output is not the script's.
    """
    script = facts_script(host.params.fio, list(target_paths), creating=creating, data_safety=data_safety)
    result = host.run(f"sh -c {quote(script)}", purpose="collect host facts",
                      timeout_s=FACTS_TIMEOUT_S)
    facts = parse_facts(result.stdout)
    facts.update(clock_offset(host))
    return facts


def clock_offset(host: LocalHost | SSHHost) -> dict[str, float | None]:
    """How far the host's clock is from this machine's, from one ``date +%s%N`` round-trip.

    Returns:
        ``{"clock_offset_ms": host clock minus this machine's at the round-trip's midpoint,
        "clock_rtt_ms": the round-trip time, which bounds the error (+/- half of it)}``; both
        None when the host did not print a clock.
    """
    before = time.time()
    result = host.run("date +%s%N", purpose="read the host clock", timeout_s=FACTS_TIMEOUT_S, check=False)
    after = time.time()
    text = result.stdout.strip()
    if result.exited != 0 or not text.isdigit() or len(text) < 19:  # %N unsupported prints 'N'
        return {"clock_offset_ms": None, "clock_rtt_ms": None}
    offset = int(text) / 1e6 - (before + after) / 2 * 1000.0
    return {"clock_offset_ms": offset, "clock_rtt_ms": (after - before) * 1000.0}


def _convert(key: str, value: str) -> Any:
    if value == "unknown":
        return None
    if key in INT_KEYS:
        try:
            return int(value)
        except ValueError:
            return None
    if key in BOOL_KEYS:
        return {"yes": True, "no": False}.get(value)
    return value


def parse_facts(text: str) -> dict[str, Any]:
    """Parse the output of :func:`facts_script` into a facts dict.

    Lines without ``=`` are ignored; unknown values become ``None``; every host and target
    key is present (``None`` when the script did not print it).

    Raises:
        ParseError: when the text lacks the ``facts_version`` line or has another version.
    """
    facts: dict[str, Any] = dict.fromkeys(HOST_KEYS)
    targets: dict[int, dict[str, Any]] = {}
    links: dict[str, list[dict[str, Any]]] = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if not sep:
            continue
        if key.startswith("target."):
            _, index, name = (key.split(".", 2) + ["", ""])[:3]
            if not index.isdigit() or name not in TARGET_KEYS:
                continue
            target = targets.setdefault(int(index), dict.fromkeys(TARGET_KEYS))
            target[name] = value if name == "path" else _convert(name, value)
        elif key in HOST_KEYS:
            facts[key] = _convert(key, value)
        elif key in LINK_KEYS:
            links[key.split(".", 1)[1]] = parse_links(key, value)
    if facts["facts_version"] != FACTS_VERSION:
        found = "no facts_version line" if facts["facts_version"] is None else f"version {facts['facts_version']}"
        raise ParseError(f"host facts: expected facts_version={FACTS_VERSION}, found {found}:\n{text[:500]}")
    facts["targets"] = [targets[i] for i in sorted(targets)]
    facts["links"] = links
    return facts


def parse_links(key: str, value: str) -> list[dict[str, Any]]:
    """The entries of a ``links.*`` line (:data:`LINK_KEYS`) as dicts of :data:`LINK_FIELDS`
    (``speed_mbps`` an int, None when the link reports none, e.g. -1 for a link that is down)."""
    if value in ("", "unknown"):
        return []
    entries = []
    for entry in value.split(";"):
        fields = dict(zip(LINK_FIELDS[key], entry.split("|")))
        if "speed_mbps" in fields:
            speed = fields["speed_mbps"]
            fields["speed_mbps"] = int(speed) if speed.isdigit() and int(speed) > 0 else None
        entries.append({name: (text or None) if isinstance(text, str) else text for name, text in fields.items()})
    return entries


def target_lines(host: LocalHost | SSHHost, targets: list, probe: str, what: str, *,
                 timeout_s: float | None = None) -> list[str]:
    """Run the shell ``probe`` once per target on ``host`` (with ``$p`` the target's quoted path), in
    one command, and return its one line per target, in order (``what``: for messages; ``timeout_s``:
    default the host's ``command_timeout_s``).

    Raises:
        RemoteError: the command failed, or did not print one line per target.
    """
    command = "; ".join(f"p={quote(t.path)}; {probe}" for t in targets)
    lines = host.run(command, purpose=what, timeout_s=timeout_s).stdout.splitlines()
    if len(lines) != len(targets):
        raise RemoteError(f"{host.name}: {what}: expected {len(targets)} lines, got {lines!r}")
    return [line.strip() for line in lines]
