//! The loop programs' grammar: what a program is ([`Program`]: a source, up to three
//! adaptors, a consumer, a nesting and an item count), the item types that make a chain
//! type-correct ([`Ty`]), the seeded generator ([`generate`]) and the one-line text form
//! (`Display` and `FromStr`), in which `kept.txt` keeps the fixed cases and
//! `fj loops --program` takes one.
//!
//! A line reads `source | adaptors | consumer | nesting | n=N`, the adaptors separated by
//! spaces (`-` for none), e.g. `slice-u64 | map:arith filter:branch | sum | flat | n=200000`.
//! Closure-taking elements carry their closure's kind after a colon (`map:float`), folds
//! their accumulator's size after an `@` (`fold:branch@256`).
//!
//! A closure's kind belongs to the closure, not to the program, so that one program mixes
//! kinds as people's loops do (`map:arith filter:branch`): `arith`, `branch`, `float`,
//! `hash`, `alloc` (a `Vec` per item), `string` (a `String` per item), `spin` (about
//! 100 ns), and `scratch`, a `Vec` reused from item to item, only where a closure has a
//! state to keep it in (`map_init`, `fold`, `fold_with`, `for_each_init`). Besides types,
//! the chains leave out what the compiler would fold away (see [`Chain::accepts`]).

use std::fmt;
use std::str::FromStr;

/// What a closure does to an item (every kind maps a value below 2^32 to one below 2^32,
/// so that sums cannot overflow and every split order gives the same answer).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Kind {
    /// Arithmetic that vectorises (`3x + 1`, masked): about 1 ns.
    Arith,
    /// Data-dependent branches: a few ns.
    Branch,
    /// Floating point (a square root), integer-valued results: a few ns.
    Float,
    /// Four rounds of a hash finaliser: about 10 ns.
    Hash,
    /// A small `Vec` allocated per item: tens of ns.
    Alloc,
    /// A `String` formatted per item: about 100 ns.
    Str,
    /// A scratch `Vec` reused from item to item (through `map_init`, `for_each_init`,
    /// `fold`/`fold_with` state): about 10 ns.
    Scratch,
    /// A dependent chain of hash rounds, their count read at run time: about 100 ns.
    Spin,
}

/// Every kind, in text order.
pub(crate) const KINDS: [Kind; 8] = [
    Kind::Arith,
    Kind::Branch,
    Kind::Float,
    Kind::Hash,
    Kind::Alloc,
    Kind::Str,
    Kind::Scratch,
    Kind::Spin,
];

impl Kind {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Kind::Arith => "arith",
            Kind::Branch => "branch",
            Kind::Float => "float",
            Kind::Hash => "hash",
            Kind::Alloc => "alloc",
            Kind::Str => "string",
            Kind::Scratch => "scratch",
            Kind::Spin => "spin",
        }
    }

    /// The nominal nanoseconds of one call (for sizing loops only; measured on the
    /// development machine, built as users build).
    pub(crate) fn ns(self) -> f64 {
        match self {
            Kind::Arith => 0.3,
            Kind::Branch => 1.5,
            Kind::Float => 12.0,
            Kind::Hash => 6.0,
            Kind::Alloc => 12.0,
            Kind::Str => 30.0,
            Kind::Scratch => 4.0,
            Kind::Spin => 120.0,
        }
    }
}

/// Where a loop's items come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Source {
    RangeU32,
    RangeU64,
    RangeUsize,
    /// `v.par_iter()` over a `&[u64]`.
    SliceU64,
    /// `fv.par_iter()` over a `&[f64]`.
    SliceF64,
    /// An owned `Vec<u64>` (a copy of the slice made in the loop) through `into_par_iter`.
    VecU64,
    /// `v.par_chunks(k)`.
    Chunks(usize),
    /// `v.par_iter().zip(w.par_iter())`.
    ZipU64,
    /// `out.par_iter_mut()`: the chain ends in `for_each`, `for_each_init` or `count`.
    IterMut,
}

/// The chunk lengths of `chunks-K`.
pub(crate) const CHUNK_LENS: [usize; 3] = [4, 16, 64];

/// Every source (each chunk length once).
pub(crate) fn all_sources() -> Vec<Source> {
    let mut v = vec![
        Source::RangeU32,
        Source::RangeU64,
        Source::RangeUsize,
        Source::SliceU64,
        Source::SliceF64,
        Source::VecU64,
    ];
    v.extend(CHUNK_LENS.iter().map(|&k| Source::Chunks(k)));
    v.extend([Source::ZipU64, Source::IterMut]);
    v
}

impl Source {
    /// The type of the source's items.
    pub(crate) fn ty(self) -> Ty {
        match self {
            Source::RangeU32 => Ty::U32,
            Source::RangeU64 | Source::VecU64 => Ty::U64,
            Source::RangeUsize => Ty::Usize,
            Source::SliceU64 => Ty::Ref(Box::new(Ty::U64)),
            Source::SliceF64 => Ty::Ref(Box::new(Ty::F64)),
            Source::Chunks(_) => Ty::Chunk,
            Source::ZipU64 => Ty::Pair(
                Box::new(Ty::Ref(Box::new(Ty::U64))),
                Box::new(Ty::Ref(Box::new(Ty::U64))),
            ),
            Source::IterMut => Ty::Mut,
        }
    }

