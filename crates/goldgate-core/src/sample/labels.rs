//! A sample's labels, whatever its kind: each label key (`requirements`, `tuples`, …) with
//! its list, typed by the kind that declares the key ([`LabelShape`], in the kind's folder)
//! and held here behind [`LabelList`], so the sample model below the kinds names none of
//! them. The loader reads `labels` and each annotation through the shapes the kinds
//! register; kinds read their own lists back with [`Labels::list`].

use std::any::Any;
use std::fmt::Debug;

use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::Value;

use super::findings::Findings;

/// One label key's list, typed by its shape.
pub trait LabelList: Any + Debug + Send + Sync {
    /// How many items it holds.
    fn len(&self) -> usize;
    /// Whether it holds none.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The list as JSON, as the kind's types write it.
    fn to_json(&self) -> Value;
    fn clone_list(&self) -> Box<dyn LabelList>;
    fn as_any(&self) -> &dyn Any;
}

impl<T> LabelList for Vec<T>
where
    T: Serialize + Clone + Debug + Send + Sync + 'static,
{
    fn len(&self) -> usize {
        Vec::len(self)
    }
    fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
    fn clone_list(&self) -> Box<dyn LabelList> {
        Box::new(self.clone())
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// What a kind declares about one label key (the kind's `ReadsLabels` reads its list into
/// the type [`LabelShape::empty`] is a list of): which keys its items have, the checks
/// `suite lint` holds it to, and what reports and agreement read from it. Several kinds may
/// share one key through one shape (the requirements of extraction and e2e).
pub trait LabelShape: Sync {
    /// The key, under `labels` and in an annotation.
    fn key(&self) -> &'static str;

    /// The empty list.
    fn empty(&self) -> Box<dyn LabelList>;

    /// Report the unknown and missing keys of each item of `list` (at `pointer`); returns
    /// the unknown keys' pointers, which the loader removes before reading.
    fn walk_keys(&self, list: &Value, pointer: &str, findings: &mut Findings) -> Vec<String> {
        let _ = (list, pointer, findings);
        Vec::new()
    }

    /// The checks on a read list at `pointer` (`messages`: the sample's conversation
    /// length, for the indexes items cite).
    fn check(&self, list: &dyn LabelList, pointer: &str, messages: usize, findings: &mut Findings);

    /// The lists inside each item (a requirement's acceptance criteria): their field below
    /// the item and their length, for the cap on how much matching one sample may ask.
    fn inner_lists(&self, list: &dyn LabelList) -> Vec<(usize, &'static str, usize)> {
        let _ = list;
        Vec::new()
    }

    /// The conversation messages the items cite (requirements' `source_messages`), for
    /// message-level agreement between annotators; `None`: its items cite none.
    fn cited_messages(&self, list: &dyn LabelList) -> Option<Vec<i64>> {
        let _ = list;
        None
    }

    /// Whether only samples of the kind that declares it may carry it (elsewhere that kind
    /// reports it as an error, so it is not also warned about as unscored).
    fn exclusive(&self) -> bool {
        false
    }

    /// How an item is written back (by the annotate page): the order of its keys (`""`:
    /// the item's own; else the key of an object inside it), without empty optional fields.
    /// Empty: items are written as sent (strings).
    fn write_order(&self) -> &'static [(&'static str, &'static [&'static str])] {
        &[]
    }

    /// The enum fields its items have, each with its allowed values (the annotate page
    /// offers them).
    fn enums(&self) -> &'static [(&'static str, &'static [&'static str])] {
        &[]
    }

    /// The requirement ids of a list of this key as written (JSON), each with the pointer
    /// of its `id` below the list (`/0/id`): what the labelling page holds to the rules'
    /// `[matching] id_pattern`. Default: its items have none.
    fn requirement_ids<'v>(&self, _list: &'v Value) -> Vec<(String, &'v str)> {
        Vec::new()
    }
}

/// The labels of a sample (or of one annotation): every registered label key with its
/// list, empty when not written, in the registry's order.
#[derive(Debug)]
pub struct Labels {
    lists: Vec<(&'static str, Box<dyn LabelList>)>,
}

impl Clone for Labels {
    fn clone(&self) -> Self {
        Labels {
            lists: self
                .lists
                .iter()
                .map(|(key, list)| (*key, list.clone_list()))
                .collect(),
        }
    }
}

impl PartialEq for Labels {
    fn eq(&self, other: &Self) -> bool {
        self.lists.len() == other.lists.len()
            && self
                .lists
                .iter()
                .zip(&other.lists)
                .all(|((a, x), (b, y))| a == b && x.to_json() == y.to_json())
    }
}

impl Labels {
    /// Labels of these lists, in this order (the loader makes them from the kinds' shapes).
    pub fn new(lists: Vec<(&'static str, Box<dyn LabelList>)>) -> Labels {
        Labels { lists }
    }

    /// The list under `key`, as the type its shape reads (`&[]` when no shape has that
    /// key or the list is of another type).
    pub fn list<T: 'static>(&self, key: &str) -> &[T] {
        self.get(key)
            .and_then(|l| l.as_any().downcast_ref::<Vec<T>>())
            .map_or(&[], Vec::as_slice)
    }

    /// The list under `key`, typed or not.
    pub fn get(&self, key: &str) -> Option<&dyn LabelList> {
        self.lists
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, list)| list.as_ref())
    }

    /// The list under `key` as JSON (`[]` when there is none).
    pub fn to_json_of(&self, key: &str) -> Value {
        self.get(key)
            .map_or(Value::Array(Vec::new()), |l| l.to_json())
    }

    /// How many items `key` holds.
    pub fn len(&self, key: &str) -> usize {
        self.get(key).map_or(0, |l| l.len())
    }

    /// Every key with its list, in order.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, &dyn LabelList)> {
        self.lists.iter().map(|(k, l)| (*k, l.as_ref()))
    }

    /// Whether every list is empty.
    pub fn is_empty(&self) -> bool {
        self.lists.iter().all(|(_, l)| l.is_empty())
    }

    /// Serialize the lists as the entries of a map being written.
    pub fn serialize_entries<M: SerializeMap>(&self, map: &mut M) -> Result<(), M::Error> {
        for (key, list) in &self.lists {
            map.serialize_entry(key, &list.to_json())?;
        }
        Ok(())
    }
}

impl Serialize for Labels {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.lists.len()))?;
        self.serialize_entries(&mut map)?;
        map.end()
    }
}
