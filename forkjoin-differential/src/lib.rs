//! The differential suite's tests live in `tests/differential/`: each runs one program on
//! rayon 1.12 and on forkjoin and asserts that what the program observed is the same.
