//! Metric code checked against independent implementations: expected values in
//! `tests/fixtures/metrics/*.json` come from scikit-learn, SciPy and statsmodels
//! (`tests/fixtures/metrics/generate.py` regenerates them).

use std::collections::BTreeSet;

use goldgate_core::metrics::agreement::{cohen_kappa, fleiss_kappa};
use goldgate_core::metrics::calibration::Bins;
use goldgate_core::metrics::matching::assign;
use goldgate_core::metrics::{f1, precision, recall, set_counts};
use serde_json::Value;

const TOLERANCE: f64 = 1e-12;

fn fixture(name: &str) -> Value {
    let path = format!(
        "{}/tests/fixtures/metrics/{name}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

fn cases(name: &str) -> Vec<Value> {
    fixture(name)["cases"].as_array().unwrap().clone()
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap().to_string())
        .collect()
}

fn floats(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}

fn close(actual: f64, expected: f64, what: &str) {
    assert!(
        (actual - expected).abs() <= TOLERANCE,
        "{what}: got {actual}, expected {expected}"
    );
}

#[test]
fn cohen_kappa_matches_sklearn() {
    let all = cases("kappa");
    assert!(all.len() >= 60);
    for case in &all {
        let k = cohen_kappa(&strings(&case["a"]), &strings(&case["b"])).unwrap();
        close(
            k,
            case["kappa"].as_f64().unwrap(),
            case["name"].as_str().unwrap(),
        );
    }
    let spec = all
        .iter()
        .find(|c| strings(&c["a"]) == ["1", "1", "0", "1", "0", "1", "1", "0"])
        .unwrap();
    assert_eq!(
        format!(
            "{:.4}",
            cohen_kappa(&strings(&spec["a"]), &strings(&spec["b"])).unwrap()
        ),
        "0.4667"
    );
}

#[test]
fn kappa_is_one_when_chance_agreement_is_one() {
    for case in fixture("kappa")["degenerate"].as_array().unwrap() {
        assert_eq!(
            cohen_kappa(&strings(&case["a"]), &strings(&case["b"])),
            Some(1.0)
        );
    }
}

#[test]
fn calibration_matches_sklearn_brier_and_reference_ece() {
    let all = cases("calibration");
    assert!(all.iter().any(|c| floats(&c["conf"]).contains(&0.1)));
    for case in &all {
        let name = case["name"].as_str().unwrap();
        let mut bins = Bins::default();
        for (c, y) in floats(&case["conf"])
            .into_iter()
            .zip(case["correct"].as_array().unwrap())
        {
            bins.add(c, y.as_u64().unwrap() == 1);
        }
        close(
            bins.brier().unwrap(),
            case["brier"].as_f64().unwrap(),
            &format!("{name} brier"),
        );
        close(
            bins.ece().unwrap(),
            case["ece"].as_f64().unwrap(),
            &format!("{name} ece"),
        );
        close(
            bins.mce().unwrap(),
            case["mce"].as_f64().unwrap(),
            &format!("{name} mce"),
        );
    }
}

#[test]
fn micro_set_prf_matches_sklearn() {
    for case in cases("set_prf") {
        let name = case["name"].as_str().unwrap();
        let (mut tp, mut fp, mut fn_) = (0usize, 0usize, 0usize);
        for (g, p) in case["gold"]
            .as_array()
            .unwrap()
            .iter()
            .zip(case["pred"].as_array().unwrap())
        {
            let g: BTreeSet<String> = strings(g).into_iter().collect();
            let p: BTreeSet<String> = strings(p).into_iter().collect();
            let (a, b, c) = set_counts(&g, &p);
            (tp, fp, fn_) = (tp + a, fp + b, fn_ + c);
        }
        let (p, r) = (
            precision(tp as f64, fp as f64, fn_ as f64),
            recall(tp as f64, fp as f64, fn_ as f64),
        );
        close(
            p,
            case["precision"].as_f64().unwrap(),
            &format!("{name} precision"),
        );
        close(
            r,
            case["recall"].as_f64().unwrap(),
            &format!("{name} recall"),
        );
        close(
            f1(p, r),
            case["f1"].as_f64().unwrap(),
            &format!("{name} f1"),
        );
    }
}

#[test]
fn assignment_matches_scipy_linear_sum_assignment() {
    let all = cases("assignment");
    assert!(all.len() >= 40);
    for case in all {
        let name = case["name"].as_str().unwrap();
        let sim: Vec<Vec<Option<f64>>> = case["sim"]
            .as_array()
            .unwrap()
            .iter()
            .zip(case["eligible"].as_array().unwrap())
            .map(|(s, e)| {
                floats(s)
                    .into_iter()
                    .zip(e.as_array().unwrap())
                    .map(|(s, e)| e.as_bool().unwrap().then_some(s))
                    .collect()
            })
            .collect();
        let pairs = assign(&sim);
        assert_eq!(
            pairs.len() as u64,
            case["matches"].as_u64().unwrap(),
            "{name}: number of matches"
        );
        let total: f64 = pairs.iter().map(|p| p.similarity).sum();
        assert!(
            (total - case["total_similarity"].as_f64().unwrap()).abs() < 1e-9,
            "{name}: total {total}"
        );
        let rows: BTreeSet<usize> = pairs.iter().map(|p| p.gold).collect();
        let cols: BTreeSet<usize> = pairs.iter().map(|p| p.pred).collect();
        assert!(
            rows.len() == pairs.len() && cols.len() == pairs.len(),
            "{name}: not one-to-one"
        );
    }
}

#[test]
fn fleiss_kappa_matches_statsmodels() {
    for case in cases("fleiss") {
        let ratings: Vec<Vec<String>> = case["ratings"]
            .as_array()
            .unwrap()
            .iter()
            .map(strings)
            .collect();
        close(
            fleiss_kappa(&ratings).unwrap(),
            case["kappa"].as_f64().unwrap(),
            case["name"].as_str().unwrap(),
        );
    }
}
