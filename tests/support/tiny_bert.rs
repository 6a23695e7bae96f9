//! A tiny sentence-transformers BERT written by the tests themselves (hidden size 32, two
//! heads, one layer, a vocabulary of letters and a few words, seeded pseudo-random
//! weights), so the `minilm` backend's loading, errors and pipeline are tested on any
//! machine, without the real model. Its widths are whole AVX-512 vectors but not whole
//! kernel tiles (48 intermediate units: the edges are tested too); [`Variant`]s are
//! narrower (heads of 6) or use another activation, and [`super::reference_bert`] computes
//! what each must give.

use std::path::Path;

use serde_json::{json, Value};

/// The tiny model's dimensions.
pub const HIDDEN: usize = 32;
pub const INTERMEDIATE: usize = 48;
pub const POSITIONS: usize = 64;
/// `max_seq_length` of its `sentence_bert_config.json`.
pub const MAX_SEQ: usize = 16;

/// The vocabulary: special tokens, some words, letters and their continuations, punctuation.
pub fn vocab() -> Vec<String> {
    let mut v: Vec<String> = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    for word in [
        "the", "account", "lock", "after", "five", "failed", "login", "attempts", "order", "status",
    ] {
        v.push(word.into());
    }
    for c in 'a'..='z' {
        v.push(c.to_string());
        v.push(format!("##{c}"));
    }
    for p in [".", ",", "!", "?", "-"] {
        v.push(p.into());
    }
    v
}

/// `tokenizer.json`: BERT normalisation (lower-casing), WordPiece, `[CLS] … [SEP]`, and the
/// 128-token truncation and padding the real file carries (which sentence-transformers
/// overrides).
pub fn tokenizer_json() -> Value {
    let vocab = vocab();
    let ids: serde_json::Map<String, Value> = vocab
        .iter()
        .enumerate()
        .map(|(i, t)| (t.clone(), json!(i)))
        .collect();
    let added: Vec<Value> = vocab[..5]
        .iter()
        .enumerate()
        .map(|(i, t)| {
            json!({"id": i, "special": true, "content": t, "single_word": false,
                   "lstrip": false, "rstrip": false, "normalized": false})
        })
        .collect();
    json!({
        "version": "1.0",
        "truncation": {"max_length": 128, "strategy": "LongestFirst", "stride": 0},
        "padding": {"strategy": {"Fixed": 128}, "direction": "Right", "pad_to_multiple_of": null,
                    "pad_id": 0, "pad_type_id": 0, "pad_token": "[PAD]"},
        "added_tokens": added,
        "normalizer": {"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true,
                       "strip_accents": null, "lowercase": true},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}},
                       {"Sequence": {"id": "A", "type_id": 0}},
                       {"SpecialToken": {"id": "[SEP]", "type_id": 0}}],
            "pair": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}},
                     {"Sequence": {"id": "A", "type_id": 0}},
                     {"SpecialToken": {"id": "[SEP]", "type_id": 0}},
                     {"Sequence": {"id": "B", "type_id": 1}},
                     {"SpecialToken": {"id": "[SEP]", "type_id": 1}}],
            "special_tokens": {
                "[CLS]": {"id": "[CLS]", "ids": [2], "tokens": ["[CLS]"]},
                "[SEP]": {"id": "[SEP]", "ids": [3], "tokens": ["[SEP]"]}
            }
        },
        "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": true},
        "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                  "max_input_chars_per_word": 100, "vocab": ids}
    })
}

/// The shape and activation of a tiny model.
#[derive(Clone, Copy, Debug)]
pub struct Variant {
    pub hidden: usize,
    pub heads: usize,
    /// `hidden_act`.
    pub act: &'static str,
}

impl Variant {
    /// The tiny model [`write`] writes.
    pub const DEFAULT: Variant = Variant {
        hidden: HIDDEN,
        heads: 2,
        act: "gelu",
    };
}

/// `config.json` for a vocabulary of `vocab_size` tokens and hidden size `hidden`.
pub fn config_json(vocab_size: usize, hidden: usize) -> Value {
    config_json_of(
        vocab_size,
        Variant {
            hidden,
            ..Variant::DEFAULT
        },
    )
}

/// `config.json` of `variant`.
pub fn config_json_of(vocab_size: usize, variant: Variant) -> Value {
    json!({
        "architectures": ["BertModel"],
        "attention_probs_dropout_prob": 0.1,
        "hidden_act": variant.act,
        "hidden_dropout_prob": 0.1,
        "hidden_size": variant.hidden,
        "initializer_range": 0.02,
        "intermediate_size": INTERMEDIATE,
        "layer_norm_eps": 1e-12,
        "max_position_embeddings": POSITIONS,
        "model_type": "bert",
        "num_attention_heads": variant.heads,
        "num_hidden_layers": 1,
        "pad_token_id": 0,
        "position_embedding_type": "absolute",
        "type_vocab_size": 2,
        "vocab_size": vocab_size
    })
}