    /// The nominal nanoseconds an item of the source costs before any closure.
    fn ns(self) -> f64 {
        match self {
            Source::RangeU32 | Source::RangeU64 | Source::RangeUsize => 0.1,
            Source::SliceU64 | Source::SliceF64 => 0.15,
            Source::Chunks(_) => 0.05,
            Source::ZipU64 | Source::IterMut => 0.3,
            Source::VecU64 => 0.5,
        }
    }

    /// The name of the source's family (`chunks` for every chunk length).
    pub(crate) fn family(self) -> &'static str {
        match self {
            Source::RangeU32 => "range-u32",
            Source::RangeU64 => "range-u64",
            Source::RangeUsize => "range-usize",
            Source::SliceU64 => "slice-u64",
            Source::SliceF64 => "slice-f64",
            Source::VecU64 => "vec-u64",
            Source::Chunks(_) => "chunks",
            Source::ZipU64 => "zip-u64",
            Source::IterMut => "iter-mut",
        }
    }
}

/// The accumulator sizes of `fold`/`fold_with`, in bytes.
pub(crate) const ACC_BYTES: [usize; 4] = [8, 48, 256, 1024];

/// The `with_min_len` bounds.
pub(crate) const MIN_LENS: [usize; 2] = [64, 1024];

/// One adaptor of a chain.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Adaptor {
    Map(Kind),
    /// `map_init` with a scratch `Vec` as its state (its kind is always `scratch`).
    MapInit,
    Filter(Kind),
    Enumerate,
    /// `flat_map_iter` over a range of 1 to 4 items, each mapped by the kind.
    FlatMapIter(Kind),
    Copied,
    Cloned,
    WithMinLen(usize),
    /// `fold(identity, op)` into an accumulator of the given bytes; the chain's last
    /// adaptor, followed by `reduce` or `sum`.
    Fold(Kind, usize),
    /// `fold_with(init, op)`, as `Fold`.
    FoldWith(Kind, usize),
}

impl Adaptor {
    /// The adaptor's name without its parameters (the grammar's element).
    pub(crate) fn family(self) -> &'static str {
        match self {
            Adaptor::Map(_) => "map",
            Adaptor::MapInit => "map_init",
            Adaptor::Filter(_) => "filter",
            Adaptor::Enumerate => "enumerate",
            Adaptor::FlatMapIter(_) => "flat_map_iter",
            Adaptor::Copied => "copied",
            Adaptor::Cloned => "cloned",
            Adaptor::WithMinLen(_) => "with_min_len",
            Adaptor::Fold(..) => "fold",
            Adaptor::FoldWith(..) => "fold_with",
        }
    }

    /// The kind of the adaptor's closure, if it has one.
    pub(crate) fn kind(self) -> Option<Kind> {
        match self {
            Adaptor::Map(k)
            | Adaptor::Filter(k)
            | Adaptor::FlatMapIter(k)
            | Adaptor::Fold(k, _)
            | Adaptor::FoldWith(k, _) => Some(k),
            Adaptor::MapInit => Some(Kind::Scratch),
            _ => None,
        }
    }
}

/// Every adaptor family.
pub(crate) const ADAPTOR_FAMILIES: [&str; 10] = [
    "map",
    "map_init",
    "filter",
    "enumerate",
    "flat_map_iter",
    "copied",
    "cloned",
    "with_min_len",
    "fold",
    "fold_with",
];

/// What a search consumer looks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Target {
    /// A value no item has: the whole loop runs.
    None,
    /// A hash of the item's value hitting one value in 2^20: found partway, or not at all.
    Rare,
}

/// How `min_by`/`max_by` compare their `f64` keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Cmp {
    Partial,
    Total,
}

/// The consumer ending a chain.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Consumer {
    Sum,
    Reduce,
    Min,
    Max,
    MinBy(Cmp),
    MaxBy(Cmp),
    Count,
    Collect,
    /// Writes each `&mut u64` item's high half (chains from `iter-mut`).
    ForEach(Kind),
    /// Each item's value, mapped by the kind, pushed into a per-thread scratch that is
    /// flushed into a shared sum (and on `iter-mut` chains the item written as well).
    ForEachInit(Kind),
    Any(Target),
    FindFirst(Target),
    PositionFirst(Target),
}

impl Consumer {
    /// The consumer's name without its parameters.
    pub(crate) fn family(self) -> &'static str {
        match self {
            Consumer::Sum => "sum",
            Consumer::Reduce => "reduce",
            Consumer::Min => "min",
            Consumer::Max => "max",
            Consumer::MinBy(_) => "min_by",
            Consumer::MaxBy(_) => "max_by",
            Consumer::Count => "count",
            Consumer::Collect => "collect",
            Consumer::ForEach(_) => "for_each",
            Consumer::ForEachInit(_) => "for_each_init",
            Consumer::Any(_) => "any",
            Consumer::FindFirst(_) => "find_first",
            Consumer::PositionFirst(_) => "position_first",
        }
    }

    /// The kind of the consumer's closure, if it has one.
    #[cfg(test)]
    pub(crate) fn kind(self) -> Option<Kind> {
        match self {
            Consumer::ForEach(k) | Consumer::ForEachInit(k) => Some(k),
            _ => None,
        }
    }
}

