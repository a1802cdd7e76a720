#!/usr/bin/env bash
# dyno's load sender against vegeta at saturation, same null sink, body and
# connections, in one run (crates/load/benches/generator_peer.rs).
#
#   scripts/generator-vs-peer.sh [OUT.json] [-- bench flags]
#
# Builds vegeta (tools/vegeta/setup, into <cache>/tools/vegeta) and the bench
# (release), runs it, prints the Markdown table and writes every round to OUT
# (default docs/research/data/generator-vs-vegeta-<date>.json).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-docs/research/data/generator-vs-vegeta-$(date -u +%Y-%m-%d).json}
shift || true
# cargo bench runs the bench in the package's folder: an absolute path.
mkdir -p "$(dirname "$out")"
out=$(cd "$(dirname "$out")" && pwd)/$(basename "$out")
[ "${1:-}" = "--" ] && shift
cache=${DYNO_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/dyno}
vegeta=$(tools/vegeta/setup "$cache/tools/vegeta")
cargo bench --locked -p dyno-load --bench generator_peer -- --vegeta "$vegeta" --out "$out" "$@"
