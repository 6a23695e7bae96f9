//! The jsonl protocol: the request line (the sample's JSON with its `repeat` added), reading
//! a response line (`{"id", "repeat", "output"}`) or saying what is wrong with it, and the
//! requests in flight to one process, to which each line is routed — by id and repeat, or,
//! for a line that names no waiting request, to the one request in flight (with several in
//! flight nobody is guessed at: the line is kept for diagnostics).

use std::collections::{HashMap, HashSet};

use serde_json::Value;
use tokio::sync::oneshot;

use goldgate_core::secrets::Secrets;

/// How much of a stray line messages quote.
const QUOTED: usize = 200;

/// Requests that gave up remembered (for dropping their late answers) before the memory is
/// cleared.
const GONE_KEPT: usize = 100_000;

/// What a request in flight is told.
pub(super) enum Outcome {
    Answer(String),
    /// A response line for it (or blamed on it) was not a usable response.
    Bad(String),
    /// The process ended while it was in flight: how ("exited with code 1").
    Crashed(String),
}

pub(super) struct Waiting {
    /// Which request this is (requests of one id and repeat can be sent again).
    pub(super) token: u64,
    pub(super) repeat: u32,
    pub(super) tx: oneshot::Sender<Outcome>,
}

/// The requests in flight to one process.
#[derive(Default)]
pub(super) struct Pending {
    by_id: HashMap<String, Vec<Waiting>>,
    /// Requests that gave up (timed out, abandoned): a late answer to one is dropped.
    gone: HashSet<(String, u32)>,
    /// The last stdout line that was not an answer to anyone, for diagnostics.
    pub(super) stray: Option<String>,
}

impl Pending {
    /// A request now in flight.
    pub(super) fn wait(&mut self, id: &str, waiting: Waiting) {
        self.by_id.entry(id.to_string()).or_default().push(waiting);
    }

    /// A request that gave up without an answer: no longer waiting, and a late answer to it
    /// is dropped.
    pub(super) fn forget(&mut self, id: &str, repeat: u32, token: u64) {
        if let Some(queue) = self.by_id.get_mut(id) {
            queue.retain(|w| w.token != token);
            if queue.is_empty() {
                self.by_id.remove(id);
            }
        }
        self.gave_up_on(id, repeat);
    }

    /// Remember that the request for `id` and `repeat` is over: a late answer to it is
    /// dropped.
    fn gave_up_on(&mut self, id: &str, repeat: u32) {
        if self.gone.len() >= GONE_KEPT {
            self.gone.clear();
        }
        self.gone.insert((id.to_string(), repeat));
    }

    /// Every request still waiting (the process ended), removed.
    pub(super) fn drain(&mut self) -> Vec<(String, Waiting)> {
        self.by_id
            .drain()
            .flat_map(|(id, q)| q.into_iter().map(move |w| (id.clone(), w)))
            .collect()
    }

    /// The waiting request for `id` and `repeat` (the oldest of `id` when `repeat` is not
    /// given), removed.
    fn take(&mut self, id: &str, repeat: Option<u32>) -> Option<(String, Waiting)> {
        let queue = self.by_id.get_mut(id)?;
        let at = match repeat {
            Some(r) => queue.iter().position(|w| w.repeat == r)?,
            None => 0,
        };
        let waiting = queue.remove(at);
        if queue.is_empty() {
            self.by_id.remove(id);
        }
        Some((id.to_string(), waiting))
    }

    /// The request in flight when it is the only one, removed: a line that names no
    /// waiting request is blamed on it (a sequential pipeline answers what it was asked).
    /// With several in flight, any choice would be a guess that fails a request whose
    /// answer is still coming and hands that answer to the next: nobody is blamed.
    fn only(&mut self) -> Option<(String, Waiting)> {
        let mut all = self
            .by_id
            .iter()
            .flat_map(|(id, q)| q.iter().map(move |w| (id, w.repeat)));
        let (id, repeat) = all.next().map(|(id, r)| (id.clone(), r))?;
        if all.next().is_some() {
            return None;
        }
        self.take(&id, Some(repeat))
    }

    /// Whether a request for `id` (and `repeat`, when given) gave up earlier.
    fn gave_up(&self, id: &str, repeat: Option<u32>) -> bool {
        match repeat {
            Some(r) => self.gone.contains(&(id.to_string(), r)),
            None => self.gone.iter().any(|(g, _)| g == id),
        }
    }
}

/// The request line: the request's JSON with `"repeat": N` added, and a newline.
pub(super) fn request_line(request: &Value, repeat: u32) -> Vec<u8> {
    let mut line = match request {
        Value::Object(map) if !map.contains_key("repeat") => {
            let mut bytes = serde_json::to_vec(request).unwrap_or_default();
            bytes.pop(); // the closing brace
            if !map.is_empty() {
                bytes.push(b',');
            }
            bytes.extend_from_slice(format!("\"repeat\":{repeat}}}").as_bytes());
            bytes
        }
        Value::Object(map) => {
            let mut map = map.clone();
            map.insert("repeat".into(), Value::from(repeat));
            serde_json::to_vec(&map).unwrap_or_default()
        }
        other => serde_json::to_vec(other).unwrap_or_default(),
    };
    line.push(b'\n');
    line
}

