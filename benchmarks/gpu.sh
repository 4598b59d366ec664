#!/usr/bin/env bash
# The GPU run of issue 18, at most 10 minutes on one GPU (an H200 in mind):
#
#   attention   benchmarks/attention.py at its own (issue 9) sizes: T = 256, 1024, 4096,
#               batch 8, width 256; float32 and bfloat16
#   training    benchmarks/training.py at the presets' batches: "1m" (32 x 256) and
#               "5m" (64 x 256); float32 and bfloat16
#   experiment1 `syncattn experiment table --full --seed 0 sizes=1m`: one seed of
#               experiment 1 at the paper's size (5,000 steps per model; enwik8 with
#               --data-path, else the embedded corpus)
#
# Every stage runs under `timeout` with its own cap, never past the overall budget
# (default 560 s, so the whole script stays under 10 minutes even when every stage
# uses its cap); the experiment gets whatever the others leave. A stage that runs out
# of time is recorded as "timeout" and the script goes on; a re-run into the same
# folder resumes the experiment, and the persistent compilation cache
# ($JAX_COMPILATION_CACHE_DIR, default ${TMPDIR:-/tmp}/syncattn-gpu-jax-cache) makes the
# re-run's compiles cheap.
#
# Output folder (--out, default benchmarks/results/gpu, or gpu-dry-run): env.json (the
# machine), stages.jsonl (status and wall time of each stage), logs/STAGE.log, the
# benchmarks' own JSON (attention-DTYPE/results.json, training-CONFIG-DTYPE.json,
# experiment1/results.json), and summary.json + summary.md (benchmarks/gpu_report.py).
#
# --dry-run: the same stages at toy sizes on the CPU, with 3 of the 5 attention layers
# and 2 of the 3 LMs (CI runs it; under 2 minutes on 2 idle cores). Without a GPU, the
# script says so and falls back to the dry-run sizes.
#
# Usage: benchmarks/gpu.sh [--dry-run] [--out DIR] [--budget SECONDS] [--data-path ENWIK8]
# Python: $PYTHON (default python3); the checkout is put on PYTHONPATH, so an install
# (pip install --no-deps -e .) is optional.
# Exit status: 0 every stage ok; 3 some stage ran out of time or was skipped; 1 some
# stage failed (see logs/); 2 usage error.

set -uo pipefail

usage() {
    sed -n '2,/^# Exit status/p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
}

DRY=0
OUT=""
BUDGET=""
DATA_PATH=""
while [ $# -gt 0 ]; do
    case "$1" in
        --dry-run) DRY=1 ;;
        --out) OUT="${2:?--out needs a folder}"; shift ;;
        --budget) BUDGET="${2:?--budget needs seconds}"; shift ;;
        --data-path) DATA_PATH="${2:?--data-path needs a file}"; shift ;;
        -h | --help) usage; exit 0 ;;
        *) echo "gpu.sh: unknown argument: $1 (see --help)" >&2; exit 2 ;;
    esac
    shift
done
case "$BUDGET" in
    "" | *[!0-9]*) [ -z "$BUDGET" ] || { echo "gpu.sh: --budget must be whole seconds; got $BUDGET" >&2; exit 2; } ;;
esac

START=$(date +%s)
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PY="${PYTHON:-python3}"
export PYTHONPATH="$ROOT${PYTHONPATH:+:$PYTHONPATH}"
export JAX_COMPILATION_CACHE_DIR="${JAX_COMPILATION_CACHE_DIR:-${TMPDIR:-/tmp}/syncattn-gpu-jax-cache}"
if [ -n "$DATA_PATH" ]; then
    [ -e "$DATA_PATH" ] || { echo "gpu.sh: --data-path $DATA_PATH does not exist" >&2; exit 2; }
    DATA_PATH="$(cd "$(dirname "$DATA_PATH")" && pwd)/$(basename "$DATA_PATH")"
fi

MODE=gpu
if [ "$DRY" = 1 ]; then
    MODE=dry-run
    export JAX_PLATFORMS=cpu
else
    BACKEND=$(timeout 90 "$PY" -c "import jax; print(jax.default_backend())" 2>/dev/null | tail -n 1)
    if [ "$BACKEND" != gpu ]; then
        echo "gpu.sh: no GPU found (JAX backend: ${BACKEND:-none}); falling back to the CPU at the --dry-run sizes" >&2
        MODE=cpu-fallback
        DRY=1
        export JAX_PLATFORMS=cpu
    fi
fi

if [ -z "$OUT" ]; then
    OUT="$ROOT/benchmarks/results/gpu"
    [ "$DRY" = 1 ] && OUT="$OUT-dry-run"
fi
mkdir -p "$OUT/logs" || exit 2
OUT="$(cd "$OUT" && pwd)"
cd "$ROOT" || exit 2

