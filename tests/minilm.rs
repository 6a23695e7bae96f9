//! The `minilm` backend. With the real all-MiniLM-L6-v2 (its directory in
//! `GOLDGATE_MINILM_DIR`, as `scripts/fetch-minilm.sh` installs it): a megabyte of text,
//! and opening the model; its agreement with sentence-transformers is `minilm_agreement`'s.
//! Without the model those tests say why they are skipped and pass, unless
//! `GOLDGATE_REQUIRE_MINILM` is set (CI sets both). Everywhere, on a tiny model the tests
//! write (tests/support/tiny_bert.rs): the errors of a missing, incomplete, damaged or
//! mismatched model, the pipeline's invariants (order, padding, truncation), and finding a
//! model in, or downloading it into, the Hugging Face cache.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use goldgate::Error;
use goldgate_core::embed::Embedder;
use goldgate_embed::minilm::locate::Hub;
use goldgate_embed::minilm::MiniLm;

use crate::minilm_agreement::fixture;
use crate::support::mock_http::{MockServer, Response};
use crate::support::tiny_bert;
use crate::support::TempDir;

/// The real model's directory; `None` (after saying why) when `GOLDGATE_MINILM_DIR` is
/// unset and `GOLDGATE_REQUIRE_MINILM` is not.
pub(crate) fn real_model_dir(test: &str) -> Option<String> {
    let dir = std::env::var_os("GOLDGATE_MINILM_DIR").filter(|d| !d.is_empty());
    if dir.is_none() {
        assert!(
            std::env::var_os("GOLDGATE_REQUIRE_MINILM").is_none(),
            "GOLDGATE_REQUIRE_MINILM is set but GOLDGATE_MINILM_DIR is not: run `export GOLDGATE_MINILM_DIR=$(bash scripts/fetch-minilm.sh)`"
        );
        eprintln!(
            "{test}: skipped, GOLDGATE_MINILM_DIR is not set (export GOLDGATE_MINILM_DIR=$(bash scripts/fetch-minilm.sh) to run it)"
        );
    }
    Some(dir?.to_string_lossy().into_owned())
}

/// The real model, loaded once for every test here (on the default forward pass); `None`
/// as [`real_model_dir`].
pub(crate) fn real_model(test: &str) -> Option<&'static MiniLm> {
    static MODEL: OnceLock<MiniLm> = OnceLock::new();
    let dir = real_model_dir(test)?;
    Some(MODEL.get_or_init(|| {
        MiniLm::open(&dir)
            .unwrap_or_else(|e| panic!("GOLDGATE_MINILM_DIR does not hold a usable model: {e}"))
    }))
}

pub(crate) fn cosine(a: &[f32], b: &[f32]) -> f64 {
    let (mut ab, mut aa, mut bb) = (0f64, 0f64, 0f64);
    for (x, y) in a.iter().zip(b) {
        let (x, y) = (*x as f64, *y as f64);
        ab += x * y;
        aa += x * x;
        bb += y * y;
    }
    if aa == 0.0 || bb == 0.0 {
        return 0.0;
    }
    ab / (aa.sqrt() * bb.sqrt())
}

/// A megabyte of words.
pub(crate) fn megabyte() -> String {
    let sentence = "The system shall lock the account after five failed login attempts, and an administrator can unlock it. ";
    sentence.repeat((1 << 20) / sentence.len() + 1)
}

