//! The report's figures as SVG text, after Lea's section 4: speedup against workers with
//! the ideal line (figure 4-2), forkjoin's task rate per worker (4-3) and its steal rate
//! (4-6). Only verified figures are plotted.

use std::ops::Range;

use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::suite::results::{programs_in_order, Row};

pub(crate) const RUNTIME_COLORS: [(&str, RGBColor); 4] = [
    ("forkjoin", RGBColor(31, 119, 180)),
    ("rayon", RGBColor(255, 127, 14)),
    ("chili", RGBColor(44, 160, 44)),
    ("java", RGBColor(214, 39, 40)),
];

/// Colours for the per-program lines; past the end they repeat with dashed lines.
const PALETTE: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

const IDEAL: RGBColor = RGBColor(150, 150, 150);

/// A line of a chart: a label, a colour, whether dashed, and its points.
#[derive(Clone)]
struct Series {
    label: String,
    color: RGBColor,
    dashed: bool,
    points: Vec<(f64, f64)>,
}

type Result<T> = std::result::Result<T, String>;

fn err<E: std::fmt::Debug>(e: E) -> String {
    format!("plotting failed: {e:?}")
}

/// The x axis: worker counts, ticked at the measured ones only. (plotters'
/// `with_key_points` would do, but its labels cannot be formatted for an f64 axis.)
struct WorkersAxis {
    range: Range<f64>,
    ticks: Vec<f64>,
}

impl WorkersAxis {
    fn new(threads: &[usize]) -> WorkersAxis {
        let max = threads.iter().copied().max().unwrap_or(1) as f64;
        WorkersAxis {
            range: 0.5..max + 0.5,
            ticks: threads.iter().map(|&t| t as f64).collect(),
        }
    }
}

impl Ranged for WorkersAxis {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, v: &f64, limit: (i32, i32)) -> i32 {
        let fraction = (v - self.range.start) / (self.range.end - self.range.start);
        limit.0 + (fraction * f64::from(limit.1 - limit.0)).round() as i32
    }

    fn key_points<Hint: KeyPointHint>(&self, _hint: Hint) -> Vec<f64> {
        self.ticks.clone()
    }

    fn range(&self) -> Range<f64> {
        self.range.clone()
    }
}

/// Figure 4-2 for one program: speedup against workers, a line per runtime, the ideal
/// speedup dashed.
pub(crate) fn speedup(program: &str, rows: &[Row], threads: &[usize]) -> Result<String> {
    let series: Vec<Series> = RUNTIME_COLORS
        .iter()
        .map(|&(rt, color)| Series {
            label: rt.to_string(),
            color,
            dashed: false,
            points: points(
                rows,
                |r| r.program == program && r.runtime == rt,
                |r| r.speedup,
            ),
        })
        .filter(|s| !s.points.is_empty())
        .collect();
    let max_t = threads.iter().copied().max().unwrap_or(1) as f64;
    let top = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .fold(max_t, f64::max)
        * 1.1;

    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (300, 230)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(program, ("sans-serif", 16))
            .margin(8)
            .x_label_area_size(32)
            .y_label_area_size(40)
            .build_cartesian_2d(WorkersAxis::new(threads), 0.0..top)
            .map_err(err)?;
        chart
            .configure_mesh()
            .x_desc("workers")
            .y_desc("speedup")
            .x_label_formatter(&|x| format!("{x}"))
            .y_label_formatter(&|y| format!("{y:.1}"))
            .light_line_style(TRANSPARENT)
            .label_style(("sans-serif", 11))
            .draw()
            .map_err(err)?;
        chart
            .draw_series(DashedLineSeries::new(
                [(1.0, 1.0), (max_t, max_t)],
                4,
                4,
                IDEAL.stroke_width(1),
            ))
            .map_err(err)?;
        draw_series(&mut chart, &series)?;
        root.present().map_err(err)?;
    }
    Ok(svg)
}

/// Figure 4-3: forkjoin's tasks per second per worker against workers, a line per program.
pub(crate) fn task_rate(rows: &[Row], threads: &[usize]) -> Result<Option<String>> {
    per_program(
        rows,
        threads,
        "tasks per second per worker (forkjoin)",
        |r| {
            let (tasks, seconds) = (r.tasks?, r.seconds?);
            Some(tasks / seconds / r.threads as f64)
        },
    )
}

/// Figure 4-6: forkjoin's tasks stolen as a percentage of the tasks run.
pub(crate) fn steal_rate(rows: &[Row], threads: &[usize]) -> Result<Option<String>> {
    per_program(rows, threads, "stolen, % of tasks run (forkjoin)", |r| {
        let (tasks, steals) = (r.tasks?, r.steals?);
        (tasks > 0.0).then(|| 100.0 * steals / tasks)
    })
}

