//! A comparison of two runs (`dyno compare`, `dyno check`), laid out in the
//! style of Go's benchstat: each side's median ± the half-width of its 95%
//! CI, the change with the bootstrap CI of the ratio, p and n, a verdict,
//! warnings as numbered footnotes, and a geomean row. Text for a terminal
//! and Markdown for a pull-request comment share one cell model.

use std::fmt::Write as _;

use dyno_gate::{Comparison, Metric, Row, Side, Verdict};

use crate::units::{duration, sig3};

/// The columns, left to right.
const HEADERS: [&str; 7] = ["benchmark", "old", "new", "delta", "p", "n", "verdict"];

/// One table row as strings, and its footnote numbers.
struct Cells {
    cells: [String; 7],
    notes: Vec<usize>,
    verdict: Verdict,
}

/// Footnotes: comparison-wide notes first, then each distinct row note.
struct Notes(Vec<String>);

impl Notes {
    fn number(&mut self, text: &str) -> usize {
        match self.0.iter().position(|n| n == text) {
            Some(i) => i + 1,
            None => {
                self.0.push(text.to_string());
                self.0.len()
            }
        }
    }
}

fn value(c: &Comparison, x: f64) -> String {
    match (c.metric, &c.normalised) {
        (Metric::Instructions, _) => format!("{} instr", count(x)),
        (Metric::Time, Some(_)) => format!("{}×ref", sig3(x)),
        (Metric::Time, None) => duration(x),
    }
}

fn count(x: f64) -> String {
    if x >= 1e6 {
        format!("{}M", sig3(x / 1e6))
    } else if x >= 1e3 {
        format!("{}k", sig3(x / 1e3))
    } else {
        sig3(x)
    }
}

fn side(c: &Comparison, s: Option<&Side>) -> String {
    match s {
        None => "-".into(),
        Some(s) => match &s.ci {
            Some(ci) if s.median > 0.0 => {
                let half = (ci.upper - ci.lower) / 2.0 / s.median * 100.0;
                format!("{} ± {half:.0}%", value(c, s.median))
            }
            _ => value(c, s.median),
        },
    }
}

fn delta(r: &Row) -> String {
    let Some(pct) = r.delta_pct() else {
        return "-".into();
    };
    match &r.ratio_ci {
        Some(ci) => format!(
            "{pct:+.1}% [{:+.1}, {:+.1}]",
            (ci.lower - 1.0) * 100.0,
            (ci.upper - 1.0) * 100.0
        ),
        None => format!("{pct:+.1}%"),
    }
}

fn p_value(r: &Row) -> String {
    match (r.p_adjusted, r.p) {
        (Some(adj), _) => format!("{adj:.3}"),
        (None, Some(p)) => format!("({p:.3})"),
        _ => "-".into(),
    }
}

fn cells(c: &Comparison, notes: &mut Notes) -> Vec<Cells> {
    c.rows
        .iter()
        .map(|r| {
            let name = if r.runtime == "rust" || r.runtime.is_empty() {
                format!("{} [{}]", r.id, r.implementation)
            } else {
                format!("{} [{} ({})]", r.id, r.implementation, r.runtime)
            };
            let n = match (&r.base, &r.new) {
                (Some(a), Some(b)) => format!("{}+{}", a.n, b.n),
                (Some(a), None) => format!("{}+0", a.n),
                (None, Some(b)) => format!("0+{}", b.n),
                (None, None) => "-".into(),
            };
            let mut verdict = match r.verdict {
                // `dyno compare` flags any significant change (no threshold).
                Verdict::Regressed if r.threshold < 1e-9 => "slower".into(),
                Verdict::Improved if r.threshold < 1e-9 => "faster".into(),
                v => v.as_str().to_string(),
            };
            if r.verdict == Verdict::NoChange && r.p_adjusted.is_some_and(|p| p < c.alpha) {
                verdict = format!("~ (within ±{:.0}%)", r.threshold * 100.0);
            }
            Cells {
                cells: [
                    name,
                    side(c, r.base.as_ref()),
                    side(c, r.new.as_ref()),
                    delta(r),
                    p_value(r),
                    n,
                    verdict,
                ],
                notes: r.note.iter().map(|t| notes.number(t)).collect(),
                verdict: r.verdict,
            }
        })
        .collect()
}

fn marks(ns: &[usize]) -> String {
    ns.iter().map(|n| format!(" ({n})")).collect()
}

fn geomean_row(c: &Comparison) -> [String; 7] {
    let g = c
        .geomean_ratio
        .map_or("-".into(), |g| format!("{:+.1}%", (g - 1.0) * 100.0));
    [
        "geomean".into(),
        String::new(),
        String::new(),
        g,
        String::new(),
        String::new(),
        String::new(),
    ]
}

