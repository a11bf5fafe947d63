#!/usr/bin/env bash
# Runs every test of the repository, installing first what a fresh machine lacks.
#
#   1. the workspace's tests (unit, integration, doc): optimised (the `ci` profile), but
#      for the runtime crate's integration tests, which run unoptimised with debug
#      assertions (`ci-unoptimised`), and its runtime tests again optimised;
#   2. the loom model checks of the deque and of the sleep/wake protocol;
#   3. Miri on the deque, the sleep protocol, a run of the runtime's tests, small parallel
#      iterator cases and the sorts; the compile-fail doctests' error codes (nightly);
#   4. rayon's own integration tests built against forkjoin (all must compile and pass), and
#      rayon's public API compared item by item with forkjoin's (nightly rustdoc's JSON);
#      the Java ForkJoinPool peer's self-test (skipped with a note if there is no JDK);
#   5. the MPI tests (NAS FT under mpiexec in both decompositions, the network calibration,
#      the model clocks), after installing Open MPI from Debian's packages if missing.
#
# FJ_SKIP_MIRI=1 skips step 3 (it takes a few minutes).
set -euo pipefail
cd "$(dirname "$0")/.."

start=$SECONDS
say() { printf '\n==> [%ds, %s free] %s\n' "$((SECONDS - start))" "$(df -h --output=avail . | tail -n 1 | tr -d ' ')" "$*"; }

# In CI (a fresh clone, built once): no incremental caches, and each stage's own target
# directory removed once the stage has passed: the disk is shared with other machines, and a
# linker that cannot extend its output dies of a bus error.
if [[ "${CI:-}" == true ]]; then
    export CARGO_INCREMENTAL=0
    done_with() { rm -rf "$@"; }
else
    done_with() { :; }
fi

if ! command -v cargo >/dev/null; then
    echo "test.sh: cargo not found; install Rust with rustup (https://rustup.rs)" >&2
    exit 1
fi

# Open MPI and what the `mpi` crate's bindings are generated with, for the MPI tests at the
# end (the workspace itself builds without them: MPI is behind the `mpi` feature).
MPI_PACKAGES=(libopenmpi-dev openmpi-bin libclang1-14 libclang-common-14-dev pkg-config)
if ! dpkg -s "${MPI_PACKAGES[@]}" >/dev/null 2>&1; then
    say "installing Open MPI (${MPI_PACKAGES[*]})"
    if [[ $(id -u) == 0 ]]; then sudo=(); elif command -v sudo >/dev/null; then sudo=(sudo); else
        echo "test.sh: needs ${MPI_PACKAGES[*]}; run as root or install them" >&2
        exit 1
    fi
    "${sudo[@]}" apt-get update -q >/dev/null
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -q "${MPI_PACKAGES[@]}" >/dev/null
fi

say "the tools' tests: unit tests, examples, integration tests (optimised: the ci profile)"
# The runtime crate's own come below. The differential tests stay optimised: their stack
# tests size stacks for optimised frames.
cargo test --workspace --exclude forkjoin --profile ci --lib --bins --examples
cargo test --workspace --exclude forkjoin --profile ci --test '*'

say "the runtime crate's integration tests (unoptimised, with debug assertions)"
# Mostly the parallel iterators': generic code that each test crate monomorphises and that
# took 14 of the 15 minutes this step compiled for at opt-level 3 (Cargo.toml,
# `ci-unoptimised`). Debug assertions check every index computation for overflow.
cargo test -p forkjoin --features profile --profile ci-unoptimised --test '*'
done_with target/ci-unoptimised
# The runtime's own tests optimised (memory orderings are exercised by optimised code), and
# without the `profile` feature the benchmark crate turns on: the default build must build
# and pass on its own.
cargo test -p forkjoin --profile ci --lib --examples --test runtime --test blocking

say "the workspace builds without MPI: no mpi-sys in the default dependency tree"
if cargo tree --workspace -e normal,build --prefix none | grep -q '^mpi-sys '; then
    echo "test.sh: mpi-sys is in the default build of the workspace; MPI must stay behind the \`mpi\` feature" >&2
    exit 1
fi

say "clippy, warnings as errors"
cargo clippy --workspace --all-targets -- -D warnings

say "doctests (debug: a hundred small programs compile four times faster)"
cargo test --workspace --doc
done_with target/debug

say "loom model checks (deque, sleep/wake)"
RUSTFLAGS="--cfg loom" CARGO_TARGET_DIR=target/loom cargo test -p forkjoin --profile ci --lib loom_tests
done_with target/loom

