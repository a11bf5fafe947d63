//! The same program on rayon 1.12 and on forkjoin: what a program can observe (answers, how
//! often each closure ran, which threads ran what, thread-locals, indices, panics, the order
//! of ordered side effects, drops) must be equal. rayon is the specification; where forkjoin
//! differs on purpose, the test says so and checks forkjoin's documented behaviour instead.
//!
//! A program is written once, in `same_on_both!`, against `rt`, which is `rayon` in one
//! expansion and `forkjoin` in the other (with that crate's prelude in scope); it returns its
//! observations as a value, and the two values must be equal.

/// Defines a test that runs `body` with `rt` as rayon and as forkjoin and compares the values
/// it returns: `forkjoin`'s on the left of the assertion, rayon's on the right.
macro_rules! same_on_both {
    ($(#[$meta:meta])* fn $name:ident() -> $ty:ty $body:block) => {
        $(#[$meta])*
        #[test]
        fn $name() {
            fn on_rayon() -> $ty {
                #[allow(unused_imports)]
                use rayon as rt;
                #[allow(unused_imports)]
                use rayon::prelude::*;
                $body
            }
            fn on_forkjoin() -> $ty {
                #[allow(unused_imports)]
                use forkjoin as rt;
                #[allow(unused_imports)]
                use forkjoin::prelude::*;
                $body
            }
            let rayon = on_rayon();
            let forkjoin = on_forkjoin();
            assert_eq!(forkjoin, rayon, "forkjoin (left) differs from rayon 1.12 (right)");
        }
    };
}

mod adaptors;
mod answers;
mod common;
mod consumers;
mod drops;
mod entry;
mod environment;
mod finishing;
mod indices;
mod iter_panics;
mod pools;
mod sources;
mod spawns;
