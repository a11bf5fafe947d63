//! Micro: the best move of a board game, searched a fixed number of plies ahead (Lea's
//! "Micro" benchmark, after the game Microscope, also known as Infection or Ataxx).
//!
//! The game: a 7×7 board, two players. A move takes one of the mover's pieces either to an
//! empty square at Chebyshev distance 1, where it *clones* (the source stays), or to an
//! empty square at distance 2, where it *jumps* (the source is vacated). Every opponent
//! piece adjacent to the destination then changes sides. A player without a move passes;
//! when neither can move the game is over. A position scores own pieces minus opponent
//! pieces for the player to move.
//!
//! The search: plain negamax without alpha-beta pruning, so the tree searched and the answer
//! are the same for every schedule; ties go to the lowest move index (clones in destination
//! order, then jumps by source and destination). At every node with two or more plies to
//! go, the moves are forked by binary splitting of the move list with `join`; a node one ply
//! from the horizon scores its moves in a plain loop, because a task per leaf would carry a
//! few nanoseconds of work. A pass counts as a ply.
//!
//! The position ([`POSITION`]): a mid-game reached by 40 pseudo-random plies from the
//! standard start (each side in two opposite corners), chosen among such playouts for its
//! many moves (85 for the side to move, 88 for the other), so that 4 plies make a tree of
//! some 50 million leaves; greedy openings give crowded positions with 60-70 moves and a
//! search 2-4 times shorter. Sizes: `Default` and `Paper` search 4 plies (as in the paper;
//! about 0.24 s sequentially on the development machine, forking about 528,000 tasks),
//! `Test` 3 plies. Every answer is checked against the sequential search's best move and
//! score, computed once.

use std::fmt;
use std::sync::OnceLock;

use super::{Ctx, Program, Runtime, Size, Workload};
use crate::join::{Chili, CountJoins, Fj, Join, Rayon, Seq};

const SIDE: usize = 7;
const SQUARES: usize = SIDE * SIDE;
const BOARD: u64 = (1 << SQUARES) - 1;

/// The searched position, row 1 first, `x` to move.
const POSITION: [&str; SIDE] = [
    ". x x . . . o",
    ". . x x x . .",
    "o . o . o x .",
    "o x . o . x o",
    ". o . . . . .",
    "o . . . . . x",
    ". . . o x x x",
];

/// For each square, the squares at Chebyshev distance exactly `dist`.
const fn ring(dist: i32) -> [u64; SQUARES] {
    let mut table = [0; SQUARES];
    let mut from = 0;
    while from < SQUARES {
        let mut to = 0;
        while to < SQUARES {
            let dr = (from / SIDE) as i32 - (to / SIDE) as i32;
            let dc = (from % SIDE) as i32 - (to % SIDE) as i32;
            let d = if dr.abs() > dc.abs() {
                dr.abs()
            } else {
                dc.abs()
            };
            if d == dist {
                table[from] |= 1 << to;
            }
            to += 1;
        }
        from += 1;
    }
    table
}

static NEAR: [u64; SQUARES] = ring(1);
static FAR: [u64; SQUARES] = ring(2);

/// A move; a clone has `from == to` (every adjacent source gives the same position, so
/// there is one clone per destination).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Move {
    from: u8,
    to: u8,
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = |sq: u8| {
            let (row, col) = (sq as usize / SIDE, sq as usize % SIDE);
            format!("{}{}", (b'a' + col as u8) as char, row + 1)
        };
        if self.from == self.to {
            write!(f, "+{}", name(self.to))
        } else {
            write!(f, "{}-{}", name(self.from), name(self.to))
        }
    }
}

/// A position, seen from the player to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Position {
    me: u64,
    opp: u64,
}

impl Position {
    /// Reads a diagram: one string per row, row 1 first, squares separated by spaces,
    /// `x` for the player to move, `o` for the other, `.` for empty.
    fn parse(rows: [&str; SIDE]) -> Position {
        let mut pos = Position { me: 0, opp: 0 };
        for (row, line) in rows.iter().enumerate() {
            let cells: Vec<&str> = line.split_whitespace().collect();
            assert_eq!(cells.len(), SIDE, "row {} of a diagram: {line:?}", row + 1);
            for (col, cell) in cells.into_iter().enumerate() {
                let bit = 1 << (row * SIDE + col);
                match cell {
                    "x" => pos.me |= bit,
                    "o" => pos.opp |= bit,
                    "." => {}
                    _ => panic!("row {} of a diagram: {line:?}", row + 1),
                }
            }
        }
        pos
    }

    fn score(self) -> i32 {
        self.me.count_ones() as i32 - self.opp.count_ones() as i32
    }

