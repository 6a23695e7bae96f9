//! The HTML report's charts, as inline SVG built from numbers only (no text from a suite or
//! a pipeline reaches them): a reliability diagram per calibrated kind and the distribution
//! of per-sample scores. Each has labelled axes with ticks, a `<title>` on every bar for
//! its exact figures, and the caption that says how to read it.

use std::fmt::Write;

use goldgate_core::metrics::calibration::{Bins, BINS};

/// Where the plot area sits in a chart: left and bottom leave room for the axes' ticks and
/// labels.
struct Frame {
    width: f64,
    height: f64,
    left: f64,
    right: f64,
    top: f64,
    bottom: f64,
}

impl Frame {
    const fn new(width: f64, height: f64) -> Frame {
        Frame {
            width,
            height,
            left: 52.0,
            right: 14.0,
            top: 18.0,
            bottom: 44.0,
        }
    }
    fn inner_width(&self) -> f64 {
        self.width - self.left - self.right
    }
    fn inner_height(&self) -> f64 {
        self.height - self.top - self.bottom
    }
    /// x of a value in [0, 1].
    fn x(&self, t: f64) -> f64 {
        self.left + self.inner_width() * t
    }
    /// y of a value in [0, 1] (0 at the bottom).
    fn y(&self, t: f64) -> f64 {
        self.top + self.inner_height() * (1.0 - t)
    }

    /// `<svg …>` with its accessible name, the plot area's frame, the ticks of both axes
    /// (positions in [0, 1]; the y ticks with their labels) and a grid line at each y tick.
    fn open(&self, name: &str, x_ticks: &[f64], y_ticks: &[(f64, String)]) -> String {
        let (w, h) = (self.width, self.height);
        let mut svg = format!("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" role=\"img\" aria-label=\"{name}\">");
        let (x0, x1, y0, y1) = (self.x(0.0), self.x(1.0), self.y(0.0), self.y(1.0));
        for &(t, _) in y_ticks {
            let y = self.y(t);
            let _ = write!(
                svg,
                "<line class=\"grid\" x1=\"{x0:.1}\" y1=\"{y:.1}\" x2=\"{x1:.1}\" y2=\"{y:.1}\"/>"
            );
        }
        let _ = write!(
            svg,
            "<rect class=\"plot\" x=\"{x0:.1}\" y=\"{y1:.1}\" width=\"{:.1}\" height=\"{:.1}\"/>",
            x1 - x0,
            y0 - y1
        );
        for &t in x_ticks {
            let x = self.x(t);
            let _ = write!(svg, "<line class=\"tick\" x1=\"{x:.1}\" y1=\"{y0:.1}\" x2=\"{x:.1}\" y2=\"{:.1}\"/><text class=\"tick-label\" x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>", y0 + 4.0, y0 + 16.0, tick(t));
        }
        for (t, label) in y_ticks {
            let y = self.y(*t);
            let _ = write!(svg, "<line class=\"tick\" x1=\"{:.1}\" y1=\"{y:.1}\" x2=\"{x0:.1}\" y2=\"{y:.1}\"/><text class=\"tick-label\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{label}</text>", x0 - 4.0, x0 - 7.0, y + 3.5);
        }
        svg
    }

    /// The axes' labels and the closing tag.
    fn close(&self, mut svg: String, x_label: &str, y_label: &str) -> String {
        let _ = write!(
            svg,
            "<text class=\"axis-label\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{x_label}</text>",
            self.x(0.5),
            self.height - 6.0
        );
        let (x, y) = (14.0, self.y(0.5));
        let _ = write!(svg, "<text class=\"axis-label\" x=\"{x}\" y=\"{y:.1}\" text-anchor=\"middle\" transform=\"rotate(-90 {x} {y:.1})\">{y_label}</text>");
        svg.push_str("</svg>");
        svg
    }
}

/// A tick's value: `0`, `0.2`, `1`.
fn tick(t: f64) -> String {
    let text = format!("{t:.1}");
    match text.as_str() {
        "0.0" => "0".into(),
        "1.0" => "1".into(),
        _ => text,
    }
}

