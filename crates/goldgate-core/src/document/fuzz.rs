//! Garbage and mutated documents never make the parsers panic.

use super::tests::{ANCHORS, SAMPLE_JSON, SAMPLE_YAML};
use super::*;

/// Deterministic xorshift64* generator for the garbage tests.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

const PIECES: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    ":",
    ": ",
    ",",
    "\"",
    "'",
    "\\",
    "\\u00",
    "-",
    "- ",
    "---",
    "...",
    "#",
    "&a",
    "*a",
    "&b ",
    "*b",
    "!!str ",
    "!!int ",
    "!x ",
    "<<: ",
    "|",
    ">-",
    "?",
    "%YAML 1.2",
    "\n",
    "\n  ",
    "\t",
    " ",
    "a",
    "key",
    "1",
    "-2.5e3",
    "0x1F",
    ".inf",
    "true",
    "null",
    "é",
    "日本",
    "😀",
    "\r\n",
    "~",
    "/",
    "@",
    "`",
];

fn garbage(rng: &mut Rng) -> String {
    let pieces = rng.below(60);
    (0..pieces)
        .map(|_| PIECES[rng.below(PIECES.len())])
        .collect()
}

/// Replaces, drops or duplicates a few chars of a valid document.
fn mutate(rng: &mut Rng, text: &str) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for _ in 0..=rng.below(4) {
        let i = rng.below(chars.len());
        match rng.below(3) {
            0 => {
                chars[i] = PIECES[rng.below(PIECES.len())]
                    .chars()
                    .next()
                    .unwrap_or('x')
            }
            1 => {
                chars.remove(i);
            }
            _ => chars.truncate(i),
        }
        if chars.is_empty() {
            break;
        }
    }
    chars.into_iter().collect()
}

fn exercise(text: &str) {
    for positions in [
        json_positions(text),
        parse_yaml(text).map(|d| d.positions).unwrap_or_default(),
    ] {
        let _ = positions.nearest("/labels/requirements/1/source_messages/0");
        let _ = positions.value("");
    }
    if let Ok(doc) = parse_json(text) {
        assert_eq!(Some(doc.value), serde_json::from_str(text).ok());
    }
}

#[test]
fn garbage_never_panics() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for _ in 0..400 {
        exercise(&garbage(&mut rng));
    }
    for _ in 0..200 {
        exercise(&mutate(&mut rng, SAMPLE_YAML));
        exercise(&mutate(&mut rng, ANCHORS));
        exercise(&mutate(&mut rng, SAMPLE_JSON));
    }
    for text in [
        "\"",
        "\"\\",
        "{\"a",
        "{\"a\"",
        "[1,",
        "\u{feff}{}",
        "}}]]",
        "\"\n\n\"x\":1",
    ] {
        exercise(text);
    }
}