/// Every consumer family.
pub(crate) const CONSUMER_FAMILIES: [&str; 13] = [
    "sum",
    "reduce",
    "min",
    "max",
    "min_by",
    "max_by",
    "count",
    "collect",
    "for_each",
    "for_each_init",
    "any",
    "find_first",
    "position_first",
];

/// Where the loop runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Nesting {
    /// The loop alone, over all `n` items.
    Flat,
    /// `outer-M`: an outer `(0..M).into_par_iter().map(..).sum()` whose items each run the
    /// loop over a `1/M` share of the items (M from 16 to 64).
    Outer(usize),
    /// `join-L`: a `join` recursion halving the items down to about `L` leaves, each leaf
    /// the loop over its share.
    Join(usize),
}

/// The outer loop's item counts.
pub(crate) const OUTER_MIN: usize = 16;
pub(crate) const OUTER_MAX: usize = 64;
/// The join recursion's leaf counts.
pub(crate) const JOIN_LEAVES: [usize; 4] = [4, 8, 16, 64];

impl Nesting {
    #[cfg(test)]
    pub(crate) fn family(self) -> &'static str {
        match self {
            Nesting::Flat => "flat",
            Nesting::Outer(_) => "outer",
            Nesting::Join(_) => "join",
        }
    }
}

/// The fewest and most items a program may have.
pub(crate) const MIN_ITEMS: usize = 1_000;
pub(crate) const MAX_ITEMS: usize = 4_000_000;

/// One loop program.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Program {
    pub source: Source,
    /// At most [`MAX_ADAPTORS`].
    pub adaptors: Vec<Adaptor>,
    pub consumer: Consumer,
    pub nesting: Nesting,
    /// The items of the source over the whole program (shared out among the inner loops
    /// when nested).
    pub n: usize,
}

/// The most adaptors of a chain.
pub(crate) const MAX_ADAPTORS: usize = 3;

/// The type of a chain's items at some point, as far as emission needs it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Ty {
    U32,
    U64,
    Usize,
    /// Integer-valued, non-negative, below 2^32.
    F64,
    /// `&T` (T: `U64` or `F64`).
    Ref(Box<Ty>),
    /// `(A, B)`: from `enumerate` (`(usize, T)`) or a zip.
    Pair(Box<Ty>, Box<Ty>),
    /// `&[u64]` (`par_chunks`).
    Chunk,
    /// `&mut u64` (`par_iter_mut`).
    Mut,
    /// The accumulator of a fold: its size in bytes and whether it carries a scratch `Vec`.
    Acc(usize, bool),
}

impl Ty {
    /// Whether the type is `Ord` (`min`/`max` need it).
    pub(crate) fn is_ord(&self) -> bool {
        match self {
            Ty::U32 | Ty::U64 | Ty::Usize | Ty::Chunk => true,
            Ty::Ref(t) => t.is_ord(),
            Ty::Pair(a, b) => a.is_ord() && b.is_ord(),
            Ty::F64 | Ty::Mut | Ty::Acc(..) => false,
        }
    }

    /// Whether a `&mut` is in it (such items are only written, counted or filtered).
    pub(crate) fn has_mut(&self) -> bool {
        match self {
            Ty::Mut => true,
            Ty::Pair(a, b) => a.has_mut() || b.has_mut(),
            _ => false,
        }
    }

    /// Whether it is `enumerate`'s `(usize, T)`, whose minimum and maximum are decided by
    /// the index: the first and the last item.
    pub(crate) fn is_enumerated(&self) -> bool {
        matches!(self, Ty::Pair(a, _) if **a == Ty::Usize)
    }

    /// Whether it is a fold's accumulator.
    pub(crate) fn is_acc(&self) -> bool {
        matches!(self, Ty::Acc(..))
    }
}

/// A chain's state while it is built or checked: the items' type, whether the chain is
/// still indexed, and the nominal cost so far per source item (and the items flowing per
/// source item).
#[derive(Clone, Debug)]
pub(crate) struct Chain {
    pub ty: Ty,
    pub indexed: bool,
    /// Items flowing per source item (filters thin them, `flat_map_iter` multiplies).
    flow: f64,
    /// Nominal ns per source item so far.
    ns: f64,
    /// Adaptors with a closure so far.
    closures: usize,
    /// Whether the items come from memory (a slice, a `Vec`), not a range.
    from_slice: bool,
    /// Whether a `filter` is in the chain.
    filtered: bool,
}

impl Chain {
    /// The chain of `source` alone.
    pub(crate) fn new(source: Source) -> Chain {
        Chain {
            ty: source.ty(),
            // rayon's `u64` ranges are not indexed (their length may not fit a `usize`).
            indexed: source != Source::RangeU64,
            // `n` counts the slice's elements; a chunk is one item of `k` of them.
            flow: match source {
                Source::Chunks(k) => 1.0 / k as f64,
                _ => 1.0,
            },
            ns: source.ns(),
            closures: 0,
            filtered: false,
            from_slice: !matches!(
                source,
                Source::RangeU32 | Source::RangeU64 | Source::RangeUsize
            ),
        }
    }

    /// The extra ns an item's value costs to read (a chunk's sum: its elements).
    fn read_ns(&self) -> f64 {
        match &self.ty {
            Ty::Chunk => 0.3 / self.flow,
            _ => 0.05,
        }
    }