const TENTHS: [f64; 6] = [0.0, 0.2, 0.4, 0.6, 0.8, 1.0];

/// The reliability diagram's axis labels: what the bars stand on and how tall they are.
pub const RELIABILITY_AXES: [&str; 2] = ["stated confidence", "share correct"];

/// A reliability diagram: one bar per confidence bin with a prediction, as tall as the
/// share of the bin's predictions that were correct and shaded by how many it holds (the
/// count above it), a dot at the bin's mean confidence, and the diagonal of perfect
/// calibration.
pub fn reliability_svg(bins: &Bins) -> String {
    let f = Frame::new(340.0, 290.0);
    let y_ticks: Vec<(f64, String)> = TENTHS.iter().map(|&t| (t, tick(t))).collect();
    let mut svg = f.open("reliability diagram", &TENTHS, &y_ticks);
    let total = bins.total().max(1.0);
    let _ = write!(
        svg,
        "<line class=\"ideal\" x1=\"{:.1}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\"/>",
        f.x(0.0),
        f.y(0.0),
        f.x(1.0),
        f.y(1.0)
    );
    let step = f.inner_width() / BINS as f64;
    for b in (0..BINS).filter(|&b| bins.count[b] > 0.0) {
        let n = bins.count[b];
        let (conf, acc) = (bins.confidence[b] / n, bins.correct[b] / n);
        let (lo, hi) = (b as f64 / BINS as f64, (b + 1) as f64 / BINS as f64);
        let x = f.x(lo) + 1.0;
        let top = f.y(acc);
        let opacity = 0.35 + 0.65 * n / total;
        let predictions = if n == 1.0 {
            "prediction"
        } else {
            "predictions"
        };
        let _ = write!(svg, "<rect class=\"bar\" x=\"{x:.1}\" y=\"{top:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill-opacity=\"{opacity:.2}\"><title>confidence {lo:.1}–{hi:.1}: {n} {predictions}, {:.0}% correct, mean confidence {conf:.2}</title></rect>", step - 2.0, f.y(0.0) - top, acc * 100.0);
        let _ = write!(
            svg,
            "<text class=\"count\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{n}</text>",
            x + step / 2.0 - 1.0,
            top - 7.0
        );
        let _ = write!(
            svg,
            "<circle class=\"mean\" cx=\"{:.1}\" cy=\"{top:.1}\" r=\"3.5\"/>",
            f.x(conf)
        );
    }
    f.close(svg, RELIABILITY_AXES[0], RELIABILITY_AXES[1])
}

/// The distribution chart's axis labels.
pub const DISTRIBUTION_AXES: [&str; 2] = ["primary score of a sample", "samples"];