if [[ "${FJ_SKIP_MIRI:-0}" != 1 ]]; then
    say "Miri"
    if ! cargo +nightly miri --version >/dev/null 2>&1; then
        rustup toolchain install nightly --profile minimal --component miri,rust-src >/dev/null 2>&1 ||
            rustup +nightly component add miri rust-src >/dev/null 2>&1 || true
    fi
    if cargo +nightly miri --version >/dev/null 2>&1; then
        # Stacked Borrows and data-race checks. The global pool's threads are never joined
        # (it lives for the whole process), hence -Zmiri-ignore-leaks.
        export MIRIFLAGS="-Zmiri-disable-isolation -Zmiri-ignore-leaks"
        # Miri interprets on one thread, so two lanes run side by side, each with a target
        # directory of its own (cargo holds its directory's lock while tests run). No
        # backtraces (RUST_BACKTRACE may be set around us): Miri reports its own, and capturing
        # one at each panic the tests make took the panic tests 10 to 50 times as long
        # (docs/measurements.md, "The test command").
        miri_lane() { # a name, then each `cargo miri test` command's arguments, ";" between
            local name=$1 log=target/miri-$1.log
            shift
            : >"$log"
            while (($#)); do
                local args=()
                while (($#)) && [[ $1 != ";" ]]; do args+=("$1"); shift; done
                (($#)) && shift
                RUST_BACKTRACE=0 CARGO_TARGET_DIR=target/miri-$name cargo +nightly miri test -p forkjoin "${args[@]}" >>"$log" 2>&1 ||
                    { echo "Miri lane $name failed: cargo miri test ${args[*]} (log: $log)"; return 1; }
            done
        }
        # The deque, the sleep protocol and tasks; a run of the runtime's tests.
        miri_lane runtime --lib -- deque::tests lineage::tests sleep::tests task::tests ";" \
            --test runtime -- --exact join::fib_exact_at_many_worker_counts \
            scope::scope_borrows_the_stack_and_returns_a_value \
            join::panics_propagate_and_the_pool_survives loops::loops_are_exact \
            tasks::invoke_all_keeps_order join::nested_pools_do_not_deadlock \
            tasks::task_is_done_and_join_from_inside_the_pool \
            pool::bad_input_is_an_error_not_a_panic tasks::a_stream_of_submissions_runs_each_job_once &
        lane_runtime=$!
        # Parallel iterators on small inputs (the iterator tests' `miri` module: Miri builds
        # the whole crate and runs only these): collect in place, owning sources, drains,
        # panics while collecting, nesting; the sorts' exact answers. (The two lanes take
        # about as long.)
        miri_lane iterators --test iter -- miri:: ";" \
            --lib -- sort::merge::tests::merge_sort_matches_std sort::quick::tests::quick_sort_matches_std &
        lane_iterators=$!
        failed=0
        wait "$lane_runtime" || failed=1
        wait "$lane_iterators" || failed=1
        grep -h "test result" target/miri-runtime.log target/miri-iterators.log
        if ((failed)); then
            tail -n 40 target/miri-runtime.log target/miri-iterators.log
            exit 1
        fi
        done_with target/miri-runtime target/miri-iterators
    else
        echo "Miri is not installable here (no nightly toolchain reachable): skipped"
    fi
fi

say "compile-fail doctests with their error codes (nightly)"
# Stable rustdoc runs `compile_fail` blocks but does not check the error code each names;
# nightly does, so a block that fails for another reason is caught there.
if cargo +nightly --version >/dev/null 2>&1; then
    CARGO_TARGET_DIR=target/nightly cargo +nightly test -p forkjoin --doc compile_fail
    done_with target/nightly
else
    echo "no nightly toolchain: the error codes of the compile-fail doctests are not checked"
fi

say "rayon's own integration tests against forkjoin"
# Fetches rayon 1.12.0 and rayon-core 1.13.0 with cargo and builds their tests/ against the
# working tree under the names `rayon` and `rayon_core`: every file must compile and every
# test pass (issue 26's acceptance).
./scripts/rayon-tests.sh
done_with target/rayon-tests

say "rayon's public API against forkjoin's (nightly rustdoc's JSON)"
# Every public item of rayon 1.12.0 and rayon-core 1.13.0 at the same path in forkjoin, with
# the same methods, trait impls and function shapes (scripts/rayon-api.py).
if cargo +nightly --version >/dev/null 2>&1; then
    ./scripts/rayon-api.sh
    done_with target/rayon-api
else
    echo "no nightly toolchain: rayon's API is not compared"
fi

say "Java ForkJoinPool peer self-test"
if command -v javac >/dev/null && command -v java >/dev/null; then
    build=target/java-peer
    mkdir -p "$build"
    javac -d "$build" peers/java/src/*.java
    java -Xss16m -cp "$build" ForkJoinBench --self-test
else
    echo "no JDK (javac/java) on this machine: the Java peer's self-test is skipped"
fi

say "MPI: NAS FT under mpiexec, network calibration, model clocks"
# Open MPI refuses root without these, and more processes than cores without the last.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
cargo test -p forkjoin-bench --profile ci --features mpi --test mpi
cargo test -p forkjoin-mpi --profile ci --features mpi

say "all tests passed"