#[test]
fn a_megabyte_of_text_is_cut_to_its_first_tokens_quickly() {
    let Some(model) = real_model("a_megabyte_of_text_is_cut_to_its_first_tokens_quickly") else {
        return;
    };
    let text = megabyte();
    let max = model.files().max_seq_length;
    // Loaded before the clock starts: the time is the tokenizer's alone.
    model.tokenizer().unwrap();
    let clock = std::time::Instant::now();
    let ids = model.token_ids(&text).unwrap();
    let took = clock.elapsed();
    assert_eq!(ids.len(), max);
    assert!(took.as_secs_f64() < 1.0, "tokenising took {took:?}");
    // Exactly the ids of the whole text, and the vector of those ids.
    let tokenizer = model.tokenizer().unwrap();
    assert_eq!(tokenizer.encode_with_bound(&text, usize::MAX).unwrap(), ids);
    let whole = model.embed(&[&text]).unwrap();
    let of_ids = model.embed_ids(&[ids]).unwrap();
    assert!(cosine(&whole[0], &of_ids[0]) > 1.0 - 1e-6);
    // A megabyte without whitespace: Chinese and punctuation are word boundaries too, so
    // it is as quick; one endless word has none and is read whole (about half a second in a
    // release build), still exactly.
    let chinese = "系统必须在五分钟内更新订单状态。".repeat((1 << 20) / 48);
    let punctuated = "lock,the,account;after:five(failed)attempts.".repeat((1 << 20) / 44);
    let word = "x".repeat(1 << 20);
    for (text, tokens, seconds) in [
        (&chinese, max, 1.0),
        (&punctuated, max, 1.0),
        (&word, 3, 20.0),
    ] {
        let clock = std::time::Instant::now();
        assert_eq!(model.token_ids(text).unwrap().len(), tokens);
        let took = clock.elapsed();
        assert!(took.as_secs_f64() < seconds, "tokenising took {took:?}");
    }
    // The same holds for the fixture's long and non-ASCII texts, with a small first prefix,
    // and for whitespace BERT deletes (VT, FF, NEL join words) and Chinese next to Japanese.
    let (mut texts, _) = fixture();
    texts.push("lock\u{b}the\u{c}account\u{85}after five\u{2028}failed tries ".repeat(40));
    texts.push("系统必须锁定账户。アカウントをロックする。Ünïcödé 系统 ".repeat(40));
    for text in &texts {
        for bound in [1, 7, 100] {
            assert_eq!(
                tokenizer.encode_with_bound(text, bound).unwrap(),
                tokenizer.encode_with_bound(text, usize::MAX).unwrap(),
                "{text:?} from a prefix of {bound} bytes"
            );
        }
    }
}

#[test]
fn opening_the_real_model_is_cheap() {
    let Some(model) = real_model("opening_the_real_model_is_cheap") else {
        return;
    };
    let dir = model.files().dir.clone();
    let clock = std::time::Instant::now();
    let again = MiniLm::open(&dir.to_string_lossy()).unwrap();
    let took = clock.elapsed();
    eprintln!("MiniLm::open: {took:?}");
    assert_eq!(again.identity().fingerprint, model.identity().fingerprint);
    assert_eq!(again.identity().backend, "minilm");
}

// ---------------------------------------------------------------------------------------
// The tiny model.

pub(crate) fn tiny(name: &str) -> (TempDir, PathBuf) {
    let temp = TempDir::new(name);
    let dir = temp.0.join("model");
    tiny_bert::write(&dir);
    (temp, dir)
}

pub(crate) fn open(dir: &Path) -> goldgate_core::error::Result<MiniLm> {
    MiniLm::open_with(&dir.to_string_lossy(), &offline_hub(dir))
}

fn offline_hub(dir: &Path) -> Hub {
    Hub {
        cache: dir.join("no-hub-cache"),
        offline: true,
        endpoint: None,
    }
}

/// The error's text, asserting it is one goldgate reports (not a bug).
pub(crate) fn message(e: Error) -> String {
    assert!(
        !matches!(e, Error::Internal { .. }),
        "an internal error instead of a clear one: {e}"
    );
    e.to_string()
}

#[test]
fn the_tiny_model_embeds_in_order_without_padding_effects() {
    let (_temp, dir) = tiny("minilm-tiny");
    let model = open(&dir).unwrap();
    let texts = [
        "the account",
        "",
        "   \t ",
        "lock the account after five failed login attempts and then some more words here",
        "order status",
        "the account",
    ];
    let together = model.embed(&texts).unwrap();
    assert_eq!(together.len(), texts.len());
    for (text, vector) in texts.iter().zip(&together) {
        assert_eq!(vector.len(), tiny_bert::HIDDEN);
        let norm: f32 = vector.iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-5, "{text:?} has norm {norm}");
        // Alone (no padding) and in a batch with longer texts give the same vector.
        let alone = model.embed(&[text]).unwrap();
        assert!(cosine(&alone[0], vector) > 1.0 - 1e-6, "{text:?}");
    }
    assert_eq!(together[0], together[5]);
    assert!(cosine(&together[0], &together[4]) < 0.9999);
    // Empty and whitespace-only texts are [CLS] [SEP], like sentence-transformers.
    assert_eq!(model.token_ids("").unwrap(), vec![2, 3]);
    assert_eq!(model.token_ids(" \t\n ").unwrap(), vec![2, 3]);
    assert_eq!(together[1], together[2]);
    assert!(model.embed(&[]).unwrap().is_empty());
}

