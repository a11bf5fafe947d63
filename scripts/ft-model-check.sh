#!/usr/bin/env bash
# NAS FT over MPI on this machine: measured time against the model's prediction (issue 5's
# bar), and FT_T against FT.
#
#   scripts/ft-model-check.sh [CLASS] [RUNS]     (default: A 3)
#
# Builds fj with MPI, calibrates the `local` network profile (mpiexec -n 2 fj
# calibrate-network) unless fj-network.json exists, then for FT (processes) and FT_T
# (hybrid) on 1 and 2 processes: the best of RUNS plain runs (measured) and the best of
# RUNS runs with --model local (predicted), and the error in percent.
set -euo pipefail
cd "$(dirname "$0")/.."
class=${1:-A}
runs=${2:-3}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
cargo build --release -p forkjoin-bench --features mpi >/dev/null 2>&1 ||
    cargo build --release -p forkjoin-bench --features mpi
fj=target/release/fj
[[ -f fj-network.json ]] || mpiexec -n 2 "$fj" calibrate-network
[[ -f fj-costs.json ]] || "$fj" calibrate

# best VALUE-LABEL N MODE [ARGS...]: the smallest value of the line labelled so, over $runs runs.
best() {
    local label=$1 n=$2 mode=$3
    shift 3
    for _ in $(seq "$runs"); do
        mpiexec -n "$n" "$fj" ft --class "$class" --mode "$mode" "$@" | awk -v l="$label" 'index($0, l) {print $NF}'
    done | sort -g | head -1
}

printf '%-22s %10s %12s %12s %9s\n' "class $class" processes "measured s" "predicted s" "error"
declare -A measured
for mode in processes hybrid; do
    for n in 1 2; do
        m=$(best " Time in seconds" "$n" "$mode")
        p=$(best " Model time in seconds" "$n" "$mode" --model local)
        measured[$mode-$n]=$m
        name=$([[ $mode == processes ]] && echo "FT (pencils)" || echo "FT_T (slabs + pool)")
        awk -v name="$name" -v n="$n" -v m="$m" -v p="$p" \
            'BEGIN {printf "%-22s %10d %12.4f %12.4f %+8.1f%%\n", name, n, m, p, (p - m) / m * 100}'
    done
done
cores=$(nproc)
if [[ $cores == 2 ]]; then
    awk -v t="${measured[hybrid-1]}" -v f="${measured[processes-2]}" \
        'BEGIN {printf "\nFT_T (1 process, 2 workers) / FT (2 processes): %.3f  (FT_T %+.1f%% faster)\n", t / f, (f - t) / f * 100}'
fi