/// Every tensor BERT reads, with its shape, filled from a seeded generator.
pub fn tensors(vocab_size: usize, hidden: usize) -> Vec<(String, Vec<usize>, Vec<f32>)> {
    let (h, i) = (hidden, INTERMEDIATE);
    let mut shapes: Vec<(String, Vec<usize>)> = vec![
        (
            "embeddings.word_embeddings.weight".into(),
            vec![vocab_size, h],
        ),
        (
            "embeddings.position_embeddings.weight".into(),
            vec![POSITIONS, h],
        ),
        ("embeddings.token_type_embeddings.weight".into(), vec![2, h]),
        ("embeddings.LayerNorm.weight".into(), vec![h]),
        ("embeddings.LayerNorm.bias".into(), vec![h]),
    ];
    let layer = "encoder.layer.0";
    for (name, shape) in [
        ("attention.self.query.weight", vec![h, h]),
        ("attention.self.query.bias", vec![h]),
        ("attention.self.key.weight", vec![h, h]),
        ("attention.self.key.bias", vec![h]),
        ("attention.self.value.weight", vec![h, h]),
        ("attention.self.value.bias", vec![h]),
        ("attention.output.dense.weight", vec![h, h]),
        ("attention.output.dense.bias", vec![h]),
        ("attention.output.LayerNorm.weight", vec![h]),
        ("attention.output.LayerNorm.bias", vec![h]),
        ("intermediate.dense.weight", vec![i, h]),
        ("intermediate.dense.bias", vec![i]),
        ("output.dense.weight", vec![h, i]),
        ("output.dense.bias", vec![h]),
        ("output.LayerNorm.weight", vec![h]),
        ("output.LayerNorm.bias", vec![h]),
    ] {
        shapes.push((format!("{layer}.{name}"), shape));
    }
    let mut seed = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed >> 40) as f32 / (1u64 << 24) as f32 - 0.5
    };
    shapes
        .into_iter()
        .map(|(name, shape)| {
            let count: usize = shape.iter().product();
            let values = (0..count)
                .map(|_| {
                    if name.ends_with("LayerNorm.weight") {
                        1.0 + 0.1 * next()
                    } else {
                        next()
                    }
                })
                .collect();
            (name, shape, values)
        })
        .collect()
}

/// The weights as a safetensors file: [`tensors`] as F32.
pub fn safetensors(vocab_size: usize, hidden: usize) -> Vec<u8> {
    let mut header = serde_json::Map::new();
    let mut data: Vec<u8> = Vec::new();
    for (name, shape, values) in tensors(vocab_size, hidden) {
        let start = data.len();
        for x in values {
            data.extend_from_slice(&x.to_le_bytes());
        }
        header.insert(
            name,
            json!({"dtype": "F32", "shape": shape, "data_offsets": [start, data.len()]}),
        );
    }
    let mut header = Value::Object(header).to_string().into_bytes();
    while !header.len().is_multiple_of(8) {
        header.push(b' ');
    }
    let mut out = (header.len() as u64).to_le_bytes().to_vec();
    out.extend(header);
    out.extend(data);
    out
}

/// Write the whole model directory into `dir`.
pub fn write(dir: &Path) {
    write_variant(dir, Variant::DEFAULT)
}

/// Write the model directory of `variant` into `dir`.
pub fn write_variant(dir: &Path, variant: Variant) {
    let vocab_size = vocab().len();
    std::fs::create_dir_all(dir.join("1_Pooling")).unwrap();
    let put = |name: &str, value: &Value| {
        std::fs::write(dir.join(name), serde_json::to_string_pretty(value).unwrap()).unwrap()
    };
    put("config.json", &config_json_of(vocab_size, variant));
    put("tokenizer.json", &tokenizer_json());
    put(
        "sentence_bert_config.json",
        &json!({"max_seq_length": MAX_SEQ, "do_lower_case": false}),
    );
    put(
        "modules.json",
        &json!([
            {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
            {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
            {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"}
        ]),
    );
    put(
        "1_Pooling/config.json",
        &json!({"word_embedding_dimension": variant.hidden, "pooling_mode_cls_token": false,
                "pooling_mode_mean_tokens": true, "pooling_mode_max_tokens": false,
                "pooling_mode_mean_sqrt_len_tokens": false}),
    );
    std::fs::write(
        dir.join("model.safetensors"),
        safetensors(vocab_size, variant.hidden),
    )
    .unwrap();
}