#[test]
fn the_tiny_model_truncates_a_megabyte_of_text() {
    let (_temp, dir) = tiny("minilm-tiny-long");
    let model = open(&dir).unwrap();
    let text = megabyte();
    let ids = model.token_ids(&text).unwrap();
    assert_eq!(ids.len(), tiny_bert::MAX_SEQ);
    assert_eq!((ids[0], ids[tiny_bert::MAX_SEQ - 1]), (2, 3));
    let prefix = "The system shall lock the account after five failed login attempts";
    let short_ids = model.token_ids(prefix).unwrap();
    assert_eq!(
        ids[..tiny_bert::MAX_SEQ - 1],
        short_ids[..tiny_bert::MAX_SEQ - 1]
    );
    let whole = model.embed(&[&text]).unwrap();
    let first = model.embed(&[prefix]).unwrap();
    assert!(cosine(&whole[0], &first[0]) > 1.0 - 1e-6);
    // A megabyte without whitespace is one word: read whole, still no panic.
    let word = "x".repeat(1 << 20);
    assert_eq!(model.token_ids(&word).unwrap(), vec![2, 1, 3]);
}

#[test]
fn a_missing_model_directory_is_a_clear_error() {
    let temp = TempDir::new("minilm-missing");
    let missing = temp.0.join("no-such-model");
    let text = message(open(&missing).err().unwrap());
    assert!(text.contains("no-such-model"), "{text}");
    assert!(text.contains("fetch-minilm.sh"), "{text}");
}

#[test]
fn a_directory_without_its_tokenizer_is_a_clear_error() {
    let (_temp, dir) = tiny("minilm-no-tokenizer");
    std::fs::remove_file(dir.join("tokenizer.json")).unwrap();
    let text = message(open(&dir).err().unwrap());
    assert!(text.contains("tokenizer.json"), "{text}");
    assert!(text.contains("has no tokenizer.json"), "{text}");
}

#[test]
fn a_truncated_weights_file_is_a_clear_error_at_first_use() {
    let (_temp, dir) = tiny("minilm-truncated");
    let weights = dir.join("model.safetensors");
    let bytes = std::fs::read(&weights).unwrap();
    for keep in [bytes.len() / 2, 100, 3] {
        std::fs::write(&weights, &bytes[..keep]).unwrap();
        // Opening reads no weights; the first embedding does, and says what is wrong.
        let model = open(&dir).unwrap();
        let text = message(model.embed(&["the account"]).err().unwrap());
        assert!(text.contains("model.safetensors"), "{text}");
        assert!(text.contains("fetch-minilm.sh"), "{text}");
    }
}

#[test]
fn a_tokenizer_larger_than_the_models_vocabulary_is_a_mismatch() {
    let (_temp, dir) = tiny("minilm-vocab");
    let small = tiny_bert::vocab().len() - 10;
    let config = tiny_bert::config_json(small, tiny_bert::HIDDEN);
    std::fs::write(dir.join("config.json"), config.to_string()).unwrap();
    let model = open(&dir).unwrap();
    let text = message(model.embed(&["the account"]).err().unwrap());
    assert!(text.contains("tokenizer.json"), "{text}");
    assert!(text.contains(&format!("vocab_size is {small}")), "{text}");
}

#[test]
fn weights_of_other_shapes_than_the_config_says_are_a_mismatch() {
    let (_temp, dir) = tiny("minilm-shapes");
    // Wider and narrower than the weights.
    for hidden in [64, 12] {
        let config = tiny_bert::config_json(tiny_bert::vocab().len(), hidden);
        std::fs::write(dir.join("config.json"), config.to_string()).unwrap();
        std::fs::write(
            dir.join("1_Pooling/config.json"),
            format!(
                r#"{{"word_embedding_dimension": {hidden}, "pooling_mode_mean_tokens": true}}"#
            ),
        )
        .unwrap();
        let model = open(&dir).unwrap();
        let text = message(model.embed(&["the account"]).err().unwrap());
        assert!(text.contains("model.safetensors"), "{text}");
        assert!(text.contains("do not match config.json"), "{text}");
    }
}