    /// Whether `a` may follow; if so the chain after it.
    pub(crate) fn then(&self, a: Adaptor) -> Option<Chain> {
        let ty = &self.ty;
        if ty.is_acc() {
            return None; // a fold is the last adaptor
        }
        let mut next = self.clone();
        next.closures += usize::from(a.kind().is_some());
        let cost = |k: Kind| self.flow * (k.ns() + self.read_ns());
        match a {
            Adaptor::Map(k) => {
                if ty.has_mut() || k == Kind::Scratch {
                    return None;
                }
                next.ty = if k == Kind::Float { Ty::F64 } else { Ty::U64 };
                next.ns += cost(k);
            }
            Adaptor::MapInit => {
                if ty.has_mut() {
                    return None;
                }
                next.ty = Ty::U64;
                next.ns += cost(Kind::Scratch);
            }
            Adaptor::Filter(k) => {
                if k == Kind::Scratch {
                    return None;
                }
                next.indexed = false;
                next.filtered = true;
                next.ns += cost(k);
                next.flow *= 0.75;
            }
            Adaptor::Enumerate => {
                if !self.indexed {
                    return None;
                }
                next.ty = Ty::Pair(Box::new(Ty::Usize), Box::new(ty.clone()));
                next.ns += self.flow * 0.2;
            }
            Adaptor::FlatMapIter(k) => {
                if ty.has_mut() || k == Kind::Scratch {
                    return None;
                }
                next.indexed = false;
                next.ty = if k == Kind::Float { Ty::F64 } else { Ty::U64 };
                // 1 to 4 items an item, 2.5 on average.
                next.ns += self.flow * (1.0 + 2.5 * (k.ns() + 1.5));
                next.flow *= 2.5;
            }
            Adaptor::Copied | Adaptor::Cloned => match ty {
                Ty::Ref(t) => next.ty = (**t).clone(),
                _ => return None,
            },
            Adaptor::WithMinLen(_) => {
                if !self.indexed {
                    return None;
                }
            }
            Adaptor::Fold(k, bytes) | Adaptor::FoldWith(k, bytes) => {
                if ty.has_mut() || !ACC_BYTES.contains(&bytes) {
                    return None;
                }
                next.ty = Ty::Acc(bytes, k == Kind::Scratch);
                next.indexed = false;
                // An accumulator with a `Vec` inside is moved, not updated in place: its
                // bytes are copied per item.
                let moved = bytes as f64 / if k == Kind::Scratch { 16.0 } else { 32.0 };
                next.ns += cost(k) + self.flow * moved;
            }
        }
        Some(next)
    }

    /// Whether `c` may end the chain. Besides types: `count` only after a `filter` (an
    /// indexed chain's count is its length, and without a filter the compiler counts
    /// `flat_map_iter`'s items without calling its closures); no `sum`, `reduce`, `min` or
    /// `max` of a range without a closure (closed forms); no `min`/`max`/`collect` of bare
    /// chunks (a comparison of first elements, a `Vec` of slice references: nobody's loop);
    /// no `min`/`max` of `enumerate`'s pairs (the first or last item: the compiler skips
    /// the loop).
    pub(crate) fn accepts(&self, c: Consumer) -> bool {
        let ty = &self.ty;
        let bare_range = self.closures == 0 && !self.from_slice;
        match c {
            Consumer::Sum => {
                !bare_range
                    && (matches!(ty, Ty::U64 | Ty::Usize | Ty::F64 | Ty::Acc(..))
                        || matches!(ty, Ty::Ref(t) if matches!(**t, Ty::U64 | Ty::F64)))
            }
            Consumer::Reduce => {
                !bare_range && matches!(ty, Ty::U32 | Ty::U64 | Ty::Usize | Ty::F64 | Ty::Acc(..))
            }
            Consumer::Min | Consumer::Max => {
                !bare_range && ty.is_ord() && *ty != Ty::Chunk && !ty.is_enumerated()
            }
            Consumer::MinBy(_) | Consumer::MaxBy(_) => !ty.has_mut() && !ty.is_acc(),
            Consumer::Count => self.filtered && !ty.is_acc(),
            Consumer::Collect => !ty.has_mut() && !ty.is_acc() && *ty != Ty::Chunk,
            Consumer::ForEach(k) => ty.has_mut() && k != Kind::Scratch,
            Consumer::ForEachInit(_) => !ty.is_acc(),
            Consumer::Any(_) | Consumer::FindFirst(_) => !ty.has_mut() && !ty.is_acc(),
            Consumer::PositionFirst(_) => self.indexed && !ty.has_mut() && !ty.is_acc(),
        }
    }

    /// The nominal ns per source item of the chain ended by `c`.
    fn ns_with(&self, c: Consumer) -> f64 {
        let per_item = match c {
            Consumer::Count | Consumer::Sum | Consumer::Reduce => 0.2,
            Consumer::Min | Consumer::Max => 0.3,
            Consumer::MinBy(_) | Consumer::MaxBy(_) => 1.5,
            Consumer::Collect => 0.5,
            Consumer::ForEach(k) => k.ns() + 0.2,
            Consumer::ForEachInit(k) => k.ns() + 1.0,
            Consumer::Any(Target::None)
            | Consumer::FindFirst(Target::None)
            | Consumer::PositionFirst(Target::None) => 0.3,
            Consumer::Any(Target::Rare)
            | Consumer::FindFirst(Target::Rare)
            | Consumer::PositionFirst(Target::Rare) => Kind::Hash.ns(),
        };
        self.ns + self.flow * per_item
    }
}

