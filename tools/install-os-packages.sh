#!/bin/sh
# Install the OS packages flashpoc needs (Debian/Ubuntu): fio, and for the tests openssh-server.
# As root it uses apt-get; otherwise sudo when available; else it says what to install.
# Usage: tools/install-os-packages.sh PACKAGE...
set -eu
missing=""
for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing="$missing $pkg"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ]; then
    SUDO=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    SUDO="sudo"
else
    echo "flashpoc needs these OS packages:$missing" >&2
    echo "install them with: sudo apt-get install$missing" >&2
    exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "flashpoc needs:$missing (no apt-get here: install them with your package manager)" >&2
    exit 1
fi
echo "installing OS packages:$missing"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >/dev/null