#[test]
fn damaged_configuration_files_are_clear_errors() {
    let (_temp, dir) = tiny("minilm-damaged");
    let config = std::fs::read_to_string(dir.join("config.json")).unwrap();
    std::fs::write(dir.join("config.json"), &config[..config.len() / 2]).unwrap();
    let text = message(open(&dir).err().unwrap());
    assert!(text.contains("config.json:"), "{text}");

    let (_temp, dir) = tiny("minilm-damaged-tokenizer");
    std::fs::write(
        dir.join("tokenizer.json"),
        "{\"version\": \"1.0\", \"model\": 3}",
    )
    .unwrap();
    let model = open(&dir).unwrap();
    let text = message(model.embed(&["the account"]).err().unwrap());
    assert!(text.contains("tokenizer.json"), "{text}");

    let (_temp, dir) = tiny("minilm-pooling");
    std::fs::write(
        dir.join("1_Pooling/config.json"),
        r#"{"word_embedding_dimension": 32, "pooling_mode_cls_token": true, "pooling_mode_mean_tokens": false}"#,
    )
    .unwrap();
    let text = message(open(&dir).err().unwrap());
    assert!(text.contains("pooling_mode_cls_token"), "{text}");
    assert!(text.contains("mean pooling only"), "{text}");

    let (_temp, dir) = tiny("minilm-modules");
    std::fs::write(
        dir.join("modules.json"),
        r#"[{"path": "", "type": "sentence_transformers.models.Transformer"},
            {"path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
            {"path": "2_Dense", "type": "sentence_transformers.models.Dense"}]"#,
    )
    .unwrap();
    let text = message(open(&dir).err().unwrap());
    assert!(text.contains("Transformer → Pooling → Dense"), "{text}");
}

#[test]
fn the_fingerprint_follows_the_files_that_decide_the_vectors() {
    let (_temp, dir) = tiny("minilm-fingerprint");
    let first = open(&dir).unwrap().identity().clone();
    assert_eq!(first.backend, "minilm");
    assert_eq!(first.fingerprint.len(), 64);
    assert_eq!(
        open(&dir).unwrap().identity().fingerprint,
        first.fingerprint
    );
    // Files that do not decide the vectors do not count.
    std::fs::write(dir.join("README.md"), "notes").unwrap();
    assert_eq!(
        open(&dir).unwrap().identity().fingerprint,
        first.fingerprint
    );
    std::fs::write(
        dir.join("sentence_bert_config.json"),
        r#"{"max_seq_length": 12, "do_lower_case": false}"#,
    )
    .unwrap();
    assert_ne!(
        open(&dir).unwrap().identity().fingerprint,
        first.fingerprint
    );
}

/// Lay the tiny model out as the Hugging Face cache does: refs/main names a snapshot.
fn hub_cache(cache: &Path, id: &str) {
    let repo = cache.join(format!("models--{}", id.replace('/', "--")));
    std::fs::create_dir_all(repo.join("refs")).unwrap();
    std::fs::write(repo.join("refs/main"), "0123abcd").unwrap();
    tiny_bert::write(&repo.join("snapshots/0123abcd"));
}

#[test]
fn a_hub_id_in_the_cache_opens_offline() {
    let temp = TempDir::new("minilm-hub-cache");
    let cache = temp.0.join("hub");
    hub_cache(&cache, "someone/tiny-bert");
    let hub = Hub {
        cache: cache.clone(),
        offline: true,
        endpoint: Some("http://127.0.0.1:9".into()),
    };
    let model = MiniLm::open_with("someone/tiny-bert", &hub).unwrap();
    assert!(model.files().dir.starts_with(&cache));
    assert_eq!(model.identity().model, "someone/tiny-bert");
    assert_eq!(
        model.embed(&["the account"]).unwrap()[0].len(),
        tiny_bert::HIDDEN
    );
}