impl Program {
    /// The chain after each adaptor, or what is wrong with the program.
    pub(crate) fn check(&self) -> Result<Chain, String> {
        if self.adaptors.len() > MAX_ADAPTORS {
            return Err(format!(
                "{} adaptors: at most {MAX_ADAPTORS}",
                self.adaptors.len()
            ));
        }
        let mut chain = Chain::new(self.source);
        for &a in &self.adaptors {
            chain = chain.then(a).ok_or_else(|| {
                format!(
                    "adaptor '{}' cannot follow items of type {} ({}){}",
                    AdaptorText(a),
                    ty_name(&chain.ty),
                    if chain.indexed {
                        "indexed"
                    } else {
                        "not indexed"
                    },
                    if chain.ty.is_acc() {
                        "; a fold is the last adaptor"
                    } else {
                        ""
                    }
                )
            })?;
        }
        if !chain.accepts(self.consumer) {
            let why = match self.consumer {
                Consumer::Count if !chain.filtered => {
                    "; count needs a filter (else the compiler counts without running the loop)"
                }
                Consumer::Sum | Consumer::Reduce | Consumer::Min | Consumer::Max
                    if chain.closures == 0 && !chain.from_slice =>
                {
                    "; a range without a closure has a closed form"
                }
                Consumer::Min | Consumer::Max | Consumer::Collect if chain.ty == Ty::Chunk => {
                    "; not of bare chunks"
                }
                Consumer::Min | Consumer::Max if chain.ty.is_enumerated() => {
                    "; the index decides: the first or the last item"
                }
                _ => "",
            };
            return Err(format!(
                "consumer '{}' cannot end a chain of {} ({}){why}",
                ConsumerText(self.consumer),
                ty_name(&chain.ty),
                if chain.indexed {
                    "indexed"
                } else {
                    "not indexed"
                }
            ));
        }
        if !(MIN_ITEMS..=MAX_ITEMS).contains(&self.n) {
            return Err(format!(
                "n={}: expected {MIN_ITEMS} to {MAX_ITEMS} items",
                self.n
            ));
        }
        match self.nesting {
            Nesting::Outer(m) if !(OUTER_MIN..=OUTER_MAX).contains(&m) => {
                return Err(format!(
                    "outer-{m}: the outer loop has {OUTER_MIN} to {OUTER_MAX} items"
                ))
            }
            Nesting::Join(l) if !JOIN_LEAVES.contains(&l) => {
                return Err(format!(
                    "join-{l}: leaves are one of {}",
                    list(&JOIN_LEAVES)
                ))
            }
            _ => {}
        }
        Ok(chain)
    }

    /// The nominal nanoseconds of one source item through the whole chain.
    pub(crate) fn ns_per_item(&self) -> f64 {
        let mut chain = Chain::new(self.source);
        for &a in &self.adaptors {
            if let Some(c) = chain.then(a) {
                chain = c;
            }
        }
        chain.ns_with(self.consumer)
    }

    /// Every closure kind the program uses.
    #[cfg(test)]
    pub(crate) fn kinds(&self) -> Vec<Kind> {
        self.adaptors
            .iter()
            .filter_map(|a| a.kind())
            .chain(self.consumer.kind())
            .collect()
    }
}

/// A type's name in messages.
pub(crate) fn ty_name(ty: &Ty) -> String {
    match ty {
        Ty::U32 => "u32".into(),
        Ty::U64 => "u64".into(),
        Ty::Usize => "usize".into(),
        Ty::F64 => "f64".into(),
        Ty::Ref(t) => format!("&{}", ty_name(t)),
        Ty::Pair(a, b) => format!("({}, {})", ty_name(a), ty_name(b)),
        Ty::Chunk => "&[u64]".into(),
        Ty::Mut => "&mut u64".into(),
        Ty::Acc(b, false) => format!("an accumulator of {b} bytes"),
        Ty::Acc(b, true) => format!("an accumulator of {b} bytes and a scratch Vec"),
    }
}

fn list(xs: &[usize]) -> String {
    xs.iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

// ---------------------------------------------------------------------------------------
// Generation.

/// splitmix64: the generator's only source of randomness, so that a seed always gives the
/// same programs.
#[derive(Clone, Debug)]
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0; the bias of a modulus is irrelevant here).
    pub(crate) fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    pub(crate) fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len())]
    }
}

/// Every adaptor that can be drawn (each kind and parameter once).
fn adaptor_choices() -> Vec<Adaptor> {
    let mut v = Vec::new();
    // Every kind but `scratch`, which needs a state (`map_init`, `fold`).
    for k in KINDS.into_iter().filter(|&k| k != Kind::Scratch) {
        v.push(Adaptor::Map(k));
        v.push(Adaptor::Filter(k));
        v.push(Adaptor::FlatMapIter(k));
    }
    v.push(Adaptor::MapInit);
    v.push(Adaptor::Enumerate);
    v.push(Adaptor::Copied);
    v.push(Adaptor::Cloned);
    v.extend(MIN_LENS.iter().map(|&m| Adaptor::WithMinLen(m)));
    for k in KINDS {
        for b in ACC_BYTES {
            v.push(Adaptor::Fold(k, b));
            v.push(Adaptor::FoldWith(k, b));
        }
    }
    v
}

