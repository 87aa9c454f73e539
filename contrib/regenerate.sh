#!/usr/bin/env bash
# Rewrites the generated files of contrib/ from the hopsig binary: the shell completion
# scripts (contrib/completions/) and the manual pages (contrib/man/). Run it after
# changing any command's arguments or help text; crates/hopsig-cli/tests/packaging.rs
# fails until they are in step. Usage: contrib/regenerate.sh [PATH-TO-HOPSIG]
set -euo pipefail
cd "$(dirname "$0")/.."
hopsig="${1:-}"
if [ -z "$hopsig" ]; then
  cargo build --release -p hopsig-cli
  hopsig=target/release/hopsig
fi
"$hopsig" completions bash > contrib/completions/hopsig.bash
"$hopsig" completions zsh > contrib/completions/_hopsig
"$hopsig" completions fish > contrib/completions/hopsig.fish
rm -f contrib/man/*.1
"$hopsig" man --out contrib/man
