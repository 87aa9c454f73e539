#!/usr/bin/env bash
# Build NIST BGP-SRx 6.3.3 (srx_server, rpkirtr_svr, bgpsecio, quagga-srx bgpd) into a
# cache folder outside the clone, once: the tests in crates/hopsig-cli/tests/bgp_srx_rtr.rs
# run its RTR cache (rpkirtr_svr) and its RTR client (srx_server) against hopsig, and
# crates/hopsig-cli/tests/bgp_srx_bgpsec.rs runs bgpsecio, srx_server and quagga-srx's bgpd
# as BGPsec peers. The demo key vault of the archive (examples/bgpsec-keys: ski-list.txt
# and each AS's key and certificate) goes to PREFIX/opt/bgp-srx-examples/bgpsec-keys, where
# the installed etc/srxcryptoapi.conf (read by bgpd, bgpsecio) looks for it.
#
# Usage: tools/bgp-srx.sh [PREFIX]   (default: $HOPSIG_BGPSRX, else
#        ~/.cache/hopsig/bgp-srx-6.3.3). Prints PREFIX on stdout. Idempotent: does
#        nothing when PREFIX/.hopsig-built exists (written after a complete build) and
#        PREFIX/opt/bgp-srx-examples/bgpsec-keys/ski-list.txt too; a build made before the key vault was
#        installed gets only the vault.
# Source and build recipe: ../shared/peers/bgp-srx (the archive of the upstream
# repository at V6.3.3 and build.sh, which applies the one glibc >= 2.32 fix); set
# HOPSIG_BGPSRX_SRC to a folder holding both when the clone has no ../shared beside it.
# About 5 minutes with one make job on this project's machine kind.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PREFIX=${1:-${HOPSIG_BGPSRX:-$HOME/.cache/hopsig/bgp-srx-6.3.3}}
KEYS=$PREFIX/opt/bgp-srx-examples/bgpsec-keys
if [ -f "$PREFIX/.hopsig-built" ] && [ -f "$KEYS/ski-list.txt" ]; then
  echo "$PREFIX"; exit 0
fi
SRC_DIR=${HOPSIG_BGPSRX_SRC:-$ROOT/../shared/peers/bgp-srx}
ARCHIVE=$SRC_DIR/NIST-BGP-SRx-6.3.3.tar.gz
[ -f "$ARCHIVE" ] || { echo "bgp-srx.sh: $ARCHIVE not found (set HOPSIG_BGPSRX_SRC)" >&2; exit 1; }

# The demo key vault (about 0.5 MB), into a new folder renamed into place at the end.
install_keys() {
  local tmp
  tmp=$(mktemp -d "$PREFIX/opt/bgp-srx-examples/.keys.XXXXXX")
  chmod 755 "$tmp"
  tar xzf "$ARCHIVE" -C "$tmp" --strip-components=3 NIST-BGP-SRx-6.3.3/examples/bgpsec-keys
  rm -rf "$KEYS"
  mv "$tmp" "$KEYS"
}
if [ -f "$PREFIX/.hopsig-built" ]; then
  mkdir -p "$PREFIX/opt/bgp-srx-examples"
  install_keys
  echo "$PREFIX"; exit 0
fi

# Build dependencies (Debian 12), installed only when one is missing.
PKGS="autoconf automake libtool libconfig-dev uthash-dev libssl-dev libreadline-dev libncurses-dev pkg-config gawk patch"
# shellcheck disable=SC2086
if ! dpkg -s $PKGS >/dev/null 2>&1; then
  apt-get install -y $PKGS >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y $PKGS >/dev/null; }
fi

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
tar xzf "$ARCHIVE" -C "$WORK"
# The binaries find their libraries through the install prefix (libtool rpath), so the
# build goes straight into PREFIX; the marker written last tells a complete build from an
# interrupted one.
rm -rf "$PREFIX"
nice bash "$SRC_DIR/build.sh" "$WORK/NIST-BGP-SRx-6.3.3" "$PREFIX" >"$WORK/build.log" 2>&1 \
  || { tail -40 "$WORK/build.log" >&2; echo "bgp-srx.sh: build failed" >&2; exit 1; }
mkdir -p "$PREFIX/opt/bgp-srx-examples"
install_keys
touch "$PREFIX/.hopsig-built"
echo "$PREFIX"
