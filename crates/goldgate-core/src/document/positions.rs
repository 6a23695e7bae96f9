//! The position index of a parsed document: the line and column of every value and every
//! mapping key, addressed by JSON pointer, stored compactly (a parent-linked table of path
//! segments) so large documents stay cheap.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::sync::OnceLock;

use super::pointer::push_escaped;
use super::Position;

/// Where each value (and each mapping key) of a parsed document stands in its text, by JSON
/// pointer ("" is the root, "/labels/requirements/0/title"; pointer segments escaped per
/// RFC 6901: ~ -> ~0, / -> ~1).
///
/// Stored compactly as a tree (each entry names its parent and its own segment, 24 bytes), so
/// that the JSON scanner stays fast; the lookup index is built on the first lookup. When a
/// pointer was recorded twice (duplicate JSON keys seen by [`json_positions`]) the last record
/// wins, as the last value does in serde_json. Lines and columns beyond `u32::MAX` are clamped.
#[derive(Clone, Default)]
pub struct Positions {
    /// Escaped mapping keys, concatenated; name `k` ends at `name_ends[k]`.
    names: String,
    name_ends: Vec<u32>,
    entries: Vec<Entry>,
    line_offset: usize,
    /// Parent entry -> segment -> child entry ([`NO_PARENT`] -> "" -> the root).
    index: OnceLock<HashMap<u32, HashMap<Box<str>, u32>>>,
}

/// Parent of the root entry.
pub(super) const NO_PARENT: u32 = u32::MAX;
/// Marks a packed segment as a name id rather than an array index.
pub(super) const NAME_FLAG: u32 = 1 << 31;

#[derive(Clone, Copy, Debug)]
pub(super) struct Entry {
    parent: u32,
    /// A [`Segment`], packed.
    segment: u32,
    value: Packed,
    /// Line 0 when the value has no key.
    key: Packed,
}

/// A value's segment under its parent.
#[derive(Clone, Copy, Debug)]
pub(super) enum Segment {
    Root,
    Index(u32),
    /// Id of a name in [`Positions::names`].
    Name(u32),
}

impl Segment {
    fn pack(self) -> u32 {
        match self {
            Segment::Root => 0,
            Segment::Index(index) => index.min(NAME_FLAG - 1),
            Segment::Name(id) => id.min(NAME_FLAG - 1) | NAME_FLAG,
        }
    }

    fn unpack(entry: &Entry) -> Segment {
        match entry.segment {
            _ if entry.parent == NO_PARENT => Segment::Root,
            packed if packed & NAME_FLAG != 0 => Segment::Name(packed & !NAME_FLAG),
            index => Segment::Index(index),
        }
    }
}

/// A [`Position`] in half the space.
#[derive(Clone, Copy, Debug)]
pub(super) struct Packed(u32, u32);

impl Packed {
    const NONE: Packed = Packed(0, 0);

    fn new(position: Position) -> Self {
        Packed(clamp(position.line), clamp(position.column))
    }
}

