//! How every report tells a sequential check (`check --sequential`): when it was decided
//! and what the calls not made would have cost, which rules decided the stop (or kept the
//! run going to the end), the sending order's seed, and that the fixed and broken samples
//! are those of the samples that ran. Plain sentences; each report escapes them its way.

use goldgate_core::gate::sequential::report::{QuestionReport, SequentialReport};
use goldgate_core::gate::verdict::Verdict;
use goldgate_core::number::usd;

/// The sentences of a sequential check, the headline first (none for any other check).
pub fn lines(v: &Verdict) -> Vec<String> {
    let Some(s) = &v.sequential else {
        return Vec::new();
    };
    let mut out = vec![headline(s)];
    let deciding = s.deciding();
    if s.stopped_early && !deciding.is_empty() {
        let list: Vec<String> = deciding.iter().map(|q| decided(q)).collect();
        out.push(format!("Decided the stop: {}.", list.join("; ")));
    } else if !s.stopped_early {
        let open: Vec<String> = s
            .undecided()
            .iter()
            .map(|q| match &q.waits {
                Some(why) => format!("{} ({why})", q.question),
                None => q.question.clone(),
            })
            .collect();
        if !open.is_empty() {
            out.push(format!("Kept every sample running: {}.", open.join("; ")));
        }
    }
    out.push(format!(
        "Samples sent in a random order within each kind and task, seeded by the pipeline fingerprint (seed {}, rules tested every {} samples){}.",
        s.seed,
        s.batch,
        match s.cached {
            0 => String::new(),
            n => format!("; {n} answered from the cache first"),
        }
    ));
    if s.stopped_early {
        let listed = match v.samples.is_some() {
            true => ", intervals and the fixed and broken samples",
            false => " and intervals",
        };
        out.push(format!(
            "The values{listed} shown are those of the {} samples that ran: partial; each rule's status is the full suite's.",
            s.samples - s.not_needed.len()
        ));
    }
    out
}

/// "Decided after 120 of 400 samples: 280 calls not made (≈ $1.40 at the baseline's cost
/// per call)", or that every sample was needed.
pub fn headline(s: &SequentialReport) -> String {
    if !s.stopped_early {
        return format!(
            "Sequential check: every one of the {} samples was needed for the verdict.",
            s.samples
        );
    }
    let cost = s.cost_not_spent_usd.map_or_else(String::new, |c| {
        format!(" (≈ {} at the baseline's cost per call)", usd(c))
    });
    format!(
        "Decided after {} of {} samples: {} not made{cost}; the samples not sent are not needed, not missing.",
        s.answered,
        s.samples,
        match s.calls_not_made {
            1 => "1 call".to_string(),
            n => format!("{n} calls"),
        }
    )
}

/// `extraction.f1 Δ ≤ 0.02 (baseline 0.9777) breaks, at 118 samples`.
fn decided(q: &QuestionReport) -> String {
    let at = q
        .decided_at
        .map_or_else(String::new, |n| format!(", at {n} samples"));
    format!("{} {}{at}", q.question, q.outcome)
}

/// A sequential check that stopped before its verdict (at its budget, interrupted): the
/// rules decided so far and those still open, for the terminal.
pub fn undecided(s: &SequentialReport) -> String {
    let (done, open): (Vec<&QuestionReport>, Vec<&QuestionReport>) = s
        .questions
        .iter()
        .partition(|q| matches!(q.outcome.as_str(), "holds" | "breaks"));
    let list = |qs: &[&QuestionReport]| match qs.is_empty() {
        true => "none".to_string(),
        false => qs.iter().map(|q| decided(q)).collect::<Vec<_>>().join("; "),
    };
    format!(
        "sequential check stopped after {} of {} samples, before every rule was decided\n  decided so far: {}\n  still open: {}\n",
        s.answered,
        s.samples,
        list(&done),
        list(&open)
    )
}
