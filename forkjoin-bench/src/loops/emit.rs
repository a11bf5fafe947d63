//! Rust source for the programs: each [`Program`] becomes one `fn pI(inp: &mut Input) ->
//! u64` in `programs.rs`, which the generated crate includes three times, under std's
//! iterators with rayon's names, forkjoin's prelude and rayon's (`template/main.rs`); and
//! `table.rs`, the list of programs with their three versions.
//!
//! A program's chain is written into a closure `inner(lo, hi, out)` over the items
//! `lo..hi` (and `out`, their slots for `iter-mut`), which the nesting calls once (`flat`),
//! from an outer parallel loop (`outer-M`) or at the leaves of a `join` recursion
//! (`join-L`). Every program returns a `u64` checksum. Floats are integer-valued (the
//! `float` kind floors its result, slices hold integers), so their sums are exact in any
//! split order and a float result is compared exactly, as an integer.

use std::fmt::Write;

use super::grammar::{Adaptor, Chain, Cmp, Consumer, Kind, Nesting, Program, Source, Target, Ty};

/// An item of type `ty`, written `e`, as a `u64` below 2^32.
pub(crate) fn as_u64(ty: &Ty, e: &str) -> String {
    match ty {
        Ty::U32 | Ty::Usize | Ty::F64 => format!("({e} as u64)"),
        Ty::U64 => format!("({e})"),
        Ty::Ref(t) => as_u64(t, &format!("(*{e})")),
        Ty::Pair(a, b) => format!(
            "({}.wrapping_mul(31).wrapping_add({}) & LOW)",
            as_u64(a, &format!("{e}.0")),
            as_u64(b, &format!("{e}.1"))
        ),
        Ty::Chunk => format!("chunk_sum({e})"),
        Ty::Mut => format!("(*{e} & LOW)"),
        Ty::Acc(..) => format!("{e}.check()"),
    }
}

/// An item as an `f64` (exact: every value is an integer below 2^32).
pub(crate) fn as_f64(ty: &Ty, e: &str) -> String {
    match ty {
        Ty::F64 => format!("({e})"),
        Ty::Ref(t) if **t == Ty::F64 => format!("(*{e})"),
        _ => format!("({} as f64)", as_u64(ty, e)),
    }
}

/// Kind `k` applied to the item `e` of type `ty`: the expression and whether it is an
/// `f64`. `state` is the scratch `Vec` of the `scratch` kind.
fn apply(k: Kind, ty: &Ty, e: &str, state: &str) -> (String, bool) {
    let u = || as_u64(ty, e);
    let expr = match k {
        Kind::Float => return (format!("k_float({})", as_f64(ty, e)), true),
        Kind::Arith => format!("k_arith({})", u()),
        Kind::Branch => format!("k_branch({})", u()),
        Kind::Hash => format!("k_hash({})", u()),
        Kind::Alloc => format!("k_alloc({})", u()),
        Kind::Str => format!("k_string({})", u()),
        Kind::Scratch => format!("k_scratch({state}, {})", u()),
        Kind::Spin => format!("k_spin({}, rounds)", u()),
    };
    (expr, false)
}

/// As [`apply`], always a `u64`.
fn apply_u64(k: Kind, ty: &Ty, e: &str, state: &str) -> String {
    match apply(k, ty, e, state) {
        (x, true) => format!("({x} as u64)"),
        (x, false) => x,
    }
}

/// The path to the `&mut u64` inside an item `e` of type `ty`.
fn mut_path(ty: &Ty, e: &str) -> Option<String> {
    match ty {
        Ty::Mut => Some(e.to_string()),
        Ty::Pair(a, b) => mut_path(a, &format!("{e}.0")).or_else(|| mut_path(b, &format!("{e}.1"))),
        _ => None,
    }
}

