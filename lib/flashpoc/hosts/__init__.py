"""hosts: a host (local or over SSH), several hosts at once (Group), the fake host for tests, host
facts and the parsers of host-side text (/proc, mountstats, sampled CPU and disks); no engine here."""