fn summary(c: &Comparison) -> String {
    let mut parts = vec![format!("{} compared", c.rows.len())];
    for v in [
        Verdict::Regressed,
        Verdict::Improved,
        Verdict::NoChange,
        Verdict::Insufficient,
    ] {
        let n = c.count(v);
        let compare = c.rows.iter().all(|r| r.threshold < 1e-9);
        let word = match v {
            Verdict::Regressed if compare => "slower",
            Verdict::Improved if compare => "faster",
            v => v.as_str(),
        };
        if n > 0 {
            parts.push(format!("{n} {word}"));
        }
    }
    format!(
        "{}; p is Mann-Whitney U, Holm-adjusted over {} (α = {})",
        parts.join(", "),
        c.family,
        c.alpha
    )
}

/// Aligned text; `color` marks regressions red and improvements green.
pub fn text(c: &Comparison, color: bool) -> String {
    let mut notes = Notes(c.notes.clone());
    let rows = cells(c, &mut notes);
    let mut table: Vec<[String; 7]> = vec![HEADERS.map(String::from)];
    let mut styles = vec![None];
    for r in &rows {
        let mut cells = r.cells.clone();
        cells[6].push_str(&marks(&r.notes));
        table.push(cells);
        styles.push(match r.verdict {
            Verdict::Regressed => Some("\x1b[1;31m"),
            Verdict::Improved => Some("\x1b[32m"),
            _ => None,
        });
    }
    table.push(geomean_row(c));
    styles.push(None);
    let widths: Vec<usize> = (0..7)
        .map(|i| {
            table
                .iter()
                .map(|r| r[i].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = format!("old: {}\nnew: {}\n\n", c.base_label, c.new_label);
    for (row, style) in table.iter().zip(styles) {
        let mut line = String::new();
        for (i, cell) in row.iter().enumerate() {
            let pad = widths[i] - cell.chars().count();
            if i == 0 || i == 6 {
                let _ = write!(line, "{cell}{}", " ".repeat(pad));
            } else {
                let _ = write!(line, "{}{cell}", " ".repeat(pad));
            }
            line.push_str("  ");
        }
        let line = line.trim_end();
        match style {
            Some(s) if color => {
                let _ = writeln!(out, "{s}{line}\x1b[0m");
            }
            _ => {
                let _ = writeln!(out, "{line}");
            }
        }
    }
    let _ = writeln!(out, "\n{}", summary(c));
    for (i, n) in notes.0.iter().enumerate() {
        let _ = writeln!(out, "({}) {n}", i + 1);
    }
    out
}

/// Markdown for a pull-request comment: a headline, the flagged rows
/// first, then every row in a collapsed section.
pub fn markdown(c: &Comparison) -> String {
    let mut notes = Notes(c.notes.clone());
    let rows = cells(c, &mut notes);
    let regressed = c.count(Verdict::Regressed);
    let improved = c.count(Verdict::Improved);
    let mut out = String::new();
    let headline = if regressed > 0 {
        format!("### :x: dyno: {regressed} regression(s)")
    } else if improved > 0 {
        format!("### :white_check_mark: dyno: no regression, {improved} improvement(s)")
    } else {
        "### :white_check_mark: dyno: no regression".to_string()
    };
    let _ = writeln!(
        out,
        "{headline}\n\nold: {}  \nnew: {}\n\n{}\n",
        esc(&c.base_label),
        esc(&c.new_label),
        summary(c)
    );
    let table = |out: &mut String, pick: &dyn Fn(&Cells) -> bool| {
        let _ = writeln!(out, "| {} |", HEADERS.join(" | "));
        let _ = writeln!(out, "|:--|--:|--:|--:|--:|--:|:--|");
        for r in rows.iter().filter(|r| pick(r)) {
            let mut cells: Vec<String> = r.cells.iter().map(|x| esc(x)).collect();
            cells[6].push_str(
                &r.notes
                    .iter()
                    .map(|n| format!(" <sup>{n}</sup>"))
                    .collect::<String>(),
            );
            if r.verdict == Verdict::Regressed {
                cells[6] = format!("**{}**", cells[6]);
            }
            let _ = writeln!(out, "| {} |", cells.join(" | "));
        }
    };
    let flagged = |r: &Cells| matches!(r.verdict, Verdict::Regressed | Verdict::Improved);
    if rows.iter().any(flagged) {
        table(&mut out, &flagged);
        out.push('\n');
    }
    let _ = writeln!(
        out,
        "<details><summary>All {} benchmarks</summary>\n",
        rows.len()
    );
    table(&mut out, &|_| true);
    let g = geomean_row(c);
    let _ = writeln!(out, "| **{}** | | | {} | | | |", g[0], g[3]);
    out.push_str("\n</details>\n");
    if !notes.0.is_empty() {
        out.push('\n');
        for (i, n) in notes.0.iter().enumerate() {
            let _ = writeln!(out, "<sup>{}</sup> {}  ", i + 1, esc(n));
        }
    }
    out
}

/// Escape what Markdown tables and HTML would misread.
fn esc(s: &str) -> String {
    dyno_format::escape::markdown_cell(s)
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}
