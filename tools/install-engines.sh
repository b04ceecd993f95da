#!/bin/sh
# Install the engines whose kits are in KITS (a folder holding e.g. vdbench/install.sh) into
# DEST/<engine>, for the tests that run them for real. A kit already installed from the same
# archive is left as it is; a missing KITS folder installs nothing (those tests then skip).
# Usage: tools/install-engines.sh KITS DEST
set -eu
kits=$1
dest=$2
[ -d "$kits" ] || { echo "no engine kits in $kits: the tests that need vdbench skip"; exit 0; }
mkdir -p "$dest"
for installer in "$kits"/*/install.sh; do
    [ -f "$installer" ] || continue
    engine=$(basename "$(dirname "$installer")")
    stamp=$(cat "$(dirname "$installer")"/*.tar.gz 2>/dev/null | cksum | cut -d' ' -f1)
    if [ -f "$dest/$engine.installed" ] && [ "$(cat "$dest/$engine.installed")" = "$stamp" ]; then
        continue
    fi
    echo "installing $engine from $kits/$engine"
    sh "$installer" "$(cd "$dest" && pwd)/$engine" >/dev/null
    echo "$stamp" > "$dest/$engine.installed"
done