/// A histogram of per-sample primary scores in tenths: the candidate's as bars, the
/// baseline's as dashed outlines, and the bar a sample must reach to pass (`pass`) as a
/// vertical line.
pub fn distribution_svg(candidate: &[f64], baseline: &[f64], pass: Option<f64>) -> String {
    let f = Frame::new(380.0, 290.0);
    let count = |xs: &[f64]| {
        let mut c = [0usize; 10];
        for &x in xs {
            c[((x * 10.0).floor().max(0.0) as usize).min(9)] += 1;
        }
        c
    };
    let (cand, base) = (count(candidate), count(baseline));
    let max = cand.iter().chain(&base).copied().max().unwrap_or(0).max(1);
    // Whole-number ticks: 0, the top, and the middle when it is whole.
    let mut y_ticks = vec![(0.0, "0".to_string())];
    if max % 2 == 0 && max >= 4 {
        y_ticks.push((0.5, (max / 2).to_string()));
    }
    y_ticks.push((1.0, max.to_string()));
    let mut svg = f.open("distribution of sample scores", &TENTHS, &y_ticks);
    let step = f.inner_width() / 10.0;
    for i in 0..10 {
        let x = f.x(i as f64 / 10.0) + 1.0;
        let (lo, hi) = (i as f64 / 10.0, (i + 1) as f64 / 10.0);
        let top = f.y(cand[i] as f64 / max as f64);
        let baseline_note = if baseline.is_empty() {
            String::new()
        } else {
            format!(" (baseline {})", base[i])
        };
        let samples = if cand[i] == 1 { "sample" } else { "samples" };
        let _ = write!(svg, "<rect class=\"bar candidate\" x=\"{x:.1}\" y=\"{top:.1}\" width=\"{:.1}\" height=\"{:.1}\"><title>score {lo:.1}–{hi:.1}: {} {samples}{baseline_note}</title></rect>", step - 2.0, f.y(0.0) - top, cand[i]);
        if !baseline.is_empty() && base[i] > 0 {
            let top = f.y(base[i] as f64 / max as f64);
            let _ = write!(svg, "<rect class=\"baseline\" x=\"{x:.1}\" y=\"{top:.1}\" width=\"{:.1}\" height=\"{:.1}\"/>", step - 2.0, f.y(0.0) - top);
        }
    }
    if let Some(p) = pass.filter(|p| (0.0..=1.0).contains(p)) {
        let x = f.x(p);
        let _ = write!(svg, "<line class=\"pass\" x1=\"{x:.1}\" y1=\"{:.1}\" x2=\"{x:.1}\" y2=\"{:.1}\"/><text class=\"pass-label\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">pass ≥ {}</text>", f.y(0.0), f.y(1.0) - 6.0, x - 3.0, f.y(1.0) - 8.0, goldgate_core::number::value(p, 2));
    }
    f.close(svg, DISTRIBUTION_AXES[0], DISTRIBUTION_AXES[1])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts<'a>(svg: &'a str, class: &str) -> Vec<&'a str> {
        let open = format!("<text class=\"{class}\"");
        svg.match_indices(&open)
            .map(|(i, _)| {
                let rest = &svg[i..];
                let start = rest.find('>').unwrap() + 1;
                &rest[start..rest.find("</text>").unwrap()]
            })
            .collect()
    }

    #[test]
    fn reliability_bars_follow_the_bins_under_labelled_axes() {
        let mut bins = Bins::default();
        bins.add(0.95, true);
        bins.add(0.95, false);
        bins.add(0.15, false);
        let svg = reliability_svg(&bins);
        assert_eq!(
            svg.matches("<circle").count(),
            2,
            "one point per non-empty bin"
        );
        assert!(
            svg.contains("confidence 0.9–1.0: 2 predictions, 50% correct, mean confidence 0.95")
        );
        assert_eq!(texts(&svg, "axis-label"), RELIABILITY_AXES);
        assert_eq!(
            texts(&svg, "tick-label"),
            ["0", "0.2", "0.4", "0.6", "0.8", "1", "0", "0.2", "0.4", "0.6", "0.8", "1"]
        );
        assert_eq!(texts(&svg, "count"), ["1", "2"], "each bar's count");
        assert!(svg.contains("confidence 0.1–0.2: 1 prediction, 0% correct"));
    }

    #[test]
    fn the_distribution_counts_samples_per_tenth_with_the_pass_bar() {
        let svg = distribution_svg(&[0.05, 0.95, 1.0, 0.85], &[0.95, 0.95], Some(0.8));
        assert_eq!(texts(&svg, "axis-label"), DISTRIBUTION_AXES);
        assert_eq!(texts(&svg, "tick-label")[6..], ["0", "2"], "whole counts");
        assert!(
            svg.contains("score 0.9–1.0: 2 samples (baseline 2)"),
            "{svg}"
        );
        assert!(
            svg.contains("score 0.0–0.1: 1 sample (baseline 0)"),
            "{svg}"
        );
        assert_eq!(svg.matches("class=\"baseline\"").count(), 1);
        assert_eq!(texts(&svg, "pass-label"), ["pass ≥ 0.80"]);
        let none = distribution_svg(&[0.5], &[], None);
        assert!(!none.contains("class=\"baseline\"") && !none.contains("pass-label"));
        assert!(none.contains("score 0.5–0.6: 1 sample</title>"));
    }
}