#[test]
fn a_hub_id_missing_offline_names_the_cache_and_the_offline_way() {
    let temp = TempDir::new("minilm-offline");
    let hub = Hub {
        cache: temp.0.join("hub"),
        offline: true,
        endpoint: None,
    };
    let e = MiniLm::open_with("sentence-transformers/all-MiniLM-L6-v2", &hub)
        .err()
        .unwrap();
    assert_eq!(e.exit(), goldgate::Exit::Incomplete);
    let text = message(e);
    assert!(
        text.contains(&temp.0.join("hub").display().to_string()),
        "{text}"
    );
    assert!(text.contains("HF_HUB_OFFLINE"), "{text}");
    assert!(text.contains("scripts/fetch-minilm.sh DIR"), "{text}");
    assert!(text.contains("[matching] model = \"DIR\""), "{text}");
}

/// A fake hub serving the tiny model's files the way the Hugging Face hub does (ranges,
/// the commit and etag headers), counting requests.
fn fake_hub(files: &Path) -> (MockServer, Arc<Mutex<Vec<String>>>) {
    let (files, seen) = (files.to_path_buf(), Arc::new(Mutex::new(Vec::new())));
    let log = seen.clone();
    let server = MockServer::start(move |request| {
        log.lock().unwrap().push(request.target.clone());
        let Some(name) = request
            .target
            .strip_prefix("/someone/tiny-bert/resolve/main/")
        else {
            return Response::new("404 Not Found", "no such repository");
        };
        let Ok(bytes) = std::fs::read(files.join(name)) else {
            return Response::new("404 Not Found", "no such file");
        };
        let range = request
            .header("range")
            .and_then(|r| r.strip_prefix("bytes="))
            .and_then(|r| r.split_once('-'))
            .and_then(|(a, b)| Some((a.parse::<usize>().ok()?, b.parse::<usize>().ok()?)));
        let (start, stop) = range.unwrap_or((0, bytes.len() - 1));
        let stop = stop.min(bytes.len() - 1);
        Response::new("206 Partial Content", bytes[start..=stop].to_vec())
            .with_header(
                "Content-Range",
                &format!("bytes {start}-{stop}/{}", bytes.len()),
            )
            .with_header("ETag", &format!("\"etag-{}\"", name.replace('/', "-")))
            .with_header("X-Repo-Commit", "feedc0de")
    });
    (server, seen)
}

#[test]
fn a_hub_id_not_in_the_cache_is_downloaded_once() {
    let temp = TempDir::new("minilm-download");
    let files = temp.0.join("served");
    tiny_bert::write(&files);
    let (server, seen) = fake_hub(&files);
    let hub = Hub {
        cache: temp.0.join("hub"),
        offline: false,
        endpoint: Some(server.url("").trim_end_matches('/').to_string()),
    };
    let model = MiniLm::open_with("someone/tiny-bert", &hub).unwrap();
    assert!(model.files().dir.starts_with(temp.0.join("hub")));
    let served = open(&files).unwrap();
    assert_eq!(model.identity().fingerprint, served.identity().fingerprint);
    assert_eq!(
        model.embed(&["the account"]).unwrap(),
        served.embed(&["the account"]).unwrap()
    );
    let requests = seen.lock().unwrap().len();
    assert!(requests >= 6, "{:?}", seen.lock().unwrap());
    // Cached now: opening again makes no request, online or not.
    MiniLm::open_with("someone/tiny-bert", &hub).unwrap();
    assert_eq!(seen.lock().unwrap().len(), requests);
}

#[test]
fn a_failed_download_names_the_cache_and_the_offline_way() {
    let temp = TempDir::new("minilm-download-fails");
    let (server, _) = fake_hub(&temp.0.join("nothing-served"));
    let hub = Hub {
        cache: temp.0.join("hub"),
        offline: false,
        endpoint: Some(server.url("").trim_end_matches('/').to_string()),
    };
    let text = message(MiniLm::open_with("someone/tiny-bert", &hub).err().unwrap());
    assert!(text.contains("config.json"), "{text}");
    assert!(text.contains("scripts/fetch-minilm.sh DIR"), "{text}");
    assert!(
        text.contains(&temp.0.join("hub").display().to_string()),
        "{text}"
    );
}
