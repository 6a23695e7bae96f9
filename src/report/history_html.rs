//! `goldgate history --format html`: one self-contained page (no script, nothing loaded)
//! with an SVG chart per gated metric — each version's value with its interval, the pinned
//! reference and its drift budget as lines, pins and accepted drifts marked — and the table
//! of versions with who committed each and why a drift was accepted.

use std::fmt::Write;

use minijinja::{context, Environment, Value};

use super::history::{series, version, Series};
use crate::history::History;
use goldgate_core::error::{Error, Result};
use goldgate_core::escape::html as escape;
use goldgate_core::gate::thresholds::Thresholds;

pub const HISTORY_TEMPLATE: &str = include_str!("../../templates/history.html.j2");

const WIDTH: f64 = 640.0;
const HEIGHT: f64 = 260.0;
const LEFT: f64 = 58.0;
const RIGHT: f64 = 16.0;
const TOP: f64 = 16.0;
const BOTTOM: f64 = 42.0;

/// The page.
pub fn page(history: &History, thresholds: &Thresholds) -> Result<String> {
    let mut env = Environment::new();
    super::html::escape_as_html(&mut env);
    env.add_template("history.html.j2", HISTORY_TEMPLATE)
        .map_err(|e| Error::internal(format!("the history template does not parse: {e}")))?;
    let charts: Vec<Value> = series(history, thresholds)
        .iter()
        .map(|s| {
            context! {
                metric => s.metric,
                rule => s.rule,
                svg => Value::from_safe_string(chart(s, history)),
                caption => caption(s),
            }
        })
        .collect();
    let versions: Vec<Value> = history
        .points
        .iter()
        .enumerate()
        .map(|(i, p)| {
            context! {
                n => i + 1,
                version => version(p),
                created_at => p.created_at,
                committed_at => p.committed_at.as_deref().map(|c| c.replace('T', " ").trim_end_matches('Z').get(..16).unwrap_or(c).to_string()),
                author => p.author,
                subject => p.subject,
                pinned => p.pinned,
                accepted => p.accepted_drift.as_ref().map(|a| format!("drift accepted by {}: {} ({})", a.by, a.reason, a.drifts.join("; "))),
            }
        })
        .collect();
    let template = env
        .get_template("history.html.j2")
        .map_err(|e| Error::internal(e.to_string()))?;
    template
        .render(context! {
            baseline => history.baseline,
            reference => history.reference,
            shallow => history.shallow,
            charts,
            versions,
            skipped => history.skipped.iter().map(|s| format!("{}: {}", s.commit, s.why)).collect::<Vec<_>>(),
        })
        .map_err(|e| Error::internal(format!("cannot render the history page: {e}")))
}

/// What a chart shows, in a sentence.
fn caption(s: &Series) -> String {
    let known: Vec<f64> = s.known().map(|(_, v)| v).collect();
    let v = |x: f64| goldgate_core::number::value(x, 4);
    let mut text = format!(
        "{} versions with a value, from {} to {}",
        known.len(),
        v(known[0]),
        v(known[known.len() - 1])
    );
    if let Some((reference, worst)) = s.budget {
        let _ = write!(
            text,
            "; the reference is {}, its drift budget ends at {} (dashed red)",
            v(reference),
            v(worst)
        );
    }
    text.push('.');
    text
}

