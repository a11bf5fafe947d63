#!/usr/bin/env bash
# Runs rayon's own integration tests against forkjoin: rayon 1.12.0's `tests/` and
# rayon-core 1.13.0's, unmodified, built with `rayon` and `rayon_core` renamed to this
# working tree's `forkjoin` (Cargo's `package =`). The crates are fetched by cargo at run
# time (their published packages contain the tests); nothing of rayon's is kept in this
# repository.
#
# Prints, per test file, whether it compiles and how many of its tests pass, then the
# totals. Then the examples in rayon's and rayon-core's doc comments, which are rayon's
# documented semantics (rayon-doctests.py turns them into tests as rustdoc would, each run
# as a process of its own), and the examples that must not compile. Exits non-zero if any
# file fails to compile or any test or example fails, unless `--report` is given (then it
# only reports: the acceptance of issue 26 is all of them).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
report_only=0
[[ "${1:-}" == --report ]] && report_only=1

work=$root/target/rayon-tests
mkdir -p "$work"

# 1. Fetch the published crates (sources land in cargo's registry cache).
fetch=$work/fetch
source scripts/rayon-fetch.sh
rayon_fetch_crate "$fetch"
cargo metadata --quiet --format-version 1 --manifest-path "$fetch/Cargo.toml" >"$work/metadata.json"
src_of() {
    python3 - "$work/metadata.json" "$1" <<'EOF'
import json, os, sys
meta = json.load(open(sys.argv[1]))
for p in meta["packages"]:
    if p["name"] == sys.argv[2]:
        print(os.path.dirname(p["manifest_path"]))
EOF
}
rayon_src=$(src_of rayon)
core_src=$(src_of rayon-core)

