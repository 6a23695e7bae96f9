//! What goldgate shows in a browser, end to end, by `node --test tests/e2e/*.test.mjs`
//! against the binary this test run built, in headless Chromium (the system's, driven by
//! Playwright): `goldgate annotate` (the page, and the server over plain HTTP) and the HTML
//! report. Without node, `npm ci --prefix tests/e2e` or Chromium the test says why and
//! skips; CI sets `GOLDGATE_REQUIRE_BROWSER=1`, and then it fails.

use std::path::Path;
use std::process::Command;

/// Why the e2e suite cannot run on this machine, if it cannot.
fn missing(root: &Path, chromium: &str) -> Option<String> {
    if Command::new("node").arg("--version").output().is_err() {
        return Some("node is not installed".into());
    }
    if !root.join("tests/e2e/node_modules/playwright-core").is_dir() {
        return Some("tests/e2e/node_modules is missing (run `npm ci --prefix tests/e2e`)".into());
    }
    if !Path::new(chromium).is_file() {
        return Some(format!(
            "Chromium is not installed at {chromium} (apt-get install chromium, or set CHROMIUM)"
        ));
    }
    None
}

#[test]
fn annotate_and_the_html_report_end_to_end_in_chromium() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let chromium = std::env::var("CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
    if let Some(why) = missing(root, &chromium) {
        assert!(
            std::env::var_os("GOLDGATE_REQUIRE_BROWSER").is_none(),
            "GOLDGATE_REQUIRE_BROWSER is set but the browser tests cannot run: {why}"
        );
        eprintln!("skipped: the browser tests (annotate, the HTML report): {why}");
        return;
    }
    let mut files: Vec<String> = std::fs::read_dir(root.join("tests/e2e"))
        .expect("tests/e2e")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|name| name.ends_with(".test.mjs"))
        .map(|name| format!("tests/e2e/{name}"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no tests/e2e/*.test.mjs");
    let out = Command::new("node")
        .arg("--test")
        .arg("--test-reporter=spec")
        .args(&files)
        .current_dir(root)
        .env("GOLDGATE_BIN", env!("CARGO_BIN_EXE_goldgate"))
        .env("CHROMIUM", &chromium)
        .output()
        .expect("node runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "node --test tests/e2e/*.test.mjs failed ({}):\n{stdout}\n{stderr}",
        out.status
    );
}
