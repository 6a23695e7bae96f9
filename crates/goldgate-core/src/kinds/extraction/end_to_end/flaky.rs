//! Flaky samples told apart: a pipeline whose answers to some samples flip at random (known
//! rates, seeded by a hash), refreshed twice with `--repeat 5` (ten runs a sample, the
//! first five carried over by the second refresh). `suite stats --flaky` names the flaky
//! samples with their rates, within the binomial error; a candidate identical to the
//! baseline breaks none of them; a real break of a stable sample is still broken; and the
//! paired statistics read every repeat, not only the first.

use std::path::Path;

use serde_json::{json, Value};

use super::scoring::{extraction, store_requirement};
use crate::support::output::text;
use crate::support::project::goldgate;
use crate::support::scoring::write_jsonl;
use crate::support::TempDir;

const SAMPLES: usize = 60;
const REPEATS: usize = 5;

/// Answers every request line: the sample's gold requirements, or a third of them when a
/// hash of `$NONCE`, the id and the repeat falls below the sample's flip rate (`$RATES`, by
/// id); every repeat of a sample in `$BREAK` (comma-separated ids) is cut, and with `$LATER`
/// every repeat after the first of every sample.
const PIPELINE: &str = r#"import hashlib, json, os, sys
rates = json.load(open(os.environ["RATES"]))
gold = json.load(open(os.environ["GOLD"]))
broken = set(filter(None, os.environ.get("BREAK", "").split(",")))
later = os.environ.get("LATER") == "1"
nonce = os.environ["NONCE"]
for line in sys.stdin:
    request = json.loads(line)
    sid, repeat = request["id"], request.get("repeat", 0)
    digest = hashlib.sha256(f"{nonce}:{sid}:{repeat}".encode()).hexdigest()
    u = int(digest[:8], 16) / 2**32
    cut = u < rates[sid] or sid in broken or (later and repeat > 0)
    items = gold[sid][: max(1, len(gold[sid]) // 3)] if cut else gold[sid]
    out = {"id": sid, "repeat": repeat, "output": {"requirements": items}}
    sys.stdout.write(json.dumps(out) + "\n")
    sys.stdout.flush()
"#;

fn gold(i: usize) -> Vec<Value> {
    (0..3 + i % 4).map(|j| store_requirement(i, j)).collect()
}

/// The flip rate of sample `i`: 0.5 for the first ten, 0.2 for the next ten, else none.
fn rate(i: usize) -> f64 {
    match i {
        0..=9 => 0.5,
        10..=19 => 0.2,
        _ => 0.0,
    }
}

fn id(i: usize) -> String {
    format!("s{i:03}")
}

/// `goldgate ARGS` with the pipeline drawing with `nonce`, and `env` added.
fn run(dir: &Path, nonce: &str, args: &[&str], env: &[(&str, &str)]) -> (i32, String) {
    let mut all = args.to_vec();
    all.extend([
        "--command",
        "python3 pipeline.py",
        "--mode",
        "jsonl",
        "--jobs",
        "4",
    ]);
    let rates = dir.join("rates.json");
    let gold = dir.join("gold.json");
    let mut vars = vec![
        ("RATES", rates.to_str().unwrap()),
        ("GOLD", gold.to_str().unwrap()),
        ("NONCE", nonce),
    ];
    vars.extend(env);
    let out = goldgate(dir, &all, &vars);
    (
        out.status.code().unwrap_or(-1),
        format!("{}{}", text(&out.stdout), text(&out.stderr)),
    )
}

fn verdict(dir: &Path, out: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join(out).join("verdict.json")).unwrap())
        .unwrap()
}

