//! What `fj bench` shows of its rows: the table on stdout and in HTML (`table`), the
//! figures as SVG (`plots`, which also draws `fj profile`'s and `fj ft-predict`'s), and the
//! report directory with `index.html` and `results.json` (`html`).

pub(crate) mod html;
pub(crate) mod plots;
pub(crate) mod table;
