//! What goes over the wire to an OpenAI-compatible `/embeddings` endpoint: the request body
//! of one batch, and the answer read into one vector per text, placed by its `index`, with
//! every way an answer can be wrong named.

use serde::Deserialize;

/// The request body of one batch: `{"model", "input": [texts], "encoding_format": "float"}`.
pub fn request_body(model: &str, texts: &[&str]) -> Vec<u8> {
    let body = serde_json::json!({"model": model, "input": texts, "encoding_format": "float"});
    serde_json::to_vec(&body).unwrap_or_default()
}

#[derive(Deserialize)]
struct Answer {
    data: Vec<Item>,
}

#[derive(Deserialize)]
struct Item {
    #[serde(default)]
    index: Option<usize>,
    embedding: Vec<f32>,
}

/// The vectors of an answer to a batch of `n` texts, in the order of the texts: item `i`
/// goes where its `index` says (by position only when no item has an index), and every text
/// must get exactly one non-empty vector, all of one dimension (a number outside `f32`'s
/// range is refused as it is read, so every component is finite). `Err` says what is
/// wrong, naming the field (`data[3].embedding[7]: invalid type: …`).
pub fn read_vectors(body: &[u8], n: usize) -> Result<Vec<Vec<f32>>, String> {
    let mut de = serde_json::Deserializer::from_slice(body);
    let answer: Answer = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        if path == "." {
            inner.to_string()
        } else {
            format!("{path}: {inner}")
        }
    })?;
    de.end().map_err(|e| e.to_string())?;
    if answer.data.len() != n {
        return Err(format!(
            "{} for {}",
            count(answer.data.len(), "vector"),
            count(n, "text")
        ));
    }
    let positional = answer.data.iter().all(|item| item.index.is_none());
    let mut placed: Vec<Option<Vec<f32>>> = vec![None; n];
    let mut first_dim: Option<(usize, usize)> = None;
    for (k, item) in answer.data.into_iter().enumerate() {
        let at = match item.index {
            Some(at) => at,
            None if positional => k,
            None => return Err(format!("data[{k}] has no index, and other items have one")),
        };
        if at >= n {
            return Err(format!(
                "data[{k}] has index {at}, out of range for {}",
                count(n, "text")
            ));
        }
        let dim = item.embedding.len();
        if dim == 0 {
            return Err(format!("data[{k}].embedding is empty"));
        }
        match first_dim {
            None => first_dim = Some((k, dim)),
            Some((first, expected)) if expected != dim => {
                return Err(format!(
                "data[{k}].embedding has {dim} dimensions and data[{first}].embedding {expected}: \
                     one model's vectors all have one dimension"
            ))
            }
            Some(_) => {}
        }
        if placed[at].is_some() {
            return Err(format!("index {at} appears twice in data"));
        }
        placed[at] = Some(item.embedding);
    }
    // n items, each at a distinct index below n: every place is filled.
    Ok(placed.into_iter().flatten().collect())
}

/// `3 vectors`, `1 text`.
fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vectors_are_placed_by_index_or_by_position_when_there_is_none() {
        let body = br#"{"data": [{"index": 1, "embedding": [3, 4]}, {"index": 0, "embedding": [1.5, 2]}]}"#;
        assert_eq!(
            read_vectors(body, 2).unwrap(),
            vec![vec![1.5, 2.0], vec![3.0, 4.0]]
        );
        let body = br#"{"data": [{"embedding": [1]}, {"embedding": [2]}], "usage": {}}"#;
        assert_eq!(read_vectors(body, 2).unwrap(), vec![vec![1.0], vec![2.0]]);
    }

    #[test]
    fn every_way_an_answer_is_wrong_is_named() {
        let cases: &[(&str, usize, &str)] = &[
            (r#"{"data": []}"#, 1, "0 vectors for 1 text"),
            (r#"{}"#, 1, "missing field `data`"),
            (
                r#"{"data": [{"embedding": [1, null]}]}"#,
                1,
                "data[0].embedding[1]: invalid type: null",
            ),
            (
                r#"{"data": [{"index": 0, "embedding": [1]}, {"embedding": [2]}]}"#,
                2,
                "data[1] has no index",
            ),
            (
                r#"{"data": [{"index": -1, "embedding": [1]}]}"#,
                1,
                "data[0].index: invalid value",
            ),
            (
                r#"{"data": [{"index": 0, "embedding": [1e300]}]}"#,
                1,
                "data[0].embedding[0]: number out of range",
            ),
            (
                r#"{"data": [{"index": 0, "embedding": [1]}]} trailing"#,
                1,
                "trailing characters",
            ),
            (
                r#"{"data": [{"index": 0, "embedding": [1]}, {"index": 0, "embedding": [2]}]}"#,
                2,
                "index 0 appears twice",
            ),
        ];
        for (body, n, says) in cases {
            let error = read_vectors(body.as_bytes(), *n).unwrap_err();
            assert!(error.contains(says), "{body}: {error}");
        }
    }
}