if [ "$DRY" = 1 ]; then
    BUDGET="${BUDGET:-900}"  # a safety net on a loaded CI machine, not a target
    CAP_ENV=120 CAP_ATT=240 CAP_TRAIN=240 CAP_EXP=300
    # toy sizes, and fewer layers and models (compiles dominate on a CPU): what is
    # checked is the script, its stages and its report, not the numbers
    ATT_ARGS=(--ts 32 --batch 1 --width 32 --heads 2 --d-osc 4 --chunk 8 --chunk-softplus 16
              --repeats 1 --layers softmax kuramoto osc-linear)
    TRAIN_RUNS=("tiny 2 16")  # config batch seq_len
    TRAIN_ARGS=(--repeats 1 --inner 1 --models softmax kuramoto)
    EXP_ARGS=(--smoke)
else
    BUDGET="${BUDGET:-560}"
    CAP_ENV=45 CAP_ATT=75 CAP_TRAIN=50 CAP_EXP=600
    ATT_ARGS=(--mem-limit-gb 100 --repeats 5)
    TRAIN_RUNS=("1m 32 256" "5m 64 256")
    TRAIN_ARGS=(--repeats 5 --inner 5)
    EXP_ARGS=(--full sizes=1m)
fi
[ -n "$DATA_PATH" ] && EXP_ARGS+=(--data-path "$DATA_PATH")
# the PyTorch twin of benchmarks/training.py is a CPU baseline: not part of this run
grep -q -- "--no-torch" benchmarks/training.py && TRAIN_ARGS+=(--no-torch)
DEADLINE=$((START + BUDGET))
RESERVE=15  # seconds kept for the report
STAGES="$OUT/stages.jsonl"
: > "$STAGES"
FAILED=0
INCOMPLETE=0

record() {  # record NAME STATUS RC CAP LIMIT T0 CMD...
    "$PY" - "$@" >> "$STAGES" <<'EOF'
import json, sys, time
name, status, rc, cap, limit, t0, *cmd = sys.argv[1:]
print(json.dumps({"stage": name, "status": status, "rc": None if rc == "" else int(rc),
                  "cap_s": int(cap), "limit_s": int(limit),
                  "wall_s": round(time.time() - float(t0), 1), "command": cmd}))
EOF
}

stage() {  # stage NAME CAP CMD...: run CMD for at most min(CAP, what the budget leaves)
    local name=$1 cap=$2
    shift 2
    local now left limit rc status t0
    now=$(date +%s)
    left=$((DEADLINE - RESERVE - now))
    limit=$((cap < left ? cap : left))
    t0=$(date +%s.%N)
    if [ "$limit" -lt 5 ]; then
        echo "[gpu.sh] $name: skipped, the time budget is spent" >&2
        record "$name" skipped "" "$cap" 0 "$t0" "$@"
        INCOMPLETE=1
        return
    fi
    echo "[gpu.sh] $name (at most $limit s) -> logs/$name.log" >&2
    timeout --kill-after=5 "$limit" "$@" > "$OUT/logs/$name.log" 2>&1
    rc=$?
    case $rc in
        0) status=ok ;;
        124 | 137) status=timeout; INCOMPLETE=1 ;;
        *) status=failed; FAILED=1 ;;
    esac
    echo "[gpu.sh] $name: $status ($rc)" >&2
    record "$name" "$status" "$rc" "$cap" "$limit" "$t0" "$@"
}

stage env "$CAP_ENV" "$PY" benchmarks/gpu_report.py env --out "$OUT/env.json" --mode "$MODE" --budget "$BUDGET"
for dtype in float32 bfloat16; do
    stage "attention-$dtype" "$CAP_ATT" "$PY" benchmarks/attention.py "${ATT_ARGS[@]}" \
        --dtype "$dtype" --out "$OUT/attention-$dtype"
done
for run in "${TRAIN_RUNS[@]}"; do
    read -r config batch seq <<< "$run"
    for dtype in float32 bfloat16; do
        stage "training-$config-$dtype" "$CAP_TRAIN" "$PY" benchmarks/training.py --config "$config" \
            --batch-size "$batch" --seq-len "$seq" --dtype "$dtype" "${TRAIN_ARGS[@]}" \
            --out "$OUT/training-$config-$dtype.json"
    done
done
stage experiment1 "$CAP_EXP" "$PY" -m syncattn.cli experiment table "${EXP_ARGS[@]}" --seed 0 \
    --quiet --out "$OUT/experiment1"

timeout "$RESERVE" "$PY" benchmarks/gpu_report.py report "$OUT" --wall "$(($(date +%s) - START))"
rc=$?
[ "$rc" = 0 ] && cat "$OUT/summary.md"
[ "$rc" = 0 ] || { echo "gpu.sh: the report failed ($rc)" >&2; FAILED=1; }
echo "gpu.sh: $MODE run, $(($(date +%s) - START)) s; wrote $OUT" >&2
[ "$FAILED" = 1 ] && exit 1
[ "$INCOMPLETE" = 1 ] && exit 3
exit 0