    /// The same position with the other player to move.
    fn pass(self) -> Position {
        Position {
            me: self.opp,
            opp: self.me,
        }
    }

    fn play(self, m: Move) -> Position {
        let flips = NEAR[m.to as usize] & self.opp;
        let mut me = self.me | 1 << m.to | flips;
        if m.from != m.to {
            me &= !(1 << m.from);
        }
        Position {
            me: self.opp & !flips,
            opp: me,
        }
    }

    /// Calls `f` with every legal move, in move-index order.
    fn for_each_move(self, mut f: impl FnMut(Move)) {
        let empty = !(self.me | self.opp) & BOARD;
        for to in squares(empty) {
            if NEAR[to as usize] & self.me != 0 {
                f(Move { from: to, to });
            }
        }
        for from in squares(self.me) {
            for to in squares(FAR[from as usize] & empty) {
                f(Move { from, to });
            }
        }
    }

    fn moves(self) -> Vec<Move> {
        let mut moves = Vec::new();
        self.for_each_move(|m| moves.push(m));
        moves
    }

    fn has_move(self) -> bool {
        let empty = !(self.me | self.opp) & BOARD;
        squares(self.me).any(|s| (NEAR[s as usize] | FAR[s as usize]) & empty != 0)
    }
}

/// The squares of a bitboard, lowest first.
fn squares(mut bits: u64) -> impl Iterator<Item = u8> {
    std::iter::from_fn(move || {
        (bits != 0).then(|| {
            let sq = bits.trailing_zeros() as u8;
            bits &= bits - 1;
            sq
        })
    })
}

/// The negamax value of `pos` searched `depth` plies ahead.
fn negamax<J: Join>(j: &mut J, pos: Position, depth: u32) -> i32 {
    if depth == 0 {
        return pos.score();
    }
    if depth == 1 {
        let mut best = None;
        pos.for_each_move(|m| best = best.max(Some(-pos.play(m).score())));
        return best.unwrap_or_else(|| pass(j, pos, depth));
    }
    let moves = pos.moves();
    if moves.is_empty() {
        return pass(j, pos, depth);
    }
    best_of(j, pos, &moves, 0, depth).0
}

/// The value of a position whose player to move has no move.
fn pass<J: Join>(j: &mut J, pos: Position, depth: u32) -> i32 {
    if pos.pass().has_move() {
        -negamax(j, pos.pass(), depth - 1)
    } else {
        pos.score()
    }
}

/// The best (value, index) over `moves`, whose first element has index `first`; the lower
/// index wins a tie.
fn best_of<J: Join>(
    j: &mut J,
    pos: Position,
    moves: &[Move],
    first: usize,
    depth: u32,
) -> (i32, usize) {
    if let [m] = moves {
        return (-negamax(j, pos.play(*m), depth - 1), first);
    }
    let (left, right) = moves.split_at(moves.len() / 2);
    let (a, b) = j.join(
        move |j| best_of(j, pos, left, first, depth),
        move |j| best_of(j, pos, right, first + left.len(), depth),
    );
    if b.0 > a.0 {
        b
    } else {
        a
    }
}

/// The best move of a search and its value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Best {
    index: usize,
    mv: Move,
    score: i32,
}

/// Searches the moves of `pos` `depth` (>= 1) plies ahead; `pos` must have a move.
fn search<J: Join>(j: &mut J, pos: Position, depth: u32) -> Best {
    let moves = pos.moves();
    assert!(
        !moves.is_empty() && depth >= 1,
        "search needs a move and a depth"
    );
    let (score, index) = best_of(j, pos, &moves, 0, depth);
    Best {
        index,
        mv: moves[index],
        score,
    }
}

struct Micro {
    pos: Position,
    depth: u32,
    found: Option<Best>,
    /// The sequential answer and the joins per run, computed once on demand.
    reference: OnceLock<(Best, u64)>,
}

impl Micro {
    fn new(size: Size) -> Micro {
        let depth = match size {
            Size::Test => 3,
            Size::Default | Size::Paper => 4,
        };
        Micro {
            pos: Position::parse(POSITION),
            depth,
            found: None,
            reference: OnceLock::new(),
        }
    }

    fn reference(&self) -> (Best, u64) {
        *self.reference.get_or_init(|| {
            let mut counter = CountJoins(0);
            let best = search(&mut counter, self.pos, self.depth);
            (best, counter.0)
        })
    }
}

pub(crate) fn programs() -> Vec<Program> {
    vec![Program {
        name: "micro",
        about: "best move 4 plies ahead in Microscope/Ataxx (7x7), negamax forked over the moves",
        make: |size| Box::new(Micro::new(size)),
    }]
}

impl Workload for Micro {
    fn reset(&mut self) {
        self.found = None;
    }