/// The accumulator type of `ty` (an [`Ty::Acc`]): its name (`Acc`, or `Scr` with a scratch
/// `Vec`) and its words (8 bytes each), as in `Acc::<6>`.
fn acc_type(ty: &Ty) -> (&'static str, usize) {
    match ty {
        Ty::Acc(bytes, false) => ("Acc", bytes / 8),
        Ty::Acc(bytes, true) => ("Scr", bytes / 8),
        _ => unreachable!("not an accumulator"),
    }
}

fn source(s: Source) -> String {
    match s {
        Source::RangeU32 => "((lo as u32)..(hi as u32)).into_par_iter()".into(),
        Source::RangeU64 => "((lo as u64)..(hi as u64)).into_par_iter()".into(),
        Source::RangeUsize => "(lo..hi).into_par_iter()".into(),
        Source::SliceU64 => "v[lo..hi].par_iter()".into(),
        Source::SliceF64 => "fv[lo..hi].par_iter()".into(),
        Source::VecU64 => "v[lo..hi].to_vec().into_par_iter()".into(),
        Source::Chunks(k) => format!("v[lo..hi].par_chunks({k})"),
        Source::ZipU64 => "v[lo..hi].par_iter().zip(w[lo..hi].par_iter())".into(),
        Source::IterMut => "out.par_iter_mut()".into(),
    }
}

fn adaptor(a: Adaptor, ty: &Ty) -> String {
    match a {
        Adaptor::Map(k) => format!(".map(|x| {})", apply(k, ty, "x", "").0),
        Adaptor::MapInit => format!(
            ".map_init(|| Vec::<u64>::with_capacity(8), |s, x| k_scratch(s, {}))",
            as_u64(ty, "x")
        ),
        Adaptor::Filter(k) => format!(".filter(|x| {} % 4 != 0)", apply_u64(k, ty, "(*x)", "")),
        Adaptor::Enumerate => ".enumerate()".into(),
        Adaptor::FlatMapIter(k) => format!(
            ".flat_map_iter(|x| {{ let v = {}; (0..(v & 3) + 1).map(move |j| {}) }})",
            as_u64(ty, "x"),
            apply(k, &Ty::U64, "(v ^ j)", "").0
        ),
        Adaptor::Copied => ".copied()".into(),
        Adaptor::Cloned => ".cloned()".into(),
        Adaptor::WithMinLen(m) => format!(".with_min_len({m})"),
        Adaptor::Fold(k, b) | Adaptor::FoldWith(k, b) => {
            let (name, words) = acc_type(&Ty::Acc(b, k == Kind::Scratch));
            let acc = format!("{name}::<{words}>");
            let op = if k == Kind::Scratch {
                format!("|a, x| a.push({})", as_u64(ty, "x"))
            } else {
                format!("|a, x| a.add({})", apply_u64(k, ty, "x", ""))
            };
            if matches!(a, Adaptor::Fold(..)) {
                format!(".fold({acc}::zero, {op})")
            } else {
                format!(".fold_with({acc}::zero(), {op})")
            }
        }
    }
}

