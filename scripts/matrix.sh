#!/usr/bin/env bash
# The performance matrix (`fj matrix`) built as a user builds: cargo's default release
# profile (`[profile.user]` in Cargo.toml) and no `-C target-cpu=native` (the empty
# RUSTFLAGS overrides `.cargo/config.toml`'s `build.rustflags`), in a target directory of
# its own so that it never mixes with the native builds. Arguments go to `fj matrix`:
#
#   scripts/matrix.sh                       # quick size, workers 1,2
#   scripts/matrix.sh --filter nested --rounds 20
#   scripts/matrix.sh --size full --json fj-report/matrix-full.json
set -euo pipefail
cd "$(dirname "$0")/.."
RUSTFLAGS="" exec cargo run --profile user --target-dir target/user -p forkjoin-bench --bin fj -- matrix "$@"
