#!/usr/bin/env bash
# The call-site profiler on programs nobody here wrote: rayon-demo's demos, built against
# forkjoin under rayon's name with forkjoin's `profile` feature (the copy scripts/rayon-demo.sh
# makes, in target/rayon-demo/fj: run that script once first), each run
#   - unprofiled (FORKJOIN_PROFILE unset) at 1 and at 2 workers, and profiled at 2, ROUNDS
#     times, taking turns: the best process time of each;
#   - profiled, by `fj profile -- ...` (at the pool's default size), reading the program's
#     row of its CSV: its work and span, burdened span.
# Printed per demo: the work against the 1-worker time; the 2-worker time against the
# predicted range, max(T1/2, span) to T1/2 + burdened span (T1 the work), within 10% of it
# or not, and against its low end; and the profiled run's time over the unprofiled one, both
# at 2 workers (the profiler's overhead).
#
#   scripts/profile-programs.sh            # every demo below, 3 rounds
#   ROUNDS=5 scripts/profile-programs.sh nbody-par life
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
rounds=${ROUNDS:-3}
src=$root/target/rayon-demo/fj
[[ -d $src/src ]] || { echo "profile-programs: no $src: run scripts/rayon-demo.sh once first" >&2; exit 1; }
work=$root/target/rayon-demo/fjprof
rm -rf "$work" && mkdir -p "$work"
cp -r "$src/Cargo.toml" "$src/src" "$work/"
[[ -f $src/Cargo.lock ]] && cp "$src/Cargo.lock" "$work/"
[[ -d $src/data ]] && cp -r "$src/data" "$work/"
sed -i 's|^rayon = { package = "forkjoin", path = "\([^"]*\)" }|rayon = { package = "forkjoin", path = "\1", features = ["profile"] }|' "$work/Cargo.toml"
grep -q 'features = \["profile"\]' "$work/Cargo.toml" || { echo "profile-programs: cannot add the feature to $work/Cargo.toml" >&2; exit 1; }
(cd "$work" && RUSTFLAGS="" CARGO_TARGET_DIR=$root/target/rayon-demo/target-prof cargo build --release --quiet)
bin=$root/target/rayon-demo/target-prof/release/rayon-demo
cargo build --release --quiet -p forkjoin-bench --bin fj
fj=$root/target/release/fj

declare -A demos=(
    [nbody-par]="nbody bench --mode Par --ticks 30"
    [nbody-reduce]="nbody bench --mode ParReduce --ticks 30"
    [life]="life bench"
    [matmul]="matmul bench"
    [mergesort]="mergesort bench --size 20000000"
    [quicksort]="quicksort bench --size 20000000"
    [sieve]="sieve bench"
)
selected=("$@")
((${#selected[@]})) || selected=(nbody-par nbody-reduce life matmul mergesort quicksort sieve)

seconds() { # the process time of one run, in seconds
    local start end
    start=$(date +%s.%N)
    env "$@" >/dev/null
    end=$(date +%s.%N)
    python3 -c "print($end - $start)"
}

printf '%-13s %9s %9s %7s %9s %21s %4s %8s %9s\n' demo "T1 s" "work s" work/T1 "T2 s" "predicted T2 s" "in?" "T2/low" "profiled"
for name in "${selected[@]}"; do
    args=${demos[$name]:-}
    [[ -n $args ]] || { echo "profile-programs: unknown demo $name" >&2; exit 1; }
    best1=1e9 best2=1e9 bestp=1e9
    json=$(mktemp)
    for ((r = 0; r < rounds; r++)); do
        t=$(cd "$work" && seconds RAYON_NUM_THREADS=1 "$bin" $args)
        best1=$(python3 -c "print(min($best1, $t))")
        t=$(cd "$work" && seconds RAYON_NUM_THREADS=2 "$bin" $args)
        best2=$(python3 -c "print(min($best2, $t))")
        t=$(cd "$work" && seconds RAYON_NUM_THREADS=2 FORKJOIN_PROFILE="$json" "$bin" $args)
        bestp=$(python3 -c "print(min($bestp, $t))")
    done
    rm -f "$json"
    csv=$(mktemp)
    if ! (cd "$work" && "$fj" profile --csv "$csv" --html "$root/fj-report/call-sites-$name.html" -- "$bin" $args >/dev/null); then
        echo "$name: the profiled run failed"
        continue
    fi
    python3 - "$csv" "$name" "$best1" "$best2" "$bestp" <<'EOF'
import csv, sys
path, name, t1, t2, tp = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
row = next(r for r in csv.DictReader(open(path)) if r["tag"] == "program")
work, span = float(row["work (seconds)"]), float(row["span (seconds)"])
bspan = float(row["burdened_span (seconds)"])
lo, hi = max(work / 2, span), work / 2 + bspan
inside = "yes" if lo * 0.9 <= t2 <= hi * 1.1 else "no"
print(f"{name:<13} {t1:9.3f} {work:9.3f} {work / t1:7.2f} {t2:9.3f} {lo:10.3f}-{hi:<10.3f} {inside:>4} {t2 / lo:8.2f} {tp / t2:9.2f}")
EOF
    rm -f "$csv"
done