/// A log-scale chart of `value` of forkjoin's rows, a line per program, with the legend
/// at the right; `None` when there is nothing to plot.
fn per_program(
    rows: &[Row],
    threads: &[usize],
    y_desc: &str,
    value: impl Fn(&Row) -> Option<f64>,
) -> Result<Option<String>> {
    let programs = programs_in_order(rows);
    // Colours follow the program's place in the run, so a program looks the same in both
    // charts even where another has no points.
    let series: Vec<Series> = programs
        .iter()
        .enumerate()
        .map(|(i, &p)| Series {
            label: p.to_string(),
            color: PALETTE[i % PALETTE.len()],
            dashed: (i / PALETTE.len()) % 2 == 1,
            points: points(rows, |r| r.program == p && r.runtime == "forkjoin", &value)
                .into_iter()
                // Zero (no steals) has no place on a log scale.
                .filter(|&(_, y)| y > 0.0)
                .collect(),
        })
        .filter(|s| !s.points.is_empty())
        .collect();
    let ys = || series.iter().flat_map(|s| s.points.iter().map(|p| p.1));
    let (Some(lo), Some(hi)) = (ys().min_by(f64::total_cmp), ys().max_by(f64::total_cmp)) else {
        return Ok(None);
    };
    // Whole decades, so the log axis has ticks to read.
    let (lo, hi) = (
        10f64.powf(lo.log10().floor()),
        10f64.powf(hi.log10().ceil().max(lo.log10().floor() + 1.0)),
    );

    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (900, 460)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let (plot, legend_area) = root.split_horizontally(720);
        let mut chart = ChartBuilder::on(&plot)
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(70)
            .build_cartesian_2d(WorkersAxis::new(threads), (lo..hi).log_scale())
            .map_err(err)?;
        chart
            .configure_mesh()
            .x_desc("workers")
            .y_desc(y_desc)
            .x_label_formatter(&|x| format!("{x}"))
            .y_label_formatter(&|y| format!("{y:.0e}"))
            .light_line_style(TRANSPARENT)
            .label_style(("sans-serif", 12))
            .draw()
            .map_err(err)?;
        draw_series(&mut chart, &series)?;
        legend(&legend_area, &series)?;
        root.present().map_err(err)?;
    }
    Ok(Some(svg))
}

/// The verified points (workers, value) of the rows `pick` selects, by worker count.
fn points(
    rows: &[Row],
    pick: impl Fn(&Row) -> bool,
    value: impl Fn(&Row) -> Option<f64>,
) -> Vec<(f64, f64)> {
    let mut pts: Vec<(f64, f64)> = rows
        .iter()
        .filter(|r| r.verified && pick(r))
        .filter_map(|r| Some((r.threads as f64, value(r)?)))
        .collect();
    pts.sort_by(|a, b| a.0.total_cmp(&b.0));
    pts
}

fn draw_series<'a, X, Y>(
    chart: &mut ChartContext<'a, SVGBackend<'a>, Cartesian2d<X, Y>>,
    series: &[Series],
) -> Result<()>
where
    X: Ranged<ValueType = f64>,
    Y: Ranged<ValueType = f64>,
{
    for s in series {
        let style = s.color.stroke_width(2);
        if s.dashed {
            chart
                .draw_series(DashedLineSeries::new(s.points.clone(), 6, 4, style))
                .map_err(err)?;
        } else {
            chart
                .draw_series(LineSeries::new(s.points.clone(), style))
                .map_err(err)?;
        }
        chart
            .draw_series(
                s.points
                    .iter()
                    .map(|&p| Circle::new(p, 3, s.color.filled())),
            )
            .map_err(err)?;
    }
    Ok(())
}

fn legend(area: &DrawingArea<SVGBackend<'_>, Shift>, series: &[Series]) -> Result<()> {
    for (i, s) in series.iter().enumerate() {
        let y = 20 + 18 * i as i32;
        let style = s.color.stroke_width(2);
        if s.dashed {
            area.draw(&PathElement::new(vec![(4, y), (10, y)], style))
                .map_err(err)?;
            area.draw(&PathElement::new(vec![(16, y), (24, y)], style))
                .map_err(err)?;
        } else {
            area.draw(&PathElement::new(vec![(4, y), (24, y)], style))
                .map_err(err)?;
        }
        let text = ("sans-serif", 12)
            .into_font()
            .color(&BLACK)
            .pos(Pos::new(HPos::Left, VPos::Center));
        area.draw(&Text::new(s.label.clone(), (30, y), text))
            .map_err(err)?;
    }
    Ok(())
}

/// Workers, predicted speedup, Cilkview estimate, work/span bound.
pub(crate) type PredictionPoint = (usize, f64, f64, f64);

/// `fj profile`'s figure: predicted speedup against workers (log scale, 1 to 64) beside
/// the work and span laws' bound, Cilkview's estimate and the perfect line. `points`:
/// (workers, predicted, Cilkview estimate, bound).
pub(crate) fn prediction(program: &str, points: &[PredictionPoint]) -> Result<String> {
    let line =
        |label: &str, color: RGBColor, dashed: bool, y: &dyn Fn(&PredictionPoint) -> f64| Series {
            label: label.to_string(),
            color,
            dashed,
            points: points.iter().map(|pt| (pt.0 as f64, y(pt))).collect(),
        };
    let series = [
        line("predicted", PALETTE[0], false, &|p| p.1),
        line("work/span bound", PALETTE[2], true, &|p| p.3),
        line("Cilkview estimate", PALETTE[3], true, &|p| p.2),
    ];
    let perfect: Vec<(f64, f64)> = points.iter().map(|p| (p.0 as f64, p.0 as f64)).collect();
    log2_chart(
        &format!("{program}: predicted speedup"),
        "workers",
        &series,
        &perfect,
    )
}