/// Every consumer that can be drawn.
fn consumer_choices() -> Vec<Consumer> {
    let mut v = vec![
        Consumer::Sum,
        Consumer::Reduce,
        Consumer::Min,
        Consumer::Max,
        Consumer::Count,
        Consumer::Collect,
    ];
    for c in [Cmp::Partial, Cmp::Total] {
        v.push(Consumer::MinBy(c));
        v.push(Consumer::MaxBy(c));
    }
    for k in KINDS {
        v.push(Consumer::ForEach(k));
        v.push(Consumer::ForEachInit(k));
    }
    for t in [Target::None, Target::Rare] {
        v.push(Consumer::Any(t));
        v.push(Consumer::FindFirst(t));
        v.push(Consumer::PositionFirst(t));
    }
    v
}

/// How often a family is drawn, relative to the others that fit: the adaptors and
/// consumers people write most (`map`, `filter`, `sum`, `collect`, `for_each`) more often
/// than the rest; a fold ends the chain and leaves only `reduce` and `sum`, so less often.
fn weight(family: &str) -> usize {
    match family {
        "map" | "filter" => 4,
        "sum" | "collect" => 3,
        "map_init" | "flat_map_iter" | "enumerate" | "copied" | "reduce" | "for_each"
        | "for_each_init" => 2,
        _ => 1,
    }
}

/// Draws a family first (by [`weight`]), then one of its members that fits, so that a
/// family with many members (a fold has 64) is not drawn more often than one with a
/// single member.
fn pick_by_family<T: Copy>(rng: &mut Rng, fits: &[T], family: impl Fn(T) -> &'static str) -> T {
    let mut families: Vec<&str> = fits.iter().map(|&x| family(x)).collect();
    families.sort_unstable();
    families.dedup();
    let total: usize = families.iter().map(|f| weight(f)).sum();
    let mut at = rng.below(total);
    let mut chosen = families[0];
    for f in families {
        if at < weight(f) {
            chosen = f;
            break;
        }
        at -= weight(f);
    }
    let members: Vec<T> = fits
        .iter()
        .copied()
        .filter(|&x| family(x) == chosen)
        .collect();
    rng.pick(&members)
}

/// The sequential time a program is sized for (nanoseconds): 0.8 ms, in the middle (on a
/// log scale) of the 0.3 to 2 ms the nominal costs miss it by.
const TARGET_NS: f64 = 0.8e6;

/// `n` for a program of `ns` nanoseconds per item: about [`TARGET_NS`] in all, rounded to
/// two significant digits, within [`MIN_ITEMS`]..=[`MAX_ITEMS`].
pub(crate) fn items_for(ns: f64) -> usize {
    let raw = (TARGET_NS / ns.max(0.1)).clamp(MIN_ITEMS as f64, MAX_ITEMS as f64);
    let digits = 10f64.powi(raw.log10().floor() as i32 - 1);
    ((raw / digits).round() * digits) as usize
}

/// One program drawn from `rng`.
pub(crate) fn generate_one(rng: &mut Rng) -> Program {
    let adaptors_all = adaptor_choices();
    let consumers_all = consumer_choices();
    let sources = all_sources();
    loop {
        let source = rng.pick(&sources);
        let nesting = match rng.below(4) {
            0 | 1 => Nesting::Flat,
            2 => Nesting::Outer(OUTER_MIN + rng.below(OUTER_MAX - OUTER_MIN + 1)),
            _ => Nesting::Join(rng.pick(&JOIN_LEAVES)),
        };
        let count = [0, 1, 1, 2, 2, 2, 3, 3][rng.below(8)];
        let mut chain = Chain::new(source);
        let mut adaptors = Vec::new();
        for _ in 0..count {
            // The same family twice in a row adds nothing for these (a second `enumerate`,
            // `copied` or bound); `map` and `filter` twice are ordinary code.
            let last = adaptors.last().map(|a: &Adaptor| a.family());
            let fits: Vec<(Adaptor, Chain)> = adaptors_all
                .iter()
                .filter(|a| {
                    !(last == Some(a.family())
                        && matches!(
                            a.family(),
                            "enumerate" | "with_min_len" | "copied" | "cloned"
                        ))
                })
                .filter_map(|&a| chain.then(a).map(|c| (a, c)))
                .collect();
            if fits.is_empty() {
                break;
            }
            let only: Vec<Adaptor> = fits.iter().map(|(a, _)| *a).collect();
            let a = pick_by_family(rng, &only, Adaptor::family);
            chain = fits
                .into_iter()
                .find(|(x, _)| *x == a)
                .map(|(_, c)| c)
                .unwrap_or(chain);
            adaptors.push(a);
        }
        let fits: Vec<Consumer> = consumers_all
            .iter()
            .copied()
            .filter(|&c| chain.accepts(c))
            .collect();
        if fits.is_empty() {
            continue; // cannot happen (count fits every chain), but never loop on it
        }
        let consumer = pick_by_family(rng, &fits, Consumer::family);
        let mut p = Program {
            source,
            adaptors,
            consumer,
            nesting,
            n: 0,
        };
        p.n = items_for(p.ns_per_item());
        debug_assert!(p.check().is_ok(), "{p}: {:?}", p.check());
        return p;
    }
}

