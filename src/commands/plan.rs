//! `check --plan` in the terminal: per kind, the samples, the calls the cache answers and
//! those to make, with the tokens and cost to expect; then what a sequential check would
//! send.

use std::fmt::Write as _;

use goldgate_core::escape::one_line;

/// `check --plan`: per kind, the samples, the calls the cache answers and those to make,
/// with the tokens and cost to expect; then what a sequential check would send.
pub fn text(p: &crate::check::plan::CheckPlan, sequential: bool) -> String {
    use goldgate_core::number::{count, usd};
    let mut out = format!(
        "plan: {} samples, {} each; no call is made (pipeline {})\n\n",
        p.samples,
        match p.repeats {
            1 => "1 call".to_string(),
            n => format!("{n} calls"),
        },
        one_line(&p.pipeline_fingerprint)
    );
    let tokens = |t: Option<f64>| t.map_or_else(|| "–".into(), |t| count(t.round() as u64));
    let cost = |c: Option<f64>| c.map_or_else(|| "–".into(), usd);
    let mut rows: Vec<[String; 6]> = p
        .kinds
        .iter()
        .map(|k| {
            [
                one_line(&k.kind).into_owned(),
                k.samples.to_string(),
                k.cached.to_string(),
                k.to_send.to_string(),
                tokens(k.tokens()),
                cost(k.cost()),
            ]
        })
        .collect();
    let sum = |f: &dyn Fn(&crate::check::plan::KindPlan) -> Option<f64>| {
        p.kinds.iter().map(f).sum::<Option<f64>>()
    };
    rows.push([
        "total".into(),
        p.samples.to_string(),
        p.kinds.iter().map(|k| k.cached).sum::<usize>().to_string(),
        p.kinds.iter().map(|k| k.to_send).sum::<usize>().to_string(),
        tokens(sum(&|k| k.tokens())),
        cost(sum(&|k| k.cost())),
    ]);
    let head = [
        "kind",
        "samples",
        "from the cache",
        "to send",
        "expected tokens",
        "expected cost",
    ];
    let mut widths = head.map(str::len);
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: &[String]| {
        let mut text = format!("{:<w$}", cells[0], w = widths[0]);
        for (cell, w) in cells[1..].iter().zip(&widths[1..]) {
            text.push_str(&format!("  {cell:>w$}", w = *w));
        }
        text.trim_end().to_string() + "\n"
    };
    out.push_str(&line(&head.map(String::from)));
    for row in &rows {
        out.push_str(&line(row));
    }
    if p.kinds
        .iter()
        .any(|k| k.to_send > 0 && k.cost_per_call.is_none())
    {
        out.push_str("\n(– : the baseline has no usage for these calls, so nothing to expect)\n");
    }
    match &p.sequential {
        Some(s) if s.waiting.is_empty() && s.expected_samples > p.samples as f64 - 0.5 => {
            let _ = writeln!(
                out,
                "\nsequentially: every sample would likely be answered before every rule is decided, if the answers are like the baseline's (the mean of 20 sending orders)"
            );
        }
        Some(s) if s.waiting.is_empty() => {
            let flag = if sequential {
                ""
            } else {
                " (with --sequential)"
            };
            let _ = writeln!(
                out,
                "\nsequentially{flag}: about {:.0} of the {} samples answered before every rule is decided, if the answers are like the baseline's (the mean of 20 sending orders); a clear change is usually decided sooner",
                s.expected_samples, p.samples
            );
        }
        Some(s) => {
            let _ = writeln!(
                out,
                "\nsequentially: every sample would be sent; these rules cannot be decided before the last one: {}",
                s.waiting.iter().map(|w| one_line(w)).collect::<Vec<_>>().join("; ")
            );
        }
        None => out.push_str("\nsequentially: no baseline to estimate from\n"),
    }
    out
}
