# Sourced by rayon-tests.sh and rayon-api.sh: `rayon_fetch_crate DIR` writes in DIR a crate
# that depends on the rayon and rayon-core versions forkjoin follows, so that cargo fetches
# them (their sources land in cargo's registry cache).
rayon_fetch_crate() {
    mkdir -p "$1/src"
    cat >"$1/Cargo.toml" <<'TOML'
[package]
name = "rayon-fetch"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
rayon = "=1.12.0"
rayon-core = "=1.13.0"

[workspace]
TOML
    : >"$1/src/lib.rs"
}
