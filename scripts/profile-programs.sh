#!/usr/bin/env bash
# The call-site profiler on programs nobody here wrote, each built against forkjoin with
# forkjoin's `profile` feature:
#   - rayon-demo's demos, under rayon's name (the copy scripts/rayon-demo.sh makes, in
#     target/rayon-demo/fj: run that script once first);
#   - two published programs, from crates.io as their authors publish them, with rayon and
#     rayon-core patched (`[patch.crates-io]`) to crates made in target/published/shim that
#     re-export forkjoin: oxipng 9.1.5 (`-o 4` on a synthetic 1,500 x 1,500 RGB PNG, nothing
#     written) and b3sum 1.8.2 (a 512 MiB file, hashed by blake3's `join`s over its memory
#     map).
# Each is run
#   - unprofiled (FORKJOIN_PROFILE unset) at 1 and at 2 workers, and profiled at 2, ROUNDS
#     times, taking turns: the best process time of each;
#   - profiled, by `fj profile -- ...` (at the pool's default size), reading the program's
#     row of its CSV: its work and span, burdened span.
# Printed per program: the work against the 1-worker time; the 2-worker time against the
# predicted range, max(T1/2, span) to T1/2 + burdened span (T1 the work), within 10% of it
# or not, and against its low end; and the profiled run's time over the unprofiled one, both
# at 2 workers (the profiler's overhead).
#
#   scripts/profile-programs.sh            # every program below, 3 rounds
#   ROUNDS=5 scripts/profile-programs.sh nbody-par oxipng
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
rounds=${ROUNDS:-3}

