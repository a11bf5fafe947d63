#!/usr/bin/env bash
# Runs every test of the repository, installing first what a fresh machine lacks, and ends
# with a table: each stage's time, its test count and the target directories' peak size.
#
#   1. the workspace's tests and doctests, unoptimised (`cargo test` at the root; without
#      the doctests, `cargo quick`, the quick tier a contributor runs after each change),
#      compiled through clippy, warnings as errors (every target linted, with no compilation
#      for clippy alone); the doctests of a crate compiled as one binary, and the error code
#      each `compile_fail` block names checked (scripts/rustdoc-merged.sh); `fj`'s end-to-end
#      tests on `fj` built with MPI;
#   2. the runtime's own tests again optimised and without the `profile` feature (memory
#      orderings are exercised by optimised code; the default build must pass on its own);
#   3. the workspace builds without MPI; the leaf loop against std's loop by the instructions
#      it executes (`fj loops --instructions`, callgrind, with Debian's valgrind), beside the
#      first stage's tests;
#   4. the loom model checks of the deque, of the sleep/wake protocol, of frame claims and of
#      the waits on a real pool (an isolated wait, a call from outside, a borrowed slot);
#   5. Miri on the deque, the sleep protocol, a run of the runtime's tests, small parallel
#      iterator cases and the sorts (nightly);
#   6. rayon's own integration tests built against forkjoin (all must compile and pass), and
#      rayon's public API compared item by item with forkjoin's (nightly rustdoc's JSON);
#      the Java ForkJoinPool peer's self-test (skipped with a note if there is no JDK);
#   7. the MPI tests (NAS FT under mpiexec in both decompositions, the network calibration,
#      the model clocks), with Open MPI from Debian's packages.
#
# Each artifact is built once. Stages 1 and 7 share `target/` (the `dev` profile), and `fj`
# is built once there, with MPI, after the rest of the first stage's build (Open MPI is
# installed by then). What needs other flags has a directory of
# its own: the optimised runtime tests (`target/opt`, the `ci` profile), loom, Miri and the
# nightly builds. Tests leave a core idle much of the time, and so does the end of
# stage 1's build, so what the later stages build and Miri run beside stage 1 from
# the start at a lower priority, stages 2 and 4 and the leaf loop's check run beside stage 1's
# tests as soon as they are built, and Open MPI (with valgrind) and the nightly toolchain are
# installed in the background from the start.
#
# FJ_SKIP_MIRI=1 skips Miri.
set -euo pipefail
cd "$(dirname "$0")/.."

start=$SECONDS
logs=target/test-logs
mkdir -p "$logs"
# A stage that fails ends the run, and with it what still runs in the background (builds,
# Miri, installs), which would otherwise go on writing to logs after the run is over.
kill_tree() {
    local child
    for child in $(pgrep -P "$1"); do kill_tree "$child"; done
    kill "$1" 2>/dev/null || true
}
trap 'for job in $(jobs -p); do kill_tree "$job"; done' EXIT
say() { printf '\n==> [%ds, %s free] %s\n' "$((SECONDS - start))" "$(df -h --output=avail . | tail -n 1 | tr -d ' ')" "$*"; }

# In CI (a fresh clone, built once): no incremental caches, and the directories of the
# stages that build with flags of their own removed once they have passed: the disk is
# shared with other machines, and a linker that cannot extend its output dies of a bus error.
if [[ "${CI:-}" == true ]]; then
    export CARGO_INCREMENTAL=0
    # No debug info in the unoptimised builds (the `dev` profile keeps line tables): no test
    # reads it, a panic names its line without it, and the first stage builds in a sixth
    # less CPU time (docs/measurements.md, "The test command").
    export CARGO_PROFILE_DEV_DEBUG=false
    done_with() { rm -rf "$@"; }
else
    done_with() { :; }
fi

if ! command -v cargo >/dev/null; then
    echo "test.sh: cargo not found; install Rust with rustup (https://rustup.rs)" >&2
    exit 1
fi

