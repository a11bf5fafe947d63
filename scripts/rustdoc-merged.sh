#!/usr/bin/env bash
# rustdoc with each crate's doctests compiled into one binary (`--merge-doctests=yes`, what
# edition 2024 does by default; unstable in rustdoc 1.95, hence RUSTC_BOOTSTRAP for rustdoc
# alone): the test command's first stage sets `RUSTDOC` to this. Each doctest still runs as a
# process of its own; a doctest that does not compile fails the merged build ("failed to merge
# doctests"), and `cargo test --doc` without this names it. Its cost against one binary per
# doctest: docs/measurements.md, "The test command".
RUSTC_BOOTSTRAP=1 exec rustdoc -Zunstable-options --merge-doctests=yes "$@"