/// The `count` programs of `seed`, in order (the same for the same seed).
pub(crate) fn generate(seed: u64, count: usize) -> Vec<Program> {
    let mut rng = Rng::new(seed);
    (0..count).map(|_| generate_one(&mut rng)).collect()
}

// ---------------------------------------------------------------------------------------
// Text.

struct AdaptorText(Adaptor);
struct ConsumerText(Consumer);

impl fmt::Display for AdaptorText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let a = self.0;
        match a {
            Adaptor::Map(k) | Adaptor::Filter(k) | Adaptor::FlatMapIter(k) => {
                write!(f, "{}:{}", a.family(), k.name())
            }
            Adaptor::MapInit => write!(f, "map_init:scratch"),
            Adaptor::WithMinLen(m) => write!(f, "with_min_len:{m}"),
            Adaptor::Fold(k, b) | Adaptor::FoldWith(k, b) => {
                write!(f, "{}:{}@{b}", a.family(), k.name())
            }
            _ => write!(f, "{}", a.family()),
        }
    }
}

impl fmt::Display for ConsumerText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let c = self.0;
        let cmp = |c: Cmp| match c {
            Cmp::Partial => "partial",
            Cmp::Total => "total",
        };
        let target = |t: Target| match t {
            Target::None => "none",
            Target::Rare => "rare",
        };
        match c {
            Consumer::MinBy(x) | Consumer::MaxBy(x) => write!(f, "{}:{}", c.family(), cmp(x)),
            Consumer::ForEach(k) | Consumer::ForEachInit(k) => {
                write!(f, "{}:{}", c.family(), k.name())
            }
            Consumer::Any(t) | Consumer::FindFirst(t) | Consumer::PositionFirst(t) => {
                write!(f, "{}:{}", c.family(), target(t))
            }
            _ => write!(f, "{}", c.family()),
        }
    }
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Chunks(k) => write!(f, "chunks-{k}"),
            s => write!(f, "{}", s.family()),
        }
    }
}

impl fmt::Display for Nesting {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Nesting::Flat => write!(f, "flat"),
            Nesting::Outer(m) => write!(f, "outer-{m}"),
            Nesting::Join(l) => write!(f, "join-{l}"),
        }
    }
}

impl fmt::Display for Program {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} | ", self.source)?;
        if self.adaptors.is_empty() {
            write!(f, "-")?;
        }
        for (i, a) in self.adaptors.iter().enumerate() {
            if i > 0 {
                write!(f, " ")?;
            }
            write!(f, "{}", AdaptorText(*a))?;
        }
        write!(
            f,
            " | {} | {} | n={}",
            ConsumerText(self.consumer),
            self.nesting,
            self.n
        )
    }
}

fn parse_kind(s: &str, what: &str) -> Result<Kind, String> {
    KINDS
        .iter()
        .copied()
        .find(|k| k.name() == s)
        .ok_or_else(|| {
            format!(
                "{what}: unknown closure kind '{s}' (kinds: {})",
                KINDS.map(Kind::name).join(", ")
            )
        })
}

fn parse_number(s: &str, what: &str) -> Result<usize, String> {
    s.parse()
        .map_err(|_| format!("{what}: '{s}' is not a number"))
}

fn parse_source(s: &str) -> Result<Source, String> {
    if let Some(k) = s.strip_prefix("chunks-") {
        let k = parse_number(k, "source")?;
        if !CHUNK_LENS.contains(&k) {
            return Err(format!(
                "source chunks-{k}: chunk lengths are {}",
                list(&CHUNK_LENS)
            ));
        }
        return Ok(Source::Chunks(k));
    }
    all_sources()
        .into_iter()
        .find(|src| !matches!(src, Source::Chunks(_)) && src.family() == s)
        .ok_or_else(|| {
            format!(
                "unknown source '{s}' (sources: range-u32, range-u64, range-usize, slice-u64, \
                 slice-f64, vec-u64, chunks-{{{}}}, zip-u64, iter-mut)",
                list(&CHUNK_LENS)
            )
        })
}

