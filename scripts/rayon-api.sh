#!/usr/bin/env bash
# Checks that forkjoin has every public item of rayon 1.12.0 and rayon-core 1.13.0: the
# same paths, kinds, methods, variants, trait impls and function shapes (rayon-api.py says
# what is compared). The three APIs are read from rustdoc's JSON output, which needs a
# nightly toolchain; rayon's crates are fetched by cargo (nothing of rayon's is kept in
# this repository). Exits non-zero if anything is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$PWD/target/rayon-api
source scripts/rayon-fetch.sh
rayon_fetch_crate "$work/fetch"
json() { # package, manifest
    cargo +nightly rustdoc -q -p "$1" --manifest-path "$2" --target-dir "$work/target" \
        -- -Z unstable-options --output-format json
}
json rayon "$work/fetch/Cargo.toml"
json rayon-core "$work/fetch/Cargo.toml"
json forkjoin forkjoin/Cargo.toml
doc=$work/target/doc
python3 scripts/rayon-api.py "$doc/rayon.json" "$doc/rayon_core.json" "$doc/forkjoin.json"