/// The consumer's call and the checksum of its result `r`.
fn consumer(c: Consumer, ty: &Ty) -> (String, String) {
    let pred = |t: Target, v: String| match t {
        Target::None => format!("{v} == missing"),
        Target::Rare => format!("rare({v})"),
    };
    let key = |e: &str| as_f64(ty, e);
    match c {
        Consumer::Sum => match ty {
            Ty::U64 => (".sum::<u64>()".into(), "r".into()),
            Ty::Usize => (".sum::<usize>()".into(), "r as u64".into()),
            Ty::F64 => (".sum::<f64>()".into(), "r as u64".into()),
            Ty::Ref(t) if **t == Ty::F64 => (".sum::<f64>()".into(), "r as u64".into()),
            Ty::Ref(_) => (".sum::<u64>()".into(), "r".into()),
            Ty::Acc(..) => {
                let (name, words) = acc_type(ty);
                (format!(".sum::<{name}<{words}>>()"), "r.check()".into())
            }
            _ => unreachable!("sum of {ty:?}"),
        },
        Consumer::Reduce => match ty {
            Ty::F64 => (".reduce(|| 0.0, |a, b| a + b)".into(), "r as u64".into()),
            Ty::Acc(..) => {
                let (name, words) = acc_type(ty);
                (
                    format!(".reduce({name}::<{words}>::zero, {name}::merge)"),
                    "r.check()".into(),
                )
            }
            _ => (
                ".reduce(|| 0, |a, b| a.wrapping_add(b))".into(),
                "r as u64".into(),
            ),
        },
        Consumer::Min | Consumer::Max => (
            if c == Consumer::Min {
                ".min()"
            } else {
                ".max()"
            }
            .into(),
            format!("r.map_or(u64::MAX, |x| {})", as_u64(ty, "x")),
        ),
        Consumer::MinBy(cmp) | Consumer::MaxBy(cmp) => {
            let name = if matches!(c, Consumer::MinBy(_)) {
                "min_by"
            } else {
                "max_by"
            };
            let order = match cmp {
                Cmp::Partial => format!("{}.partial_cmp(&{}).unwrap()", key("(*a)"), key("(*b)")),
                Cmp::Total => format!("{}.total_cmp(&{})", key("(*a)"), key("(*b)")),
            };
            // The checksum reads the key only: items of equal keys may differ, and which of
            // them a split order returns is not the question.
            (
                format!(".{name}(|a, b| {order})"),
                format!("r.map_or(u64::MAX, |x| {} as u64)", key("x")),
            )
        }
        Consumer::Count => (".count()".into(), "r as u64".into()),
        Consumer::Collect => (
            ".collect::<Vec<_>>()".into(),
            format!("cs(&r, |x| {})", as_u64(ty, "(*x)")),
        ),
        Consumer::ForEach(k) => {
            let m = mut_path(ty, "x").expect("for_each on a chain with a &mut");
            (
                format!(
                    ".for_each(|x| {{ let v = {}; *{m} = (*{m} & LOW) | (v << 32); }})",
                    apply_u64(k, ty, "x", "")
                ),
                "0".into(),
            )
        }
        Consumer::ForEachInit(k) => {
            let write = mut_path(ty, "x")
                .map(|m| format!(" *{m} = (*{m} & LOW) | (v << 32);"))
                .unwrap_or_default();
            (
                format!(
                    ".for_each_init(|| Flush::new(sink), |f, x| {{ let v = {}; f.push(v);{write} }})",
                    apply_u64(k, ty, "x", "&mut f.tmp")
                ),
                "0".into(),
            )
        }
        Consumer::Any(t) => (
            format!(".any(|x| {})", pred(t, as_u64(ty, "x"))),
            "r as u64".into(),
        ),
        Consumer::FindFirst(t) => (
            format!(".find_first(|x| {})", pred(t, as_u64(ty, "(*x)"))),
            format!("r.map_or(u64::MAX, |x| {})", as_u64(ty, "x")),
        ),
        Consumer::PositionFirst(t) => (
            format!(".position_first(|x| {})", pred(t, as_u64(ty, "x"))),
            "r.map_or(u64::MAX, |p| p as u64)".into(),
        ),
    }
}

