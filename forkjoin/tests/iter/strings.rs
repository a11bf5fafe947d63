//! `str`'s parallel iterators (chars, char indices, bytes, encode_utf16, lines, words,
//! split families, matches) give what `str`'s sequential ones give, on text with multi-byte
//! characters.

use crate::common::*;
use forkjoin::prelude::*;

/// A string of `n` characters drawn from letters, separators, whitespace, `\r`, `\n` and
/// characters of 2, 3 and 4 bytes.
fn text(n: usize) -> String {
    const ALPHABET: [char; 16] = [
        'a', 'b', ',', ' ', '\t', '\n', '\r', 'é', '€', '𝄞', 'x', ';', '\u{2009}', 'z', '\n', ',',
    ];
    input31(n)
        .iter()
        .map(|&x| ALPHABET[(x % 16) as usize])
        .collect()
}

#[test]
fn string_iterators_give_what_str_gives() {
    on_pools_and_lens_with_workers(&SMALL, |at, _, n| {
        let s = text(n);
        let s = s.as_str();
        assert_eq!(
            s.par_chars().collect::<Vec<_>>(),
            s.chars().collect::<Vec<_>>(),
            "{at}"
        );
        let got: Vec<(usize, char)> = s.par_char_indices().collect();
        assert_eq!(got, s.char_indices().collect::<Vec<_>>(), "{at}");
        assert_eq!(
            s.par_bytes().collect::<Vec<_>>(),
            s.bytes().collect::<Vec<_>>(),
            "{at}"
        );
        let got: Vec<u16> = s.par_encode_utf16().collect();
        assert_eq!(got, s.encode_utf16().collect::<Vec<_>>(), "{at}");
        // rayon's lines (`str::lines` keeps a bare `\r` at the very end).
        let got: Vec<&str> = s.par_lines().collect();
        let want: Vec<&str> = s
            .split_terminator('\n')
            .map(|l| l.strip_suffix('\r').unwrap_or(l))
            .collect();
        assert_eq!(got, want, "lines, {at}");
        let got: Vec<&str> = s.par_split_whitespace().collect();
        assert_eq!(got, s.split_whitespace().collect::<Vec<_>>(), "{at}");
        let got: Vec<&str> = s.par_split_ascii_whitespace().collect();
        assert_eq!(got, s.split_ascii_whitespace().collect::<Vec<_>>(), "{at}");
        // Every kind of pattern.
        macro_rules! by_pattern {
            ($pat:expr) => {{
                let what = format!("{}, {at}", stringify!($pat));
                let got: Vec<&str> = s.par_split($pat).collect();
                assert_eq!(got, s.split($pat).collect::<Vec<_>>(), "split {what}");
                let got: Vec<&str> = s.par_split_inclusive($pat).collect();
                assert_eq!(
                    got,
                    s.split_inclusive($pat).collect::<Vec<_>>(),
                    "inclusive {what}"
                );
                let got: Vec<&str> = s.par_split_terminator($pat).collect();
                assert_eq!(
                    got,
                    s.split_terminator($pat).collect::<Vec<_>>(),
                    "terminator {what}"
                );
                let got: Vec<&str> = s.par_matches($pat).collect();
                assert_eq!(got, s.matches($pat).collect::<Vec<_>>(), "matches {what}");
                let got: Vec<(usize, &str)> = s.par_match_indices($pat).collect();
                assert_eq!(
                    got,
                    s.match_indices($pat).collect::<Vec<_>>(),
                    "match_indices {what}"
                );
            }};
        }
        by_pattern!(',');
        by_pattern!('€');
        by_pattern!('q');
        by_pattern!(&[',', '𝄞'][..]);
        by_pattern!([';', 'é', '\n']);
        by_pattern!(&['a', 'z']);
        by_pattern!(char::is_whitespace);
        by_pattern!(|c: char| c.len_utf8() > 1);
        // A string that ends with a separator, and one that is only separators.
        let ends = format!("{s},");
        let got: Vec<&str> = ends.par_split_terminator(',').collect();
        assert_eq!(got, ends.split_terminator(',').collect::<Vec<_>>(), "{at}");
        let got: Vec<&str> = ends.par_split_inclusive(',').collect();
        assert_eq!(got, ends.split_inclusive(',').collect::<Vec<_>>(), "{at}");
        let commas = ",".repeat(n);
        let got: Vec<&str> = commas.par_split(',').collect();
        assert_eq!(got, commas.split(',').collect::<Vec<_>>(), "{at}");
        let got: Vec<&str> = commas.par_split_terminator(',').collect();
        assert_eq!(
            got,
            commas.split_terminator(',').collect::<Vec<_>>(),
            "{at}"
        );
        // rayon's lines: `str::lines`, but a last line's bare `\r` is dropped too.
        let crlf = "ab\r\n".repeat(n) + "\r";
        let got: Vec<&str> = crlf.par_lines().collect();
        let mut want = vec!["ab"; n];
        want.push("");
        assert_eq!(got, want, "{at}");
        let bare = "a\rb\n".repeat(n) + "c\r";
        let got: Vec<&str> = bare.par_lines().collect();
        let mut want = vec!["a\rb"; n];
        want.push("c");
        assert_eq!(got, want, "{at}");
        // A `String` has the methods too.
        let owned: String = s.to_string();
        assert_eq!(owned.par_chars().count(), s.chars().count(), "{at}");
    });
}