# --- The stage table -------------------------------------------------------------------
# A stage runs its commands with their output also kept in `$logs/NAME.log`; its test count
# is what the runners there say passed (cargo's "test result" lines, and the summaries of
# rayon's suite, its examples, the compile-fail cases and the Java self-test).
stage_names=() stage_seconds=() stage_counts=() peak_bytes=0
# (du fails when a file it listed is gone before it looks: the builds and Miri run meanwhile.)
target_bytes() { du -sb target 2>/dev/null | cut -f1 || true; }
note_peak() {
    local b
    b=$(target_bytes)
    ((b > peak_bytes)) && peak_bytes=$b
    return 0
}
count_tests() { # log -> "passed ignored"
    python3 - "$1" <<'EOF'
import re, sys
s = open(sys.argv[1], errors="replace").read()
passed = sum(int(x) for x in re.findall(r"test result: ok\. (\d+) passed", s))
ignored = sum(int(x) for x in re.findall(r"test result: ok\. \d+ passed; \d+ failed; (\d+) ignored", s))
for pattern in [r"; (\d+) tests pass, \d+ fail", r"(\d+) of \d+ examples pass",
                r"(\d+) of \d+ compile-fail cases behave", r"self-test: (\d+) of \d+ verified",
                r"rayon's public API: (\d+) items", r"(\d+) programs: \d+ over the rule", r"items of rayon 1\.12\.0 and (\d+) of"]:
    passed += sum(int(x) for x in re.findall(pattern, s))
print(passed, ignored)
EOF
}
record() { # name, log, seconds
    stage_names+=("$1")
    stage_seconds+=("$3")
    stage_counts+=("$(count_tests "$2")")
}
current= current_log= current_start=
stage() { # NAME: ends the stage before, starts this one
    end_stage
    current=$1 current_log=$logs/$(tr -c 'a-z0-9\n' - <<<"${1,,}" | tr -s -).log current_start=$SECONDS
    : >"$current_log"
    say "$1"
}
end_stage() {
    [[ -z $current ]] && return 0
    record "$current" "$current_log" "$((SECONDS - current_start))"
    note_peak
    current=
}
run() { "$@" 2>&1 | tee -a "$current_log"; } # a stage's command, its output kept

# --- What runs in the background -------------------------------------------------------
# Open MPI and what the `mpi` crate's bindings are generated with, for `fj` built with MPI
# (the workspace itself builds without them: MPI is behind the `mpi` feature). Fetched and
# installed while the first stage compiles.
# valgrind, for the leaf loop's instruction counts (stage 3), comes with them. Without what
# they only recommend (Fortran coarrays and gfortran, compiler-rt, gdb: 41 packages, not 49).
APT_PACKAGES=(libopenmpi-dev openmpi-bin libclang1-14 libclang-common-14-dev pkg-config valgrind)
if ! dpkg -s "${APT_PACKAGES[@]}" >/dev/null 2>&1; then
    if [[ $(id -u) == 0 ]]; then sudo=(); elif command -v sudo >/dev/null; then sudo=(sudo); else
        echo "test.sh: needs ${APT_PACKAGES[*]}; run as root or install them" >&2
        exit 1
    fi
    say "installing Open MPI and valgrind in the background (${APT_PACKAGES[*]})"
    rm -f "$logs/mpi-install.status"
    {
        status=0
        { "${sudo[@]}" apt-get update -q &&
            DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -q --no-install-recommends "${APT_PACKAGES[@]}"; } || status=$?
        echo "$status" >"$logs/mpi-install.status"
        exit "$status"
    } >"$logs/mpi-install.log" 2>&1 &
else
    echo 0 >"$logs/mpi-install.status"
fi

# Miri and rust-src on a nightly toolchain, for Miri and rayon's API, fetched meanwhile too;
# `nightly.status` says when it is done.
rm -f "$logs/nightly.status"
{
    if [[ "${FJ_SKIP_MIRI:-0}" != 1 ]] && ! cargo +nightly miri --version >/dev/null 2>&1; then
        rustup toolchain install nightly --profile minimal --component miri,rust-src ||
            rustup +nightly component add miri rust-src
    fi
    echo done >"$logs/nightly.status"
} >"$logs/nightly-install.log" 2>&1 &
nightly_install=$!