declare -A demos=(
    [nbody-par]="nbody bench --mode Par --ticks 30"
    [nbody-reduce]="nbody bench --mode ParReduce --ticks 30"
    [life]="life bench"
    [matmul]="matmul bench"
    [mergesort]="mergesort bench --size 20000000"
    [quicksort]="quicksort bench --size 20000000"
    [sieve]="sieve bench"
)
# name, version, the dependency that takes `profile`, the arguments (run in data/).
published_programs=(
    "oxipng 9.1.5 rayon -o 4 -P image.png"
    "b3sum 1.8.2 rayon-core big.bin"
)
selected=("$@")
if ((${#selected[@]} == 0)); then
    selected=(nbody-par nbody-reduce life matmul mergesort quicksort sieve)
    for spec in "${published_programs[@]}"; do selected+=("${spec%% *}"); done
fi
wants() { # whether a selected program is named $1
    local s
    for s in "${selected[@]}"; do [[ $s == "$1" ]] && return 0; done
    return 1
}

# Per program: the directory it runs in, its binary and its arguments.
declare -A dir bin args

wants_demo=0
for name in "${!demos[@]}"; do wants "$name" && wants_demo=1; done
if ((wants_demo)); then
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
    for name in "${!demos[@]}"; do
        dir[$name]=$work
        bin[$name]=$root/target/rayon-demo/target-prof/release/rayon-demo
        args[$name]=${demos[$name]}
    done
fi

published=$root/target/published
shims_made=0
for spec in "${published_programs[@]}"; do
    read -r name version dep rest <<<"$spec"
    wants "$name" || continue
    mkdir -p "$published/src" "$published/data"
    if ((!shims_made)); then
        # forkjoin under rayon's and rayon-core's names, at versions the programs accept.
        for shim in "rayon 1.12.0" "rayon-core 1.13.0"; do
            read -r crate crate_version <<<"$shim"
            mkdir -p "$published/shim/$crate/src"
            printf '%s\n' "[package]" "name = \"$crate\"" "version = \"$crate_version\"" \
                'edition = "2021"' "publish = false" "" "[dependencies]" \
                "forkjoin = { path = \"$root/forkjoin\" }" "" "[features]" \
                'profile = ["forkjoin/profile"]' "" "[workspace]" >"$published/shim/$crate/Cargo.toml"
            echo "pub use forkjoin::*;" >"$published/shim/$crate/src/lib.rs"
        done
        shims_made=1
    fi
    crate=$published/src/$name-$version
    if [[ ! -d $crate ]]; then
        curl -sSfL "https://static.crates.io/crates/$name/$name-$version.crate" | tar xz -C "$published/src" ||
            { echo "profile-programs: cannot download $name $version from crates.io" >&2; exit 1; }
        printf '%s\n' "" "[patch.crates-io]" 'rayon = { path = "../../shim/rayon" }' \
            'rayon-core = { path = "../../shim/rayon-core" }' "" "[workspace]" >>"$crate/Cargo.toml"
        # The published lock pins crates.io's versions; let the patches replace them.
        for locked in rayon rayon-core; do
            if (cd "$crate" && cargo pkgid --quiet "$locked" >/dev/null 2>&1); then
                (cd "$crate" && cargo update --quiet -p "$locked")
            fi
        done
    fi
    (cd "$crate" && RUSTFLAGS="" CARGO_TARGET_DIR=$published/target cargo build --release --quiet --features "$dep/profile")
    dir[$name]=$published/data
    bin[$name]=$published/target/release/$name
    args[$name]=$rest
done
# The published programs' inputs: a 1,500 x 1,500 RGB PNG of gradients and noise (the same
# bytes each time), and 512 MiB of pseudo-random bytes.
if wants oxipng && [[ ! -f $published/data/image.png ]]; then
    python3 - "$published/data/image.png" <<'EOF'
import random, struct, sys, zlib
w = h = 1500
rng = random.Random(7)
rows = bytearray()
for y in range(h):
    rows.append(0)
    for x in range(w):
        n = rng.randrange(24)
        rows += bytes(((x * 255 // w + n) % 256, (y * 255 // h + n) % 256, ((x ^ y) + n) % 256))
def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
png += chunk(b"IDAT", zlib.compress(bytes(rows), 1)) + chunk(b"IEND", b"")
open(sys.argv[1], "wb").write(png)
EOF
fi
if wants b3sum && [[ ! -f $published/data/big.bin ]]; then
    head -c $((512 << 20)) /dev/urandom >"$published/data/big.bin"
fi

cargo build --release --quiet -p forkjoin-bench --bin fj
fj=$root/target/release/fj

seconds() { # the process time of one run, in seconds
    local start end
    start=$(date +%s.%N)
    env "$@" >/dev/null
    end=$(date +%s.%N)
    python3 -c "print($end - $start)"
}

printf '%-13s %9s %9s %7s %9s %21s %4s %8s %9s\n' program "T1 s" "work s" work/T1 "T2 s" "predicted T2 s" "in?" "T2/low" "profiled"
for name in "${selected[@]}"; do
    [[ -n ${bin[$name]:-} ]] || { echo "profile-programs: unknown program $name" >&2; exit 1; }
    read -ra cmd <<<"${bin[$name]} ${args[$name]}"
    best1=1e9 best2=1e9 bestp=1e9
    json=$(mktemp)
    for ((r = 0; r < rounds; r++)); do
        t=$(cd "${dir[$name]}" && seconds RAYON_NUM_THREADS=1 "${cmd[@]}")
        best1=$(python3 -c "print(min($best1, $t))")
        t=$(cd "${dir[$name]}" && seconds RAYON_NUM_THREADS=2 "${cmd[@]}")
        best2=$(python3 -c "print(min($best2, $t))")
        t=$(cd "${dir[$name]}" && seconds RAYON_NUM_THREADS=2 FORKJOIN_PROFILE="$json" "${cmd[@]}")
        bestp=$(python3 -c "print(min($bestp, $t))")
    done
    rm -f "$json"
    csv=$(mktemp)
    if ! (cd "${dir[$name]}" && "$fj" profile --csv "$csv" --html "$root/fj-report/call-sites-$name.html" -- "${cmd[@]}" >/dev/null); then
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