/// A call site's figure in Cilkscale's form: speedup against workers (log scale, 1 to 64),
/// the span bound `min(P, T1/T∞)`, the burdened bound `T1 / (T1/P + burdened span)`, the
/// speedups measured at the worker counts this machine has (`measured`: workers and
/// speedup; none drawn if empty) and the perfect line.
pub(crate) fn cilkscale(
    tag: &str,
    work_ns: f64,
    span_ns: f64,
    burdened_span_ns: f64,
    measured: &[(usize, f64)],
) -> Result<String> {
    let workers: Vec<f64> = (0..=6).map(|k| f64::from(1u32 << k)).collect();
    let bound = |label: &str, color: RGBColor, y: &dyn Fn(f64) -> f64| Series {
        label: label.to_string(),
        color,
        dashed: true,
        points: workers.iter().map(|&p| (p, y(p))).collect(),
    };
    let mut series = vec![
        bound("span bound", PALETTE[2], &|p| {
            p.min(work_ns / span_ns.max(1.0))
        }),
        bound("burdened bound", PALETTE[3], &|p| {
            work_ns / (work_ns / p + burdened_span_ns)
        }),
    ];
    if !measured.is_empty() {
        series.push(Series {
            label: "measured".to_string(),
            color: PALETTE[0],
            dashed: false,
            points: measured.iter().map(|&(p, y)| (p as f64, y)).collect(),
        });
    }
    let perfect: Vec<(f64, f64)> = workers.iter().map(|&p| (p, p)).collect();
    log2_chart(&format!("{tag}: speedup"), "workers", &series, &perfect)
}

/// Predicted speedup of FT and FT_T against nodes, with the perfect line (nodes x cores).
pub(crate) fn cluster(
    title: &str,
    lines: &[(String, Vec<(usize, f64)>)],
    perfect: &[(usize, f64)],
) -> Result<String> {
    let series: Vec<Series> = lines
        .iter()
        .enumerate()
        .map(|(i, (label, pts))| Series {
            label: label.clone(),
            color: PALETTE[i % PALETTE.len()],
            dashed: false,
            points: pts.iter().map(|&(n, y)| (n as f64, y)).collect(),
        })
        .collect();
    let perfect: Vec<(f64, f64)> = perfect.iter().map(|&(n, y)| (n as f64, y)).collect();
    log2_chart(title, "nodes", &series, &perfect)
}

/// A chart of speedups against a count on a log2 x axis, with a dashed perfect line (its
/// points beyond the top of the other lines left out) and a legend.
fn log2_chart(
    title: &str,
    x_desc: &str,
    series: &[Series],
    perfect: &[(f64, f64)],
) -> Result<String> {
    let x = |p: f64| p.log2();
    let series: Vec<Series> = series
        .iter()
        .map(|s| Series {
            points: s.points.iter().map(|&(p, y)| (x(p), y)).collect(),
            ..s.clone()
        })
        .collect();
    let max_p = perfect
        .iter()
        .chain(series.iter().flat_map(|s| s.points.iter()))
        .map(|p| p.0)
        .fold(1.0, f64::max);
    let max_x = x(max_p).max(perfect.iter().map(|p| x(p.0)).fold(0.0, f64::max));
    let top = series
        .iter()
        .flat_map(|s| s.points.iter())
        .map(|p| p.1)
        .fold(1.0, f64::max)
        * 1.1;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (560, 320)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let (plot, side) = root.split_horizontally(420);
        let mut chart = ChartBuilder::on(&plot)
            .caption(title, ("sans-serif", 16))
            .margin(8)
            .x_label_area_size(32)
            .y_label_area_size(44)
            .build_cartesian_2d(-0.2..max_x + 0.2, 0.0..top)
            .map_err(err)?;
        chart
            .configure_mesh()
            .x_desc(x_desc)
            .y_desc("speedup")
            .x_labels(max_x as usize + 1)
            .x_label_formatter(&|v| format!("{}", 2f64.powf(v.round()) as u64))
            .y_label_formatter(&|y| format!("{y:.0}"))
            .light_line_style(TRANSPARENT)
            .label_style(("sans-serif", 11))
            .draw()
            .map_err(err)?;
        let perfect: Vec<(f64, f64)> = perfect
            .iter()
            .map(|p| (x(p.0), p.1))
            .filter(|p| p.1 <= top)
            .collect();
        chart
            .draw_series(DashedLineSeries::new(perfect, 4, 4, IDEAL.stroke_width(1)))
            .map_err(err)?;
        draw_series(&mut chart, &series)?;
        let mut with_ideal = series.to_vec();
        with_ideal.push(Series {
            label: "perfect".into(),
            color: IDEAL,
            dashed: true,
            points: Vec::new(),
        });
        legend(&side, &with_ideal)?;
        root.present().map_err(err)?;
    }
    Ok(svg)
}