# 2. One crate per suite, whose test targets are rayon's files, compiled against forkjoin.
make_suite() { # name, tests dir, the crate name the tests use, extra dev-dependencies
    local dir=$work/$1
    rm -rf "$dir"
    mkdir -p "$dir/src" "$dir/tests"
    cp "$2"/*.rs "$dir/tests/"
    touch "$dir/src/lib.rs"
    cat >"$dir/Cargo.toml" <<EOF
[package]
name = "forkjoin-$1"
version = "0.0.0"
edition = "2021"
publish = false

[dev-dependencies]
$3 = { package = "forkjoin", path = "$root/forkjoin" }
rand = "0.9"
rand_xorshift = "0.4"
$4

[workspace]

# Unoptimised with debug assertions, as rayon runs its own suite (plain cargo test), and
# twice as fast to build and run here as the optimised ci profile (50 s against 100).
[profile.ci-unoptimised]
inherits = "dev"
debug = 0
EOF
}
make_suite rayon "$rayon_src/tests" rayon ''
# What rayon-core's tests and examples use besides the crate.
core_deps=$'scoped-tls = "1.0"\nlibc = "0.2"\ncrossbeam-utils = "0.8"'
make_suite rayon-core "$core_src/tests" rayon_core "$core_deps"

# 3. Each file on its own: a file that does not compile fails alone.
files=0 compiled=0 passed=0 failed=0
printf '%-32s %-10s %s\n' file compiles tests
for suite in rayon rayon-core; do
    dir=$work/$suite
    for f in "$dir"/tests/*.rs; do
        name=$(basename "$f" .rs)
        files=$((files + 1))
        log=$work/$suite-$name.log
        if ! CARGO_TARGET_DIR=$work/target cargo test --quiet --profile ci-unoptimised \
            --manifest-path "$dir/Cargo.toml" --test "$name" --no-run >"$log" 2>&1; then
            printf '%-32s %-10s %s\n' "$suite/$name" no "(see $log)"
            continue
        fi
        compiled=$((compiled + 1))
        # A file gets two minutes: a test that does not finish (one that relies on a
        # short-circuit forkjoin does not take) must not hold the whole run.
        note=
        CARGO_TARGET_DIR=$work/target timeout 120 cargo test --profile ci-unoptimised \
            --manifest-path "$dir/Cargo.toml" --test "$name" -- --test-threads=1 >"$log" 2>&1 || true
        ok=$(sed -n 's/.*test result: .*\. \([0-9]*\) passed; \([0-9]*\) failed.*/\1/p' "$log" | tail -1)
        bad=$(sed -n 's/.*test result: .*\. \([0-9]*\) passed; \([0-9]*\) failed.*/\2/p' "$log" | tail -1)
        if [[ -z "$ok" ]]; then
            # The test binary died (a crash or the timeout): the tests it finished count,
            # the others fail.
            ok=$(grep -c '^test .* \.\.\. ok$' "$log" || true)
            bad=$(($(grep -c '#\[test\]' "$f" || true) - ok))
            note=" (did not finish: see $log)"
        fi
        passed=$((passed + ok))
        failed=$((failed + bad))
        printf '%-32s %-10s %s passed, %s failed%s\n' "$suite/$name" yes "$ok" "$bad" "$note"
    done
done
echo
echo "rayon's tests against forkjoin: $compiled of $files files compile; $passed tests pass, $failed fail"

# 4. The examples of rayon's documentation, a file per source file of rayon's.
echo
examples_ok=1
for suite in rayon rayon-core; do
    name=$suite-doc
    printf '%s examples: ' "$suite"
    examples=$work/$name-examples
    rm -rf "$examples"
    if [[ $suite == rayon ]]; then
        python3 "$root/scripts/rayon-doctests.py" extract "$rayon_src/src" "$examples"
        make_suite "$name" "$examples" rayon ''
    else
        python3 "$root/scripts/rayon-doctests.py" extract "$core_src/src" "$examples"
        make_suite "$name" "$examples" rayon_core "$core_deps"
    fi
    log=$work/$name.log
    if ! CARGO_TARGET_DIR=$work/target cargo test --quiet --profile ci-unoptimised \
        --manifest-path "$work/$name/Cargo.toml" --tests --no-run --message-format json \
        >"$work/$name.json" 2>"$log"; then
        echo "do not compile (see $log)"
        examples_ok=0
        continue
    fi
    mapfile -t binaries < <(python3 -c '
import json, sys
for line in open(sys.argv[1]):
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["kind"] == ["test"]:
        print(m["executable"])' "$work/$name.json")
    python3 "$root/scripts/rayon-doctests.py" run "${binaries[@]}" 2>>"$log" || examples_ok=0
done

# 5. The examples rayon's documentation says must not compile (its `src/compile_fail/`:
#    `!Send` data, borrows two closures share, unused adaptors): each a binary of a package
#    checked with --keep-going, each rejected with rayon's error code.
echo
for suite in rayon rayon-core; do
    crate=${suite//-/_}
    src=$rayon_src
    [[ $suite == rayon-core ]] && src=$core_src
    dir=$work/$suite-compile-fail
    rm -rf "$dir"
    mkdir -p "$dir"
    printf '%s: ' "$suite"
    python3 "$root/scripts/rayon-doctests.py" compile-fail "$src/src" "$crate" "$dir"
    cat >"$dir/Cargo.toml" <<EOF
[package]
name = "forkjoin-$suite-compile-fail"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
$crate = { package = "forkjoin", path = "$root/forkjoin" }

[workspace]
EOF
    CARGO_TARGET_DIR=$work/target cargo check --quiet --keep-going --bins --message-format json \
        --manifest-path "$dir/Cargo.toml" >"$dir/messages.json" 2>/dev/null || true
    python3 "$root/scripts/rayon-doctests.py" judge "$dir" "$dir/messages.json" || examples_ok=0
done

if [[ $report_only == 0 && ($compiled != "$files" || $failed != 0 || $examples_ok == 0) ]]; then
    exit 1
fi