# Miri interprets on one thread per lane: its two lanes run beside everything else from the
# start, at the lowest priority, taking what the builds and tests leave idle. They share one
# target directory, so the crate is built for Miri once (cargo holds its lock while it builds,
# not while the tests run). `miri.status` says how they ended: 0 passed, 1 failed, or
# unavailable.
miri_lane() { # a name, then each `cargo miri test` command's arguments, ";" between
    local name=$1 log=$logs/miri-$1.log
    shift
    : >"$log"
    while (($#)); do
        local args=()
        while (($#)) && [[ $1 != ";" ]]; do args+=("$1"); shift; done
        (($#)) && shift
        RUST_BACKTRACE=0 CARGO_TARGET_DIR=target/miri cargo +nightly miri test -p forkjoin "${args[@]}" >>"$log" 2>&1 ||
            { echo "Miri lane $name failed: cargo miri test ${args[*]} (log: $log)" >>"$log"; return 1; }
    done
    echo "Miri lane $name: passed, ended at ${SECONDS}s" >>"$log"
}
miri_job() {
    renice -n 19 -p "$BASHPID" >/dev/null
    while [[ ! -e $logs/nightly.status ]]; do sleep 2; done
    if ! cargo +nightly miri --version >/dev/null 2>&1; then
        echo unavailable >"$logs/miri.status"
        return 0
    fi
    # Stacked Borrows and data-race checks. The global pool's threads are never joined (it
    # lives for the whole process), hence -Zmiri-ignore-leaks. Isolated from the host, so that
    # time is Miri's own clock, which advances with the program (on the host's, a timed
    # park ended before Miri had interpreted a few steps, and idle workers and the heartbeat
    # woke over and over: the lanes took three times as long), on two CPUs as here.
    export MIRIFLAGS="-Zmiri-ignore-leaks -Zmiri-num-cpus=2"
    # Two lanes side by side. No backtraces (RUST_BACKTRACE may be set around us): Miri
    # reports its own, and capturing one at each panic the tests make took the panic tests 10
    # to 50 times as long (docs/measurements.md, "The test command").
    #
    # A run of the runtime's tests, and the sorts' exact answers. Each test alone
    # (`--test-threads=1`): two tests' pools interleaved in one interpreter cost it more than
    # one after the other, except the iterator cases', which share one pool.
    miri_lane runtime --test runtime -- --test-threads=1 --exact join::fib_exact_at_many_worker_counts \
        join::panics_propagate_and_the_pool_survives loops::loops_are_exact \
        join::nested_pools_do_not_deadlock pool::bad_input_is_an_error_not_a_panic \
        tasks::a_stream_of_submissions_runs_each_job_once scope::scope_borrows_the_stack_and_returns_a_value \
        tasks::invoke_all_keeps_order tasks::task_is_done_and_join_from_inside_the_pool ";" \
        --lib -- --test-threads=1 sort::merge::tests::merge_sort_matches_std sort::quick::tests::quick_sort_matches_std \
        sort::quick::tests::partitions_are_exact sort::merge::tests::merge_sort_large_elements &
    local runtime=$!
    # Parallel iterators on small inputs (the iterator tests' `miri` module: Miri builds the
    # whole crate and runs only these): collect in place, owning sources, drains, panics
    # while collecting, nesting; the deque, the sleep protocol and tasks. This lane also
    # builds the iterator tests for Miri: with three of the runtime tests in it, it ended 52 s
    # after the first lane, with a sort moved to it too, 125 s (each lane's end is in its log).
    miri_lane iterators --test iter -- miri:: ";" \
        --lib -- --test-threads=1 deque::tests frame_counts::tests lineage::tests sleep::tests task::tests &
    local iterators=$! failed=0
    wait "$runtime" || failed=1
    wait "$iterators" || failed=1
    echo "$failed $SECONDS" >"$logs/miri.status"
}
miri_start=$SECONDS
rm -f "$logs/miri.status"
if [[ "${FJ_SKIP_MIRI:-0}" != 1 ]]; then
    miri_job &
    miri=$!
    say "Miri starts in the background (logs: $logs/miri-runtime.log, $logs/miri-iterators.log)"
fi

# --- What builds beside the first stage ------------------------------------------------
# The optimised runtime tests (stage 2) and loom (stage 4): built in the background from the
# start, run beside the first stage's tests.
OPT_TESTS=(env CARGO_TARGET_DIR=target/opt cargo test -p forkjoin --profile ci --lib --examples --test runtime --test blocking)
LOOM_TESTS=(env RUSTFLAGS="--cfg loom" CARGO_TARGET_DIR=target/loom cargo test -p forkjoin --profile ci --lib loom_tests)
# Tests leave a core idle much of the time (they wait, park and sleep), and so does the
# first stage's build: its last crate, the iterator tests, compiles alone for a minute or
# two. The builds the later stages need, each in a target directory of its own (cargo locks
# its directory while it works: a stage that reaches one still being built waits for it),
# run beside them from the start at a lower priority, so that they take the idle time and not
# the first stage's.
background_builds() {
    step() { # name, command...
        local name=$1 t=$SECONDS status=ok
        shift
        echo "== $name: $*" >>"$logs/background.log"
        "$@" >>"$logs/background.log" 2>&1 || status=failed
        echo "$name|$((SECONDS - t))|$status" >>"$logs/background.times"
        [[ $status == ok ]]
    }
    built() { echo "$2" >"$logs/$1.built"; } # tells `beside_tests` a build ended, and how
    { step "the optimised runtime tests: their build" "${OPT_TESTS[@]}" --no-run &&
        built opt 0; } || { built opt 1; built loom 1; return 1; }
    { step "loom: its build" "${LOOM_TESTS[@]}" --no-run &&
        built loom 0; } || { built loom 1; return 1; }
}
: >"$logs/background.log"
: >"$logs/background.times"
rm -f "$logs/opt.built" "$logs/loom.built" "$logs/fj.built" "$logs/first-stage-build.done"
(
    renice -n 10 -p "$BASHPID" >/dev/null
    background_builds
) &
builder=$!
say "building the optimised runtime tests and loom's in the background (log: $logs/background.log)"

# --- 1. The workspace, unoptimised: its build ------------------------------------------
# `fj` itself is built once, with MPI: its end-to-end tests (forkjoin-bench's `tests/`), the
# leaf loop's check and stage 7 run that build. Built without MPI too, it would be compiled
# a third time (beside its unit tests' harness), for the one end-to-end test that only a
# build without MPI runs (`fj ft` saying how to get MPI; its message has a unit test).
# `--test` options: the integration tests of the other crates (`first`), or fj's (`fj`).
integration_tests() {
    cargo metadata --no-deps --format-version 1 | python3 -c '
import json, sys
fj = sys.argv[1] == "fj"
for package in json.load(sys.stdin)["packages"]:
    for target in package["targets"]:
        if "test" in target["kind"] and (package["name"] == "forkjoin-bench") == fj:
            print("--test"); print(target["name"])' "$1"
}
# The workspace's own crates compile through clippy's driver, as `cargo clippy` runs it (the
# same two variables), but into the build the tests run: clippy's lints on every target,
# warnings as errors, for the cost of its lint passes alone; a `cargo clippy` of its own
# compiled the workspace and its dependencies once more (docs/measurements.md, "The test
# command"). Cargo's fingerprint includes the driver: every command on `target/` has it.
CLIPPY_DRIVER=$(rustc --print sysroot)/bin/clippy-driver
[[ -x $CLIPPY_DRIVER ]] || rustup component add clippy
LINTED=(env RUSTC_WORKSPACE_WRAPPER="$CLIPPY_DRIVER" CLIPPY_ARGS=-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__)
FIRST_STAGE=(--lib --bins)
mapfile -t -O 2 FIRST_STAGE < <(integration_tests first)
mapfile -t FJ_TESTS < <(integration_tests fj)
# `fj` and forkjoin-mpi with MPI, always selected together: one resolution of the features,
# so that each command finds the other's build fresh.
WITH_MPI=(-p forkjoin-bench -p forkjoin-mpi --features forkjoin-bench/mpi)
FJ_END_TO_END=()
for name in "${FJ_TESTS[@]}"; do
    [[ $name == --test || $name == mpi ]] || FJ_END_TO_END+=(--test "$name")
done
stage "the workspace's tests, unoptimised: the build"
# Every crate's unit tests, integration tests and examples, the differential tests among
# them, in the `dev` profile: unoptimised, with debug assertions (overflow checks on every
# index computation the iterators make). (The doctests are compiled as they run.)
run "${LINTED[@]}" cargo test --workspace --no-run "${FIRST_STAGE[@]}" --examples
touch "$logs/first-stage-build.done"

stage "fj with MPI, unoptimised: the build (waits for Open MPI)"
while [[ ! -s $logs/mpi-install.status ]]; do sleep 2; done
if [[ $(cat "$logs/mpi-install.status") != 0 ]]; then
    tail -n 20 "$logs/mpi-install.log"
    echo "test.sh: installing ${APT_PACKAGES[*]} failed (log: $logs/mpi-install.log)" >&2
    exit 1
fi
run "${LINTED[@]}" cargo test "${WITH_MPI[@]}" --no-run --lib "${FJ_TESTS[@]}"
cp target/debug/fj "$logs/fj"
echo 0 >"$logs/fj.built"

# --- 2, 3 and 4, beside the first stage's tests ----------------------------------------
# The runtime's own tests optimised, the loom checks and the leaf loop's check run as soon as
# their builds end and the first stage's build has ended, beside the first stage's tests
# (which wait, park and sleep much of the time), at the same priority. Each writes its log and
# its line of `beside.times` (name, seconds, status).
beside_tests() {
    beside() { # name, the build's marker, a log name, then the command
        local name=$1 marker=$logs/$2.built log=$logs/$3.log t status=ok
        shift 3
        : >"$log"
        while [[ ! -s $marker || ! -e $logs/first-stage-build.done ]]; do sleep 1; done
        t=$SECONDS
        if [[ $(cat "$marker") == 0 ]]; then
            "$@" >>"$log" 2>&1 || status=failed
        else
            echo "its build failed (log: $logs/background.log)" >>"$log"
            status=failed
        fi
        echo "$name|$((SECONDS - t))|$status|$log" >>"$logs/beside.times"
    }
    # Memory orderings are exercised by optimised code; the default features must pass on
    # their own.
    beside "the runtime's own tests, optimised, default features" opt optimised-runtime-tests "${OPT_TESTS[@]}"
    beside "loom model checks (deque, sleep/wake, frame claims, waits on a pool)" loom loom "${LOOM_TESTS[@]}"
    beside "the leaf loop against std's loop: instructions (fj loops --instructions, callgrind)" \
        fj leaf-loop-instructions leaf_loop_instructions
}
# The leaf loop is std's loop (DESIGN.md, section 8): the fixed cases of `fj loops` and 24
# programs of a fixed seed, built as users build (in `target/loops/`), each run on std,
# forkjoin and rayon under callgrind (valgrind comes with Open MPI's packages). Fails if a
# program's versions disagree or forkjoin at 1 worker executes far more instructions than
# std's loop (more than 1.25x, and more than 1.05x rayon's ratio).
leaf_loop_instructions() {
    while [[ ! -s $logs/mpi-install.status ]]; do sleep 2; done
    [[ $(cat "$logs/mpi-install.status") == 0 ]] || { echo "installing valgrind failed (log: $logs/mpi-install.log)"; return 1; }
    "$logs/fj" loops --instructions --kept --json "$logs/loops-instructions-kept.json" &&
        "$logs/fj" loops --instructions --seed 7 --count 24 --json "$logs/loops-instructions-seed-7.json"
}
: >"$logs/beside.times"
beside_tests &
beside_job=$!

# --- 1. The workspace, unoptimised: its tests ------------------------------------------
stage "the workspace's tests and doctests, unoptimised (the quick tier, cargo quick, and the doctests)"
# The isolation stress programs (tests/runtime/isolation.rs) run 100 times per pool size in
# stage 2's optimised build, where a run takes a fraction of the time; here, under debug
# assertions, 25 times.
run "${LINTED[@]}" FJ_ISOLATION_RUNS=25 cargo test --workspace "${FIRST_STAGE[@]}"
# The doctests of each crate compiled into one binary (scripts/rustdoc-merged.sh), in less CPU
# time than one by one; and rustdoc there checks the error code each `compile_fail` block
# names, which stable rustdoc alone does not.
run "${LINTED[@]}" RUSTDOC="$PWD/scripts/rustdoc-merged.sh" cargo test --workspace --doc
# fj's end-to-end tests but the MPI ones (stage 7), on the build with MPI.
run "${LINTED[@]}" cargo test "${WITH_MPI[@]}" "${FJ_END_TO_END[@]}"

# --- 2, 3 and 4: what ran beside them ------------------------------------------------
end_stage
say "waiting for the optimised runtime tests, loom and the leaf loop's check (beside the first stage; logs: $logs/optimised-runtime-tests.log, $logs/loom.log, $logs/leaf-loop-instructions.log)"
wait "$beside_job" || true
note_peak
beside_ok=1
while IFS='|' read -r name seconds status log; do
    grep -h "test result" "$log" || true
    record "$name (beside the first stage$([[ $status == ok ]] || echo ", $status"))" "$log" "$seconds"
    if [[ $status != ok ]]; then
        tail -n 60 "$log"
        beside_ok=0
    fi
done <"$logs/beside.times"
((beside_ok)) || { echo "test.sh: the optimised runtime tests, loom or the leaf loop's check failed" >&2; exit 1; }
done_with target/opt target/loom target/loops

# --- 3. The build without MPI ---------------------------------------------------------
stage "the workspace builds without MPI"
if cargo tree --workspace -e normal,build --prefix none | grep -q '^mpi-sys '; then
    echo "test.sh: mpi-sys is in the default build of the workspace; MPI must stay behind the \`mpi\` feature" >&2
    exit 1
fi

# --- 6. rayon's suite and API, the Java peer -------------------------------------------
stage "rayon's own integration tests against forkjoin"
# Fetches rayon 1.12.0 and rayon-core 1.13.0 with cargo and builds their tests/ against the
# working tree under the names `rayon` and `rayon_core`: every file must compile and every
# test pass (issue 26's acceptance).
run ./scripts/rayon-tests.sh
note_peak
done_with target/rayon-tests

stage "rayon's public API against forkjoin's (nightly rustdoc's JSON)"
wait "$nightly_install" || true
# Every public item of rayon 1.12.0 and rayon-core 1.13.0 at the same path in forkjoin, with
# the same methods, trait impls and function shapes (scripts/rayon-api.py).
if cargo +nightly --version >/dev/null 2>&1; then
    run ./scripts/rayon-api.sh
    note_peak
    done_with target/rayon-api
else
    echo "no nightly toolchain: rayon's API is not compared"
fi

stage "Java ForkJoinPool peer self-test"
if command -v javac >/dev/null && command -v java >/dev/null; then
    build=target/java-peer
    mkdir -p "$build"
    run javac -d "$build" peers/java/src/*.java
    run java -Xss16m -cp "$build" ForkJoinBench --self-test
else
    echo "no JDK (javac/java) on this machine: the Java peer's self-test is skipped"
fi

# --- 7. MPI ----------------------------------------------------------------------------
stage "MPI: NAS FT under mpiexec, network calibration, model clocks"
# Open MPI refuses root without these, and more processes than cores without the last.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# Built after the first stage's build.
run "${LINTED[@]}" cargo test "${WITH_MPI[@]}" --lib --test mpi
end_stage

# --- What ran in the background --------------------------------------------------------
say "waiting for the background builds"
builds_ok=1
wait "$builder" || builds_ok=0
note_peak
while IFS='|' read -r name seconds status; do
    stage_names+=("$name (in the background, $status)")
    stage_seconds+=("$seconds")
    stage_counts+=("- -")
done <"$logs/background.times"
if ((!builds_ok)); then
    tail -n 60 "$logs/background.log"
    echo "test.sh: a background step failed (log: $logs/background.log)" >&2
    exit 1
fi

if [[ "${FJ_SKIP_MIRI:-0}" != 1 ]]; then
    current="Miri (in the background from the start)" current_log=$logs/miri.log current_start=$miri_start
    say "waiting for Miri"
    wait "$miri" || true
    read -r miri_outcome miri_end <"$logs/miri.status" || miri_outcome=1
    case $miri_outcome in
    unavailable)
        echo "Miri is not installable here (no nightly toolchain reachable): skipped"
        current=
        ;;
    0)
        cat "$logs/miri-runtime.log" "$logs/miri-iterators.log" >"$current_log"
        grep -h "test result\|^Miri lane" "$current_log"
        record "$current" "$current_log" "$((miri_end - miri_start))"
        note_peak
        current=
        done_with target/miri
        ;;
    *)
        tail -n 40 "$logs/miri-runtime.log" "$logs/miri-iterators.log"
        echo "test.sh: Miri failed" >&2
        exit 1
        ;;
    esac
fi

# --- The table -------------------------------------------------------------------------
say "all tests passed"
{
    printf '\n%-84s %7s %7s %8s\n' stage seconds passed ignored
    for i in "${!stage_names[@]}"; do
        read -r passed ignored <<<"${stage_counts[$i]}"
        printf '%-84s %7s %7s %8s\n' "${stage_names[$i]}" "${stage_seconds[$i]}" "$passed" "$ignored"
    done
    printf '%-84s %7s\n' "the whole command" "$((SECONDS - start))"
    awk -v b="$peak_bytes" 'BEGIN { printf "peak size of the target directories: %.1f GB\n", b / 1e9 }'
} | tee "$logs/table.txt"