/// A response line, read.
#[derive(Debug, PartialEq)]
enum Line {
    Answer {
        id: String,
        repeat: Option<u32>,
        text: String,
    },
    /// Not a usable response: why, and whom it names, as far as it does.
    Bad {
        id: Option<String>,
        repeat: Option<u32>,
        why: &'static str,
    },
}

fn read_line(line: &str) -> Line {
    let bad = |id: Option<String>, repeat, why| Line::Bad { id, repeat, why };
    let map = match serde_json::from_str::<Value>(line) {
        Ok(Value::Object(map)) => map,
        Ok(_) => return bad(None, None, "is JSON but not an object"),
        Err(_) => return bad(None, None, "is not JSON"),
    };
    let id = match map.get("id") {
        Some(Value::String(id)) => id.clone(),
        Some(_) => return bad(None, None, "has an `id` that is not a string"),
        None => return bad(None, None, "has no `id`"),
    };
    let repeat = match map.get("repeat") {
        None | Some(Value::Null) => None,
        Some(v) => match v.as_u64().and_then(|r| u32::try_from(r).ok()) {
            Some(r) => Some(r),
            None => return bad(Some(id), None, "has a `repeat` that is not a whole number"),
        },
    };
    let text = match map.get("output") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) => String::new(),
        Some(other) => other.to_string(),
        None => return bad(Some(id), repeat, "has no `output`"),
    };
    Line::Answer { id, repeat, text }
}

/// `id` and its repeat, as messages name a request.
pub(super) fn named(id: &str, repeat: Option<u32>) -> String {
    match repeat {
        Some(r) => format!("`{id}` (repeat {r})"),
        None => format!("`{id}`"),
    }
}