    fn run(&mut self, ctx: &mut Ctx<'_, '_>) {
        let (pos, depth) = (self.pos, self.depth);
        self.found = Some(match ctx {
            Ctx::Sequential => search(&mut Seq, pos, depth),
            Ctx::Forkjoin => search(&mut Fj, pos, depth),
            Ctx::Rayon => search(&mut Rayon, pos, depth),
            Ctx::Chili(s) => search(&mut Chili(s), pos, depth),
            Ctx::Split(r) => search(&mut r.join(), pos, depth),
        });
    }

    fn verify(&self) -> Result<(), String> {
        let Some(found) = self.found else {
            return Err("no run to verify".to_string());
        };
        let (expected, _) = self.reference();
        if found == expected {
            Ok(())
        } else {
            Err(format!(
                "expected move #{} {} scoring {}, found move #{} {} scoring {}",
                expected.index, expected.mv, expected.score, found.index, found.mv, found.score
            ))
        }
    }

    fn supports(&self, _rt: Runtime) -> bool {
        true
    }

    fn tasks_per_run(&self) -> Option<u64> {
        Some(self.reference().1)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testkit::check_all_runtimes;
    use super::*;

    #[test]
    fn test_size_every_runtime() {
        check_all_runtimes(&mut Micro::new(Size::Test));
    }

    #[test]
    fn wrong_answer_fails() {
        let mut w = Micro::new(Size::Test);
        assert!(w.verify().is_err(), "verify before any run");
        let (right, _) = w.reference();
        w.found = Some(Best {
            score: right.score + 1,
            ..right
        });
        let err = w.verify().unwrap_err();
        assert!(err.contains("expected move"), "{err}");
    }

    #[test]
    fn rules() {
        let start = Position::parse([
            "x . . . . . o",
            ". . . . . . .",
            ". . . . . . .",
            ". . . . . . .",
            ". . . . . . .",
            ". . . . . . .",
            "o . . . . . x",
        ]);
        // From a corner: 3 clone destinations and 5 jump destinations per piece.
        assert_eq!(start.moves().len(), 2 * 3 + 2 * 5);
        // A clone to b2 keeps a1; nothing to flip yet; then the other side is to move.
        let after = start.play(Move { from: 8, to: 8 });
        assert_eq!((after.me.count_ones(), after.opp.count_ones()), (2, 3));
        // A jump a1-c1 vacates its source and flips the adjacent d1 and d2, not d4.
        let pos = Position::parse([
            "x . . o . . .",
            ". . . o . . .",
            ". . . . . . .",
            ". . . o . . .",
            ". . . . . . .",
            ". . . . . . .",
            ". . . . . . .",
        ]);
        let after = pos.play(Move { from: 0, to: 2 });
        assert_eq!(
            after.pass(),
            Position {
                me: 1 << 2 | 1 << 3 | 1 << 10,
                opp: 1 << 24
            }
        );
        // Neither side can move on a full board: the value is the score.
        let full = Position {
            me: BOARD & !1,
            opp: 1,
        };
        assert!(!full.has_move() && !full.pass().has_move());
        assert_eq!(negamax(&mut Seq, full, 3), 47);
        // A player who cannot move passes: here the other side then fills the last square.
        let stuck = Position {
            me: 1,
            opp: BOARD & !(1 | 1 << 48),
        };
        assert!(!stuck.has_move() && stuck.pass().has_move());
        assert_eq!(negamax(&mut Seq, stuck, 1), stuck.score());
        assert_eq!(negamax(&mut Seq, stuck, 2), 1 - 48);
    }

    /// A textbook negamax over the move list, without splitting or the last-ply loop.
    fn plain_negamax(pos: Position, depth: u32) -> i32 {
        let moves = pos.moves();
        match (depth, moves.is_empty()) {
            (0, _) => pos.score(),
            (_, true) if pos.pass().has_move() => -plain_negamax(pos.pass(), depth - 1),
            (_, true) => pos.score(),
            _ => moves
                .iter()
                .map(|&m| -plain_negamax(pos.play(m), depth - 1))
                .max()
                .unwrap(),
        }
    }

    #[test]
    fn searched_position() {
        let pos = Position::parse(POSITION);
        assert_eq!((pos.moves().len(), pos.pass().moves().len()), (85, 88));
        let moves = pos.moves();
        let mut expected: Option<Best> = None;
        for (index, &mv) in moves.iter().enumerate() {
            let score = -plain_negamax(pos.play(mv), 2);
            if expected.is_none_or(|b| score > b.score) {
                expected = Some(Best { index, mv, score });
            }
        }
        assert_eq!(search(&mut Seq, pos, 3), expected.unwrap());
    }
}
