#!/bin/sh
# install-deps.sh - install the Debian packages tracesync builds, tests and demos with.
# Idempotent: packages already present are left alone and apt is not touched.
set -eu

PACKAGES="build-essential cmake pkg-config clang libclang-rt-14-dev
libopen-trace-format2-dev otf2-tools libjansson-dev libcmocka-dev
libopenmpi-dev openmpi-bin gfortran eztrace lammps python3
libpcap-dev tshark wireshark-common tcpdump iproute2"

missing=""
for p in $PACKAGES; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done
[ -z "$missing" ] && exit 0

SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
echo "install-deps: installing$missing" >&2
# noninteractive: debconf takes the defaults, so tshark's question about capturing
# as non-root (wireshark-common/install-setuid, default no) does not wait for input.
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get -o DPkg::Lock::Timeout=300 update -qq
# shellcheck disable=SC2086
$SUDO apt-get -o DPkg::Lock::Timeout=300 install -y -qq --no-install-recommends $missing
