//! Reading label lists: every label key's shape in registry order, a mapping of lists as
//! written read by their kinds, and the helpers the kinds' shapes check with.

use std::sync::LazyLock;

use super::ALL;
use crate::sample::{LabelList, LabelShape, Labels};

/// Every label key's shape, each once, in registry order (a kind's own, then the next
/// kind's new ones).
pub fn label_shapes() -> &'static [&'static dyn LabelShape] {
    static SHAPES: LazyLock<Vec<&'static dyn LabelShape>> = LazyLock::new(|| {
        let mut shapes: Vec<&'static dyn LabelShape> = Vec::new();
        for shape in ALL.iter().flat_map(|k| k.label_shapes().iter().copied()) {
            if !shapes.iter().any(|s| s.key() == shape.key()) {
                shapes.push(shape);
            }
        }
        shapes
    });
    &SHAPES
}

/// The labels of a mapping of label lists as written (`labels`, or an annotation's lists),
/// each read by its kind ([`super::read_list_de`]) in the order written, every other key
/// empty. An error names the first list that does not read, with serde's path below it;
/// keys no shape has are left out.
pub fn read_labels(
    lists: serde_json::Map<String, serde_json::Value>,
) -> Result<Labels, (&'static str, serde_path_to_error::Error<serde_json::Error>)> {
    let mut read = Vec::new();
    for (key, value) in lists {
        if let Some(shape) = label_shapes().iter().find(|s| s.key() == key) {
            let mut track = serde_path_to_error::Track::new();
            let de = serde_path_to_error::Deserializer::new(value, &mut track);
            match super::read_list_de(shape.key(), de) {
                Ok(list) => read.push((shape.key(), list)),
                Err(e) => {
                    let e = serde_path_to_error::Error::new(track.path(), e);
                    return Err((shape.key(), e));
                }
            }
        }
    }
    Ok(labels_of(read))
}

/// Every shape's list: the one read, else an empty one.
pub fn labels_of(mut read: Vec<(&'static str, Box<dyn LabelList>)>) -> Labels {
    Labels::new(
        label_shapes()
            .iter()
            .map(|shape| {
                let list = match read.iter().position(|(k, _)| *k == shape.key()) {
                    Some(i) => read.swap_remove(i).1,
                    None => shape.empty(),
                };
                (shape.key(), list)
            })
            .collect(),
    )
}

/// The items of a list its shape read as `T`s.
pub(super) fn items<T: 'static>(list: &dyn LabelList) -> &[T] {
    list.as_any()
        .downcast_ref::<Vec<T>>()
        .map_or(&[], Vec::as_slice)
}

/// Each item of a list as written, with its pointer below `pointer`.
pub(super) fn each_item<'a>(
    list: &'a serde_json::Value,
    pointer: &'a str,
) -> impl Iterator<Item = (String, &'a serde_json::Value)> + 'a {
    list.as_array()
        .into_iter()
        .flatten()
        .enumerate()
        .map(move |(i, v)| (format!("{pointer}/{i}"), v))
}