/// The function `p{index}` of `p`.
pub(crate) fn program_fn(index: usize, p: &Program) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "/// `{p}`");
    let _ = writeln!(s, "pub fn p{index}(inp: &mut Input) -> u64 {{");
    s.push_str(
        "    let Input { n, v, w, fv, out, rounds, missing } = inp;\n    \
         let (n, rounds, missing) = (*n, *rounds, *missing);\n    \
         let (v, w, fv, out) = (&v[..], &w[..], &fv[..], &mut out[..]);\n    \
         let sink = &std::sync::atomic::AtomicU64::new(0);\n",
    );
    let _ = writeln!(
        s,
        "    let inner = |lo: usize, hi: usize, out: &mut [u64]| -> u64 {{"
    );
    let _ = writeln!(s, "        let r = {}", source(p.source));
    let mut chain = Chain::new(p.source);
    for &a in &p.adaptors {
        let _ = writeln!(s, "            {}", adaptor(a, &chain.ty));
        chain = chain.then(a).expect("a checked program");
    }
    let ty = chain.ty;
    let (call, check) = consumer(p.consumer, &ty);
    let _ = writeln!(s, "            {call};");
    let _ = writeln!(s, "        {check}");
    let _ = writeln!(s, "    }};");
    let nest = match p.nesting {
        Nesting::Flat => "inner(0, n, out)".to_string(),
        Nesting::Outer(m) if p.source == Source::IterMut => format!(
            "{{ let len = n.div_ceil({m}); out.par_chunks_mut(len).enumerate()\
             .map(|(o, part)| inner(o * len, o * len + part.len(), part) & LOW).sum::<u64>() }}"
        ),
        Nesting::Outer(m) => format!(
            "{{ let len = n.div_ceil({m}); (0..n.div_ceil(len)).into_par_iter()\
             .map(|o| inner(o * len, ((o + 1) * len).min(n), &mut []) & LOW).sum::<u64>() }}"
        ),
        Nesting::Join(l) => format!("rec(0, n, out, n.div_ceil({l}), &inner)"),
    };
    let _ = writeln!(s, "    let r: u64 = {nest};");
    let out_sum = if p.source == Source::IterMut {
        ".wrapping_add(cs(out, |x| *x))"
    } else {
        ""
    };
    let _ = writeln!(
        s,
        "    r.wrapping_add(sink.load(std::sync::atomic::Ordering::Relaxed)){out_sum}"
    );
    let _ = writeln!(s, "}}");
    s
}

/// `programs.rs`: the join recursion and every program's function.
pub(crate) fn programs_rs(programs: &[Program]) -> String {
    let mut s = String::from(
        "// Generated by `fj loops`: included three times by main.rs, once per prelude.\n\n\
         /// A `join` recursion halving `lo..hi` (and `out`, when it holds the items' slots) down\n\
         /// to leaves of at most `leaf` items, each `f`'s loop.\n\
         fn rec<F: Fn(usize, usize, &mut [u64]) -> u64 + Sync>(\n    \
         lo: usize, hi: usize, out: &mut [u64], leaf: usize, f: &F,\n) -> u64 {\n    \
         if hi - lo <= leaf {\n        return f(lo, hi, out);\n    }\n    \
         let mid = lo + (hi - lo) / 2;\n    \
         let (a, b) = if out.is_empty() {\n        \
         join(|| rec(lo, mid, &mut [], leaf, f), || rec(mid, hi, &mut [], leaf, f))\n    \
         } else {\n        \
         let (l, r) = out.split_at_mut(mid - lo);\n        \
         join(|| rec(lo, mid, l, leaf, f), || rec(mid, hi, r, leaf, f))\n    };\n    \
         a.wrapping_add(b)\n}\n\n",
    );
    for (i, p) in programs.iter().enumerate() {
        s.push_str(&program_fn(i, p));
        s.push('\n');
    }
    s
}

/// `table.rs`: `PROGRAMS`, each program's line, items, inputs and versions.
pub(crate) fn table_rs(programs: &[Program]) -> String {
    let mut s = String::from("// Generated by `fj loops`.\n\nstatic PROGRAMS: &[Prog] = &[\n");
    for (i, p) in programs.iter().enumerate() {
        let src = p.source;
        let v = matches!(
            src,
            Source::SliceU64 | Source::VecU64 | Source::Chunks(_) | Source::ZipU64
        );
        let _ = writeln!(
            s,
            "    Prog {{ line: {:?}, n: {}, needs: Needs {{ v: {v}, w: {}, fv: {}, out: {} }}, \
             fns: [seq::p{i}, fj::p{i}, ry::p{i}] }},",
            p.to_string(),
            p.n,
            src == Source::ZipU64,
            src == Source::SliceF64,
            src == Source::IterMut,
        );
    }
    s.push_str("];\n");
    s
}