pub(super) fn clamp(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

impl Positions {
    /// Position of the value at `pointer`, if recorded.
    pub fn value(&self, pointer: &str) -> Option<Position> {
        self.entry(pointer).map(|entry| self.unpack(entry.value))
    }

    /// Position of the mapping key whose value is at `pointer` (for "unknown field" errors).
    pub fn key(&self, pointer: &str) -> Option<Position> {
        let key = self.entry(pointer)?.key;
        (key.0 > 0).then(|| self.unpack(key))
    }

    /// Best position for an error at `pointer`: the key if recorded, else the value, else the
    /// nearest recorded ancestor, else line 1 column 1 (shifted by [`Positions::offset_lines`]).
    pub fn nearest(&self, pointer: &str) -> Position {
        if let Some(found) = self.key(pointer).or_else(|| self.value(pointer)) {
            return found;
        }
        let mut ancestor = pointer;
        while let Some(cut) = ancestor.rfind('/') {
            ancestor = &ancestor[..cut];
            if let Some(found) = self.value(ancestor).or_else(|| self.key(ancestor)) {
                return found;
            }
        }
        self.unpack(Packed(1, 1))
    }

    /// Shift every line by `lines` (used for JSONL, where a document starts on line N of the
    /// file: pass N - 1).
    pub fn offset_lines(&mut self, lines: usize) {
        self.line_offset = self.line_offset.saturating_add(lines);
    }

    /// Appends an entry and returns its id. Parents are pushed before their children, and all
    /// pushes happen while a document is parsed, before any lookup builds the index.
    pub(super) fn push(
        &mut self,
        parent: u32,
        segment: Segment,
        value: Position,
        key: Option<Position>,
    ) -> u32 {
        let id = clamp(self.entries.len());
        self.entries.push(Entry {
            parent,
            segment: segment.pack(),
            value: Packed::new(value),
            key: key.map_or(Packed::NONE, Packed::new),
        });
        id
    }

    /// Stores a mapping key (escaped) for use as a segment.
    pub(super) fn push_name(&mut self, name: &str) -> Segment {
        push_escaped(&mut self.names, name);
        self.name_ends.push(clamp(self.names.len()));
        Segment::Name(clamp(self.name_ends.len() - 1))
    }

    fn segment(&self, segment: Segment) -> Cow<'_, str> {
        match segment {
            Segment::Root => Cow::Borrowed(""),
            Segment::Index(index) => Cow::Owned(index.to_string()),
            Segment::Name(id) => {
                let id = id as usize;
                let start = id.checked_sub(1).and_then(|i| self.name_ends.get(i));
                let end = self.name_ends.get(id);
                let range = start.map_or(0, |&s| s as usize)..end.map_or(0, |&e| e as usize);
                Cow::Borrowed(self.names.get(range).unwrap_or_default())
            }
        }
    }

    fn entry(&self, pointer: &str) -> Option<&Entry> {
        let children = self.index.get_or_init(|| self.build_index());
        let mut id = *children.get(&NO_PARENT)?.get("")?;
        if !pointer.is_empty() {
            for segment in pointer.strip_prefix('/')?.split('/') {
                id = *children.get(&id)?.get(segment)?;
            }
        }
        self.entries.get(id as usize)
    }

    fn build_index(&self) -> HashMap<u32, HashMap<Box<str>, u32>> {
        let mut children: HashMap<u32, HashMap<Box<str>, u32>> = HashMap::new();
        for (id, entry) in self.entries.iter().enumerate() {
            let segment = self.segment(Segment::unpack(entry)).into();
            children
                .entry(entry.parent)
                .or_default()
                .insert(segment, clamp(id));
        }
        children
    }

    fn unpack(&self, packed: Packed) -> Position {
        Position {
            line: (packed.0 as usize).saturating_add(self.line_offset),
            column: packed.1 as usize,
        }
    }

    /// Full pointers of all entries, in recording order (for Debug).
    fn pointers(&self) -> Vec<String> {
        let mut pointers: Vec<String> = Vec::with_capacity(self.entries.len());
        for entry in &self.entries {
            let parent = pointers
                .get(entry.parent as usize)
                .map_or("?", String::as_str);
            let pointer = match Segment::unpack(entry) {
                Segment::Root => String::new(),
                segment => format!("{parent}/{}", self.segment(segment)),
            };
            pointers.push(pointer);
        }
        pointers
    }
}

/// Debug output lists `pointer: (value position, key position)` in recording order.
impl fmt::Debug for Positions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut map = f.debug_map();
        for (pointer, entry) in self.pointers().iter().zip(&self.entries) {
            let key = (entry.key.0 > 0).then(|| self.unpack(entry.key));
            map.entry(pointer, &(self.unpack(entry.value), key));
        }
        map.finish()
    }
}