fn ids(list: &Value) -> Vec<String> {
    list.as_array()
        .into_iter()
        .flatten()
        .map(|c| c["id"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn flaky_samples_are_named_and_never_counted_as_broken() {
    let tmp = TempDir::new("flaky-acceptance");
    let dir = &tmp.0;
    std::fs::create_dir_all(dir.join("suite")).unwrap();
    let samples: Vec<Value> = (0..SAMPLES).map(|i| extraction(&id(i), gold(i))).collect();
    write_jsonl(&dir.join("suite/samples.jsonl"), &samples);
    let rates: serde_json::Map<String, Value> =
        (0..SAMPLES).map(|i| (id(i), json!(rate(i)))).collect();
    std::fs::write(dir.join("rates.json"), Value::from(rates).to_string()).unwrap();
    let golds: serde_json::Map<String, Value> =
        (0..SAMPLES).map(|i| (id(i), json!(gold(i)))).collect();
    std::fs::write(dir.join("gold.json"), Value::from(golds).to_string()).unwrap();
    std::fs::write(dir.join("pipeline.py"), PIPELINE).unwrap();
    std::fs::write(
        dir.join("thresholds.toml"),
        "version = 1\n\n[metrics.\"extraction.f1\"]\nmax_regression = 0.02\n",
    )
    .unwrap();
    let repeat = REPEATS.to_string();
    let refresh = [
        "baseline", "refresh", "--suite", "suite", "--repeat", &repeat,
    ];
    // Two nightly refreshes of the same pipeline: the second keeps the first's runs.
    for nonce in ["night-1", "night-2"] {
        let (code, said) = run(dir, nonce, &refresh, &[]);
        assert_eq!(code, 0, "{said}");
    }
    let baseline: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("baselines/main.json")).unwrap())
            .unwrap();
    for s in baseline["samples"].as_array().unwrap() {
        assert_eq!(
            s["earlier_runs"].as_array().map_or(0, Vec::len),
            REPEATS,
            "{}",
            s["id"]
        );
    }

    // The flaky samples, with their rates within the binomial error; no stable one among them.
    let out = goldgate(
        dir,
        &["suite", "stats", "suite", "--flaky", "--format", "json"],
        &[],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let flaky = report["flaky"].as_array().unwrap();
    let mut named = 0;
    for f in flaky {
        let i: usize = f["id"].as_str().unwrap()[1..].parse().unwrap();
        let q = rate(i);
        assert!(q > 0.0, "a stable sample named flaky: {f}");
        let runs = f["runs"].as_u64().unwrap() as f64;
        assert_eq!(runs, (2 * REPEATS) as f64);
        let error = 3.0 * (q * (1.0 - q) / runs).sqrt();
        let rate = f["rate"].as_f64().unwrap();
        assert!(
            (rate - (1.0 - q)).abs() <= error,
            "{f}: expected a pass rate of {} ± {error}",
            1.0 - q
        );
        named += 1;
    }
    assert!(
        named >= 17,
        "{named} of the 20 flaky samples named: {report}"
    );
    let table = goldgate(dir, &["suite", "stats", "suite", "--flaky"], &[]);
    let table = text(&table.stdout);
    assert!(
        table.contains(&format!("{named} flaky; stable: ")),
        "{table}"
    );

    // An identical candidate: no sample is broken; the flaky ones that flipped are apart.
    let check = |out: &'static str| {
        [
            "check",
            "--suite",
            "suite",
            "--repeat",
            "5",
            "--no-cache",
            "--out-dir",
            out,
        ]
    };
    let (_, said) = run(dir, "pr-1", &check("out/same"), &[]);
    let same = verdict(dir, "out/same");
    assert_eq!(
        ids(&same["samples"]["broken"]),
        Vec::<String>::new(),
        "{said}"
    );
    assert_eq!(
        ids(&same["samples"]["fixed"]),
        Vec::<String>::new(),
        "{said}"
    );
    for f in ids(&same["samples"]["flaky"]) {
        let i: usize = f[1..].parse().unwrap();
        assert!(rate(i) > 0.0, "{f} is stable: {said}");
    }

    // A real break of a stable sample is broken, and said so; flaky flips stay apart.
    let (_, said) = run(dir, "pr-2", &check("out/break"), &[("BREAK", "s042")]);
    let broke = verdict(dir, "out/break");
    assert_eq!(
        ids(&broke["samples"]["broken"]),
        vec!["s042".to_string()],
        "{said}"
    );
    assert!(said.contains("broken: s042"), "{said}");

    // Every repeat counts: the first repeat as before, the four others cut.
    let (code, said) = run(dir, "pr-3", &check("out/later"), &[("LATER", "1")]);
    assert_eq!(code, 1, "{said}");
    let later = verdict(dir, "out/later");
    let f1 = crate::support::output::metric_row(&later, "extraction.f1");
    assert_eq!(f1["status"], "fail", "{f1}");
}