fn parse_adaptor<'a>(s: &'a str) -> Result<Adaptor, String> {
    let (name, param) = match s.split_once(':') {
        Some((n, p)) => (n, Some(p)),
        None => (s, None),
    };
    let what = format!("adaptor '{s}'");
    let need = |p: Option<&'a str>| -> Result<&'a str, String> {
        p.ok_or_else(|| format!("{what}: missing ':' and its parameter"))
    };
    let none = |p: Option<&str>, a: Adaptor| match p {
        None => Ok(a),
        Some(_) => Err(format!("{what}: '{name}' takes no parameter")),
    };
    let stateless = |k: Kind| {
        if k == Kind::Scratch {
            Err(format!(
                "{what}: the scratch kind needs a state (map_init, fold, fold_with, for_each_init)"
            ))
        } else {
            Ok(k)
        }
    };
    match name {
        "map" => Ok(Adaptor::Map(stateless(parse_kind(need(param)?, &what)?)?)),
        "filter" => Ok(Adaptor::Filter(stateless(parse_kind(
            need(param)?,
            &what,
        )?)?)),
        "flat_map_iter" => Ok(Adaptor::FlatMapIter(stateless(parse_kind(
            need(param)?,
            &what,
        )?)?)),
        "map_init" => match param {
            Some("scratch") => Ok(Adaptor::MapInit),
            _ => Err(format!(
                "{what}: map_init's kind is always scratch (map_init:scratch)"
            )),
        },
        "enumerate" => none(param, Adaptor::Enumerate),
        "copied" => none(param, Adaptor::Copied),
        "cloned" => none(param, Adaptor::Cloned),
        "with_min_len" => {
            let m = parse_number(need(param)?, &what)?;
            if !MIN_LENS.contains(&m) {
                return Err(format!("{what}: bounds are {}", list(&MIN_LENS)));
            }
            Ok(Adaptor::WithMinLen(m))
        }
        "fold" | "fold_with" => {
            let p = need(param)?;
            let (k, b) = p.split_once('@').ok_or_else(|| {
                format!("{what}: expected {name}:KIND@BYTES, e.g. {name}:arith@48")
            })?;
            let k = parse_kind(k, &what)?;
            let b = parse_number(b, &what)?;
            if !ACC_BYTES.contains(&b) {
                return Err(format!(
                    "{what}: accumulators are {} bytes",
                    list(&ACC_BYTES)
                ));
            }
            Ok(if name == "fold" {
                Adaptor::Fold(k, b)
            } else {
                Adaptor::FoldWith(k, b)
            })
        }
        _ => Err(format!(
            "unknown adaptor '{name}' (adaptors: {})",
            ADAPTOR_FAMILIES.join(", ")
        )),
    }
}

fn parse_consumer(s: &str) -> Result<Consumer, String> {
    let (name, param) = match s.split_once(':') {
        Some((n, p)) => (n, Some(p)),
        None => (s, None),
    };
    let what = format!("consumer '{s}'");
    let plain = |c: Consumer| match param {
        None => Ok(c),
        Some(_) => Err(format!("{what}: '{name}' takes no parameter")),
    };
    let cmp = || match param {
        Some("partial") => Ok(Cmp::Partial),
        Some("total") => Ok(Cmp::Total),
        _ => Err(format!("{what}: expected {name}:partial or {name}:total")),
    };
    let target = || match param {
        Some("none") => Ok(Target::None),
        Some("rare") => Ok(Target::Rare),
        _ => Err(format!("{what}: expected {name}:none or {name}:rare")),
    };
    let kind = || match param {
        Some(p) => parse_kind(p, &what),
        None => Err(format!("{what}: missing ':' and its closure kind")),
    };
    match name {
        "sum" => plain(Consumer::Sum),
        "reduce" => plain(Consumer::Reduce),
        "min" => plain(Consumer::Min),
        "max" => plain(Consumer::Max),
        "count" => plain(Consumer::Count),
        "collect" => plain(Consumer::Collect),
        "min_by" => Ok(Consumer::MinBy(cmp()?)),
        "max_by" => Ok(Consumer::MaxBy(cmp()?)),
        "for_each" => Ok(Consumer::ForEach(kind()?)),
        "for_each_init" => Ok(Consumer::ForEachInit(kind()?)),
        "any" => Ok(Consumer::Any(target()?)),
        "find_first" => Ok(Consumer::FindFirst(target()?)),
        "position_first" => Ok(Consumer::PositionFirst(target()?)),
        _ => Err(format!(
            "unknown consumer '{name}' (consumers: {})",
            CONSUMER_FAMILIES.join(", ")
        )),
    }
}

fn parse_nesting(s: &str) -> Result<Nesting, String> {
    if s == "flat" {
        return Ok(Nesting::Flat);
    }
    if let Some(m) = s.strip_prefix("outer-") {
        return Ok(Nesting::Outer(parse_number(m, "nesting")?));
    }
    if let Some(l) = s.strip_prefix("join-") {
        return Ok(Nesting::Join(parse_number(l, "nesting")?));
    }
    Err(format!(
        "unknown nesting '{s}' (flat, outer-M with M from {OUTER_MIN} to {OUTER_MAX}, join-L with L one of {})",
        list(&JOIN_LEAVES)
    ))
}

impl FromStr for Program {
    type Err = String;

    /// Parses the line `Display` prints, and checks that the program is type-correct.
    fn from_str(line: &str) -> Result<Program, String> {
        let fields: Vec<&str> = line.split('|').map(str::trim).collect();
        if fields.len() != 5 {
            return Err(format!(
                "expected 5 fields separated by '|' (source | adaptors | consumer | nesting | n=N), found {}",
                fields.len()
            ));
        }
        let source = parse_source(fields[0])?;
        let adaptors = if fields[1] == "-" {
            Vec::new()
        } else {
            fields[1]
                .split_whitespace()
                .map(parse_adaptor)
                .collect::<Result<Vec<_>, _>>()?
        };
        if fields[1].is_empty() {
            return Err("empty adaptors field: write '-' for none".to_string());
        }
        let consumer = parse_consumer(fields[2])?;
        let nesting = parse_nesting(fields[3])?;
        let n = fields[4]
            .strip_prefix("n=")
            .ok_or_else(|| format!("item count '{}': expected n=N", fields[4]))?;
        let n = parse_number(n, "item count")?;
        let p = Program {
            source,
            adaptors,
            consumer,
            nesting,
            n,
        };
        p.check()?;
        Ok(p)
    }
}