/// Hand one stdout line to the request it answers, or fail the request it is blamed on.
pub(super) fn route(line: &str, pending: &mut Pending, secrets: &Secrets) {
    let quote = || -> String { secrets.redact(line).chars().take(QUOTED).collect() };
    let (taker, message) = match read_line(line) {
        Line::Answer { id, repeat, text } => {
            if let Some((_, w)) = pending.take(&id, repeat) {
                let _ = w.tx.send(Outcome::Answer(text));
                return;
            }
            if pending.gave_up(&id, repeat) {
                pending.stray = Some(quote());
                return;
            }
            let who = named(&id, repeat);
            (
                pending.only(),
                format!("the jsonl pipeline answered {who}, which no request in flight is (answers must carry the request's `id` and `repeat`); taken as the answer to the one request in flight"),
            )
        }
        Line::Bad {
            id: Some(id),
            repeat,
            why,
        } => {
            let taker = pending.take(&id, repeat).or_else(|| pending.only());
            let message = format!(
                "the jsonl pipeline's response line for {} {why}: {}",
                named(&id, repeat),
                quote()
            );
            (taker, message)
        }
        Line::Bad { id: None, why, .. } => (
            pending.only(),
            format!("a line the jsonl pipeline wrote to stdout {why}: {} (it names no request, so the one request in flight takes it; a jsonl pipeline writes only response lines to stdout, and logs to stderr)", quote()),
        ),
    };
    match taker {
        Some((id, w)) => {
            // Its own answer may still come: drop it then, never hand it to another.
            pending.gave_up_on(&id, w.repeat);
            let _ = w.tx.send(Outcome::Bad(message));
        }
        None => pending.stray = Some(quote()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_request_line_carries_the_repeat() {
        let kind = goldgate_core::testkit::test_kind().name();
        let line = request_line(&json!({"id": "s-1", "kind": kind}), 2);
        assert_eq!(
            String::from_utf8(line).unwrap(),
            format!("{{\"id\":\"s-1\",\"kind\":\"{kind}\",\"repeat\":2}}\n")
        );
        assert_eq!(request_line(&json!({}), 0), b"{\"repeat\":0}\n");
        let line = request_line(&json!({"repeat": "x", "id": "a"}), 1);
        let back: Value = serde_json::from_slice(&line).unwrap();
        assert_eq!(back, json!({"repeat": 1, "id": "a"}));
    }

    #[test]
    fn response_lines_are_read_or_said_to_be_bad() {
        let answer = |id: &str, repeat, text: &str| Line::Answer {
            id: id.into(),
            repeat,
            text: text.into(),
        };
        assert_eq!(
            read_line(r#"{"id": "a", "output": "x"}"#),
            answer("a", None, "x")
        );
        assert_eq!(
            read_line(r#"{"id": "a", "repeat": 2, "output": {"k": 1}}"#),
            answer("a", Some(2), r#"{"k":1}"#)
        );
        assert_eq!(
            read_line(r#"{"id": "a", "output": null}"#),
            answer("a", None, "")
        );
        let why = |line: &str| match read_line(line) {
            Line::Bad { why, .. } => why,
            other => panic!("{other:?}"),
        };
        assert_eq!(why("hello"), "is not JSON");
        assert_eq!(why("[1]"), "is JSON but not an object");
        assert_eq!(why(r#"{"output": 1}"#), "has no `id`");
        assert_eq!(
            why(r#"{"id": 5, "output": 1}"#),
            "has an `id` that is not a string"
        );
        assert_eq!(
            why(r#"{"id": "a", "repeat": -1, "output": 1}"#),
            "has a `repeat` that is not a whole number"
        );
        assert_eq!(why(r#"{"id": "a"}"#), "has no `output`");
    }

    fn wait(
        pending: &mut Pending,
        id: &str,
        repeat: u32,
        token: u64,
    ) -> oneshot::Receiver<Outcome> {
        let (tx, rx) = oneshot::channel();
        pending
            .by_id
            .entry(id.into())
            .or_default()
            .push(Waiting { token, repeat, tx });
        rx
    }

    fn told(rx: &mut oneshot::Receiver<Outcome>) -> String {
        match rx.try_recv() {
            Ok(Outcome::Answer(t)) => format!("answer {t}"),
            Ok(Outcome::Bad(t)) => format!("bad {t}"),
            Ok(Outcome::Crashed(t)) => format!("crashed {t}"),
            Err(_) => "nothing".into(),
        }
    }

    #[test]
    fn responses_are_routed_by_id_and_repeat_and_bad_ones_blamed_at_once() {
        let mut p = Pending::default();
        let mut a0 = wait(&mut p, "a", 0, 1);
        let mut a1 = wait(&mut p, "a", 1, 2);
        let mut b0 = wait(&mut p, "b", 0, 3);
        route(
            r#"{"id": "a", "repeat": 1, "output": "one"}"#,
            &mut p,
            &Secrets::new(),
        );
        assert_eq!(told(&mut a1), "answer one");
        assert_eq!(told(&mut a0), "nothing");
        // No repeat: the oldest of the id.
        route(r#"{"id": "a", "output": "zero"}"#, &mut p, &Secrets::new());
        assert_eq!(told(&mut a0), "answer zero");
        // A line naming nobody fails the one request in flight (a sequential pipeline)…
        route("Loading model...", &mut p, &Secrets::new());
        let message = told(&mut b0);
        assert!(
            message.starts_with(
                "bad a line the jsonl pipeline wrote to stdout is not JSON: Loading model..."
            ),
            "{message}"
        );
        // With nobody in flight, it is only kept for diagnostics.
        route("stray", &mut p, &Secrets::new());
        assert_eq!(p.stray.as_deref(), Some("stray"));
        // A late answer to a request that gave up is dropped, not blamed on another.
        p.gone.insert(("late".into(), 0));
        let mut c0 = wait(&mut p, "c", 0, 4);
        route(
            r#"{"id": "late", "repeat": 0, "output": "x"}"#,
            &mut p,
            &Secrets::new(),
        );
        assert_eq!(told(&mut c0), "nothing");
        // An answer to an id nobody waits for is blamed on the one request in flight.
        route(r#"{"id": "zzz", "output": "x"}"#, &mut p, &Secrets::new());
        assert!(told(&mut c0).contains("answered `zzz`, which no request in flight is"));
        // …and the answer that request then gets is dropped, not blamed on another.
        let mut f0 = wait(&mut p, "f", 0, 7);
        route(
            r#"{"id": "c", "repeat": 0, "output": "x"}"#,
            &mut p,
            &Secrets::new(),
        );
        assert_eq!(told(&mut f0), "nothing");
        // With several in flight nobody is guessed at: the line is kept for diagnostics,
        // and the requests get their own answers.
        let mut g0 = wait(&mut p, "g", 0, 8);
        route("loading model...", &mut p, &Secrets::new());
        route(
            r#"{"id": "nobody", "output": "x"}"#,
            &mut p,
            &Secrets::new(),
        );
        assert_eq!(
            (told(&mut f0), told(&mut g0)),
            ("nothing".into(), "nothing".into())
        );
        route(
            r#"{"id": "f", "repeat": 0, "output": "x"}"#,
            &mut p,
            &Secrets::new(),
        );
        assert_eq!(told(&mut f0), "answer x");
        p.forget("g", 0, 8);
        // A bad line naming a waiting request fails that one.
        let mut d0 = wait(&mut p, "d", 0, 5);
        let mut e0 = wait(&mut p, "e", 0, 6);
        route(r#"{"id": "e", "repeat": 0}"#, &mut p, &Secrets::new());
        assert!(told(&mut e0).contains("for `e` (repeat 0) has no `output`"));
        assert_eq!(told(&mut d0), "nothing");
    }
}