/// The chart of one metric: a line through the versions' values, each with its interval as
/// a whisker and a `<title>` with its figures; the reference and its budget as dashed lines;
/// a pin as a vertical line, an accepted drift as a triangle.
fn chart(s: &Series, history: &History) -> String {
    let n = s.values.len().max(1);
    let mut lo = f64::INFINITY;
    let mut hi = f64::NEG_INFINITY;
    for (v, ci) in &s.values {
        for x in v.iter().chain(ci.iter().flatten()) {
            lo = lo.min(*x);
            hi = hi.max(*x);
        }
    }
    if let Some((a, b)) = s.budget {
        lo = lo.min(a.min(b));
        hi = hi.max(a.max(b));
    }
    let pad = ((hi - lo) * 0.08).max(0.005);
    let (lo, hi) = (lo - pad, hi + pad);
    let (w, h) = (WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM);
    let x = |i: usize| match n {
        1 => LEFT + w / 2.0,
        _ => LEFT + w * i as f64 / (n - 1) as f64,
    };
    let y = |v: f64| TOP + h * (1.0 - (v - lo) / (hi - lo));
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" width=\"{WIDTH}\" height=\"{HEIGHT}\" viewBox=\"0 0 {WIDTH} {HEIGHT}\" role=\"img\" aria-label=\"{} over {} versions\">",
        escape(s.metric),
        s.values.len()
    );
    for k in 0..=4 {
        let v = lo + (hi - lo) * k as f64 / 4.0;
        let yy = y(v);
        let _ = write!(svg, "<line class=\"grid\" x1=\"{LEFT}\" y1=\"{yy:.1}\" x2=\"{:.1}\" y2=\"{yy:.1}\"/><text class=\"tick-label\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>", LEFT + w, LEFT - 6.0, yy + 3.5, goldgate_core::number::value(v, 3));
    }
    let _ = write!(
        svg,
        "<rect class=\"plot\" x=\"{LEFT}\" y=\"{TOP}\" width=\"{w:.1}\" height=\"{h:.1}\"/>"
    );
    if let Some((reference, worst)) = s.budget {
        for (v, class, label) in [
            (reference, "reference", "reference"),
            (worst, "budget", "drift budget"),
        ] {
            let yy = y(v);
            let _ = write!(svg, "<line class=\"{class}\" x1=\"{LEFT}\" y1=\"{yy:.1}\" x2=\"{:.1}\" y2=\"{yy:.1}\"><title>{label}: {}</title></line>", LEFT + w, goldgate_core::number::value(v, 4));
        }
    }
    for (i, p) in history.points.iter().enumerate() {
        let xx = x(i);
        if p.pinned {
            let _ = write!(svg, "<line class=\"pin\" x1=\"{xx:.1}\" y1=\"{TOP}\" x2=\"{xx:.1}\" y2=\"{:.1}\"><title>#{} pinned as the reference</title></line>", TOP + h, i + 1);
        }
        let label_every = n.div_ceil(12).max(1);
        if i % label_every == 0 || i + 1 == n {
            let _ = write!(svg, "<text class=\"tick-label\" x=\"{xx:.1}\" y=\"{:.1}\" text-anchor=\"middle\">#{}</text>", TOP + h + 15.0, i + 1);
        }
    }
    let line: Vec<String> = s
        .known()
        .map(|(i, v)| format!("{:.1},{:.1}", x(i), y(v)))
        .collect();
    let _ = write!(
        svg,
        "<polyline class=\"series\" points=\"{}\"/>",
        line.join(" ")
    );
    for (i, (v, ci)) in s.values.iter().enumerate() {
        let (Some(v), p) = (v, &history.points[i]) else {
            continue;
        };
        let xx = x(i);
        if let Some([a, b]) = ci {
            let _ = write!(
                svg,
                "<line class=\"whisker\" x1=\"{xx:.1}\" y1=\"{:.1}\" x2=\"{xx:.1}\" y2=\"{:.1}\"/>",
                y(*a),
                y(*b)
            );
        }
        let interval = ci.map_or(String::new(), |[a, b]| {
            format!(
                " [{}, {}]",
                goldgate_core::number::value(a, 3),
                goldgate_core::number::value(b, 3)
            )
        });
        let title = format!(
            "#{} {}: {}{interval}",
            i + 1,
            version(p),
            goldgate_core::number::value(*v, 4)
        );
        let (xx, yy) = (xx, y(*v));
        match &p.accepted_drift {
            Some(a) => {
                let why = escape(&format!(
                    "{title}; drift accepted by {}: {}",
                    a.by, a.reason
                ));
                let _ = write!(svg, "<path class=\"accepted\" d=\"M{xx:.1},{:.1} L{:.1},{:.1} L{:.1},{:.1} Z\"><title>{why}</title></path>", yy - 6.0, xx + 5.5, yy + 4.0, xx - 5.5, yy + 4.0);
            }
            None => {
                let _ = write!(svg, "<circle class=\"point\" cx=\"{xx:.1}\" cy=\"{yy:.1}\" r=\"3.5\"><title>{}</title></circle>", escape(&title));
            }
        }
    }
    let _ = write!(svg, "<text class=\"axis-label\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">baseline version (oldest first)</text>", LEFT + w / 2.0, HEIGHT - 6.0);
    let (ax, ay) = (14.0, TOP + h / 2.0);
    let _ = write!(svg, "<text class=\"axis-label\" x=\"{ax}\" y=\"{ay:.1}\" text-anchor=\"middle\" transform=\"rotate(-90 {ax} {ay:.1})\">{}</text></svg>", escape(s.metric));
    svg
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use goldgate_core::score::file::AcceptedDrift;

    use crate::history::{History, Point};

    /// What git and a committed baseline say (a commit's subject and author, an accepted
    /// drift's who and why) reaches the page escaped as the HTML report escapes: markup, and
    /// the bidirectional and control characters that would reorder or hide text.
    #[test]
    fn what_git_says_is_escaped_as_the_report_escapes() {
        let hostile = "a\u{202e}evil\u{1b}[31m <b>x</b>";
        let point = Point {
            commit: Some("0123456789abcdef".into()),
            committed_at: Some("2026-10-01T00:00:00Z".into()),
            author: Some(hostile.into()),
            subject: Some(hostile.into()),
            created_at: "2026-10-01T00:00:00Z".into(),
            pipeline_fingerprint: None,
            pinned: false,
            accepted_drift: Some(AcceptedDrift {
                by: hostile.into(),
                reason: hostile.into(),
                reference: hostile.into(),
                reference_created_at: "2026-09-01T00:00:00Z".into(),
                drifts: vec![hostile.into()],
            }),
            metrics: BTreeMap::new(),
        };
        let history = History {
            schema: "goldgate.history/1".into(),
            baseline: "baselines/main.json".into(),
            reference: None,
            shallow: false,
            points: vec![point],
            skipped: Vec::new(),
        };
        let page = super::page(&history, &goldgate_core::testkit::built_in_rules()).unwrap();
        assert!(
            page.contains("drift accepted by"),
            "the accepted drift is shown"
        );
        for raw in ['\u{202e}', '\u{1b}'] {
            assert!(!page.contains(raw), "{raw:?} reached the page");
        }
        assert!(!page.contains("<b>x</b>"), "markup reached the page");
    }
}
