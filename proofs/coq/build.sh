#!/bin/sh
# Build every Coq proof of proofs/coq out of tree (so no .vo lands beside the sources,
# which the wheel ships): ./build.sh [BUILD_DIR] (default: a fresh temporary folder).
# Needs coqc with Coquelicot, Interval, Flocq and the gappa tactic (docs/coq.md);
# JOBS=n sets make's parallelism (default 2).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$(mktemp -d "${TMPDIR:-/tmp}/syncattn-coq.XXXXXX")}
mkdir -p "$out"
cp "$here"/_CoqProject "$here"/*.v "$out"/
cd "$out"
coq_makefile -f _CoqProject -o Makefile.coq >/dev/null
start=$(date +%s)
make -s -j "${JOBS:-2}" -f Makefile.coq
echo "built $(ls *.vo | wc -l) Coq files in $(( $(date +%s) - start )) s in $out"
