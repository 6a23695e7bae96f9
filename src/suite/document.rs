//! Source documents of gold samples: parsing one YAML or JSON text into a
//! [`serde_json::Value`] together with [`Positions`], the 1-based line and column of every value
//! and every mapping key, addressed by JSON pointer.
//!
//! This module owns the text-to-value step only: YAML 1.2 core-schema scalar resolution,
//! anchors, aliases and merge keys, duplicate-key detection (YAML and JSON), mapping parser
//! errors to [`SyntaxError`]s with a position, and a fast position scanner for JSON texts
//! ([`json_positions`]) that JSON Lines readers run lazily, only when an error needs a location.
//! Turning values into samples and reporting file names is the caller's business.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::sync::OnceLock;

use saphyr_parser::{Event, Marker, Parser, ScalarStyle, ScanError, Span, StrInput, Tag};
use serde_json::{Map, Number, Value};

/// Nesting deeper than this is an error in YAML and is not recorded by the JSON scanner.
const MAX_DEPTH: usize = 512;
/// Upper bound on the values YAML aliases may copy in one document (guards "billion laughs").
const MAX_ALIAS_VALUES: usize = 1_000_000;

/// 1-based line and column.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Position {
    pub line: usize,
    pub column: usize,
}

/// A document that cannot become a value: malformed text, a duplicate key, a non-finite number,
/// a second YAML document, ... The message names no file; the caller adds it.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{message}")]
pub struct SyntaxError {
    pub position: Position,
    pub message: String,
}

impl SyntaxError {
    fn new(position: Position, message: impl Into<String>) -> Self {
        SyntaxError {
            position,
            message: message.into(),
        }
    }

    fn duplicate_key(key: &str, first: Position, second: Position) -> Self {
        let message = format!("duplicate key `{key}` (first at line {})", first.line);
        SyntaxError::new(second, message)
    }
}

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
const NO_PARENT: u32 = u32::MAX;
/// Marks a packed segment as a name id rather than an array index.
const NAME_FLAG: u32 = 1 << 31;

#[derive(Clone, Copy, Debug)]
struct Entry {
    parent: u32,
    /// A [`Segment`], packed.
    segment: u32,
    value: Packed,
    /// Line 0 when the value has no key.
    key: Packed,
}

/// A value's segment under its parent.
#[derive(Clone, Copy, Debug)]
enum Segment {
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
struct Packed(u32, u32);

impl Packed {
    const NONE: Packed = Packed(0, 0);

    fn new(position: Position) -> Self {
        Packed(clamp(position.line), clamp(position.column))
    }
}

fn clamp(n: usize) -> u32 {
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
    fn push(
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
    fn push_name(&mut self, name: &str) -> Segment {
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

/// One parsed document: its value and where each part of it stands in the text.
#[derive(Clone, Debug)]
pub struct Document {
    pub value: Value,
    pub positions: Positions,
}

/// RFC 6901 escaping of one pointer segment: `~` becomes `~0`, `/` becomes `~1`.
pub fn escape_pointer_segment(s: &str) -> String {
    let mut escaped = String::with_capacity(s.len());
    push_escaped(&mut escaped, s);
    escaped
}

fn push_escaped(out: &mut String, segment: &str) {
    if !segment.contains(['~', '/']) {
        out.push_str(segment);
        return;
    }
    for c in segment.chars() {
        match c {
            '~' => out.push_str("~0"),
            '/' => out.push_str("~1"),
            _ => out.push(c),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// YAML
// ---------------------------------------------------------------------------------------------

/// Parse one YAML document (a file holds one sample). Converts to serde_json::Value with YAML 1.2
/// core-schema scalar resolution, recording positions. An empty file gives `Value::Null`.
pub fn parse_yaml(text: &str) -> Result<Document, SyntaxError> {
    let mut builder = YamlBuilder::new(text);
    let value = builder.document()?;
    Ok(Document {
        value,
        positions: builder.positions,
    })
}

/// Converts a saphyr marker (1-based line, 0-based column in chars) to a [`Position`].
fn position(marker: Marker) -> Position {
    Position {
        line: marker.line().max(1),
        column: marker.col() + 1,
    }
}

fn scan_error(error: &ScanError) -> SyntaxError {
    SyntaxError::new(position(*error.marker()), error.info())
}

/// Where a node's position is recorded: under which entry, by which segment, after which key.
#[derive(Clone, Copy)]
struct Place {
    parent: u32,
    segment: Segment,
    key: Option<Position>,
}

impl Place {
    const ROOT: Place = Place::new(NO_PARENT, Segment::Root, None);

    const fn new(parent: u32, segment: Segment, key: Option<Position>) -> Self {
        Place {
            parent,
            segment,
            key,
        }
    }
}

/// An anchored value, with its size and depth to bound what aliases may copy.
struct Anchored {
    value: Value,
    values: usize,
    depth: usize,
}

/// Mappings brought in by a merge key (`<<`), each with the position of its node.
type MergeSources = Vec<(Map<String, Value>, Position)>;

/// A resolved mapping key.
struct MapKey {
    name: String,
    position: Position,
    is_merge: bool,
}

/// Builds a [`Value`] from saphyr's event stream, recursively (depth is capped).
struct YamlBuilder<'a> {
    parser: Parser<'a, StrInput<'a>>,
    cursor: CharCursor<'a>,
    anchors: HashMap<usize, Anchored>,
    positions: Positions,
    /// Recording is off while > 0 (inside the value of a merge key).
    mute: usize,
    alias_values: usize,
    last: Marker,
}

impl<'a> YamlBuilder<'a> {
    fn new(text: &'a str) -> Self {
        YamlBuilder {
            parser: Parser::new_from_str(text),
            cursor: CharCursor::new(text),
            anchors: HashMap::new(),
            positions: Positions::default(),
            mute: 0,
            alias_values: 0,
            last: Marker::new(0, 1, 0),
        }
    }

    fn next(&mut self) -> Result<(Event<'a>, Span), SyntaxError> {
        match self.parser.next_event() {
            Some(Ok((event, span))) => {
                self.last = span.end;
                Ok((event, span))
            }
            Some(Err(error)) => Err(scan_error(&error)),
            None => Err(SyntaxError::new(
                position(self.last),
                "unexpected end of YAML",
            )),
        }
    }

    fn document(&mut self) -> Result<Value, SyntaxError> {
        let (mut event, mut span) = self.next()?;
        if event == Event::StreamStart {
            (event, span) = self.next()?;
        }
        match event {
            Event::StreamEnd => return Ok(Value::Null),
            Event::DocumentStart(_) => {}
            _ => return Err(unexpected(span)),
        }
        let (event, span) = self.next()?;
        let value = self.node(event, span, Place::ROOT, 0)?;
        self.end_of_stream()?;
        Ok(value)
    }

    /// After the first document: its end, then the end of the stream, not a second document.
    fn end_of_stream(&mut self) -> Result<(), SyntaxError> {
        let (event, span) = self.next()?;
        if event != Event::DocumentEnd {
            return Err(unexpected(span));
        }
        match self.next()? {
            (Event::StreamEnd, _) => Ok(()),
            (Event::DocumentStart(_), span) => Err(SyntaxError::new(
                position(span.start),
                "a sample file holds one YAML document",
            )),
            (_, span) => Err(unexpected(span)),
        }
    }

    /// Builds the node that starts with `event`, recording its position at `place`.
    fn node(
        &mut self,
        event: Event<'a>,
        span: Span,
        place: Place,
        depth: usize,
    ) -> Result<Value, SyntaxError> {
        if depth > MAX_DEPTH {
            let message = format!("nesting deeper than {MAX_DEPTH} levels");
            return Err(SyntaxError::new(position(span.start), message));
        }
        match event {
            Event::Scalar(text, style, anchor, tag) => {
                let at = position(span.start);
                let value = resolve_scalar(&text, style, tag.as_deref())
                    .map_err(|message| SyntaxError::new(at, message))?;
                self.record(place, at);
                self.store_anchor(anchor, &value);
                Ok(value)
            }
            Event::SequenceStart(anchor, _) => {
                let at = self.collection_start(span);
                let id = self.record(place, at);
                let value = Value::Array(self.sequence_items(id, depth)?);
                self.store_anchor(anchor, &value);
                Ok(value)
            }
            Event::MappingStart(anchor, _) => {
                let at = self.collection_start(span);
                let id = self.record(place, at);
                let value = Value::Object(self.mapping_entries(id, depth)?);
                self.store_anchor(anchor, &value);
                Ok(value)
            }
            Event::Alias(id) => {
                let at = position(span.start);
                let value = self.alias(id, at, depth)?;
                self.record(place, at);
                Ok(value)
            }
            _ => Err(unexpected(span)),
        }
    }

    /// Reads the items of a sequence up to and including its end event.
    fn sequence_items(&mut self, id: u32, depth: usize) -> Result<Vec<Value>, SyntaxError> {
        let mut items = Vec::new();
        loop {
            let (event, span) = self.next()?;
            if event == Event::SequenceEnd {
                return Ok(items);
            }
            let place = Place::new(id, Segment::Index(clamp(items.len())), None);
            items.push(self.node(event, span, place, depth + 1)?);
        }
    }

    /// Reads the entries of a mapping up to and including its end event, then applies merges.
    fn mapping_entries(
        &mut self,
        id: u32,
        depth: usize,
    ) -> Result<Map<String, Value>, SyntaxError> {
        let mut map = Map::new();
        let mut seen: HashMap<String, Position> = HashMap::new();
        let mut merges = Vec::new();
        loop {
            let (event, span) = self.next()?;
            if event == Event::MappingEnd {
                break;
            }
            let key = self.key(event, span, depth)?;
            if let Some(&first) = seen.get(&key.name) {
                return Err(SyntaxError::duplicate_key(&key.name, first, key.position));
            }
            seen.insert(key.name.clone(), key.position);
            let (event, span) = self.next()?;
            if key.is_merge {
                merges.extend(self.merge_sources(event, span, depth + 1)?);
                continue;
            }
            let place = Place::new(id, self.name_segment(&key.name), Some(key.position));
            let value = self.node(event, span, place, depth + 1)?;
            map.insert(key.name, value);
        }
        self.apply_merges(&mut map, merges, id);
        Ok(map)
    }

    fn key(&mut self, event: Event<'a>, span: Span, depth: usize) -> Result<MapKey, SyntaxError> {
        let at = position(span.start);
        let (value, is_merge) = match event {
            Event::Scalar(text, style, anchor, tag) => {
                let is_merge = style == ScalarStyle::Plain && tag.is_none() && text == "<<";
                let value = resolve_scalar(&text, style, tag.as_deref())
                    .map_err(|message| SyntaxError::new(at, message))?;
                self.store_anchor(anchor, &value);
                (value, is_merge)
            }
            Event::Alias(id) => (self.alias(id, at, depth)?, false),
            Event::MappingStart(..) | Event::SequenceStart(..) => {
                let message = "a mapping or sequence cannot be used as a key";
                return Err(SyntaxError::new(at, message));
            }
            _ => return Err(unexpected(span)),
        };
        let name = key_string(value)
            .ok_or_else(|| SyntaxError::new(at, "a mapping or sequence cannot be used as a key"))?;
        Ok(MapKey {
            name,
            position: at,
            is_merge,
        })
    }

    /// The mappings a merge key (`<<`) brings in, each with the position of its node.
    fn merge_sources(
        &mut self,
        event: Event<'a>,
        span: Span,
        depth: usize,
    ) -> Result<MergeSources, SyntaxError> {
        self.mute += 1;
        let sources = self.read_merge_sources(event, span, depth);
        self.mute -= 1;
        sources
    }

    fn read_merge_sources(
        &mut self,
        event: Event<'a>,
        span: Span,
        depth: usize,
    ) -> Result<MergeSources, SyntaxError> {
        let Event::SequenceStart(anchor, _) = event else {
            let at = self.node_start(&event, span);
            let value = self.node(event, span, Place::ROOT, depth)?;
            return Ok(vec![(merge_mapping(value, at)?, at)]);
        };
        let mut sources = Vec::new();
        let mut items = Vec::new();
        loop {
            let (event, span) = self.next()?;
            if event == Event::SequenceEnd {
                break;
            }
            let at = self.node_start(&event, span);
            let value = self.node(event, span, Place::ROOT, depth + 1)?;
            items.push(value.clone());
            sources.push((merge_mapping(value, at)?, at));
        }
        self.store_anchor(anchor, &Value::Array(items));
        Ok(sources)
    }

    /// Adds merged entries that are not already present: explicit keys win, and among merged
    /// mappings the earlier wins. A merged entry is located at the node that brought it in.
    fn apply_merges(&mut self, map: &mut Map<String, Value>, merges: MergeSources, id: u32) {
        for (source, at) in merges {
            for (name, value) in source {
                if map.contains_key(&name) {
                    continue;
                }
                let place = Place::new(id, self.name_segment(&name), Some(at));
                self.record(place, at);
                map.insert(name, value);
            }
        }
    }

    fn alias(&mut self, id: usize, at: Position, depth: usize) -> Result<Value, SyntaxError> {
        let anchored = self
            .anchors
            .get(&id)
            .ok_or_else(|| SyntaxError::new(at, "alias to an unknown or unfinished anchor"))?;
        if depth + anchored.depth > MAX_DEPTH {
            let message = format!("alias nests values deeper than {MAX_DEPTH} levels");
            return Err(SyntaxError::new(at, message));
        }
        self.alias_values = self.alias_values.saturating_add(anchored.values);
        if self.alias_values > MAX_ALIAS_VALUES {
            let message = format!("aliases copy more than {MAX_ALIAS_VALUES} values");
            return Err(SyntaxError::new(at, message));
        }
        Ok(anchored.value.clone())
    }

    fn store_anchor(&mut self, anchor: usize, value: &Value) {
        if anchor == 0 {
            return;
        }
        let (values, depth) = measure(value);
        let value = value.clone();
        let anchored = Anchored {
            value,
            values,
            depth,
        };
        self.anchors.insert(anchor, anchored);
    }

    /// Records the node at `place` unless muted; returns its id.
    fn record(&mut self, place: Place, at: Position) -> u32 {
        if self.mute > 0 {
            return NO_PARENT;
        }
        let Place {
            parent,
            segment,
            key,
        } = place;
        self.positions.push(parent, segment, at, key)
    }

    fn name_segment(&mut self, name: &str) -> Segment {
        if self.mute > 0 {
            return Segment::Root;
        }
        self.positions.push_name(name)
    }

    fn node_start(&mut self, event: &Event<'a>, span: Span) -> Position {
        match event {
            Event::MappingStart(..) | Event::SequenceStart(..) => self.collection_start(span),
            _ => position(span.start),
        }
    }

    /// Where a mapping or sequence starts as a user sees it: its `{` or `[` in flow style; in
    /// block style its first key or item, where saphyr's start span ends (after any anchor or
    /// tag).
    fn collection_start(&mut self, span: Span) -> Position {
        let end = span.end;
        let before = self.cursor.char_before(end.index());
        if matches!(before, Some('{' | '[')) {
            return Position {
                line: end.line().max(1),
                column: end.col().max(1),
            };
        }
        position(end)
    }
}

fn unexpected(span: Span) -> SyntaxError {
    SyntaxError::new(position(span.start), "unexpected YAML structure")
}

/// The value a merge key brings in must be a mapping.
fn merge_mapping(value: Value, at: Position) -> Result<Map<String, Value>, SyntaxError> {
    match value {
        Value::Object(map) => Ok(map),
        _ => Err(SyntaxError::new(
            at,
            "merge key `<<` expects a mapping or a list of mappings",
        )),
    }
}

/// The string form of a scalar key; `None` for a mapping or sequence.
fn key_string(value: Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s),
        Value::Null => Some("null".to_owned()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) => Some(n.to_string()),
        Value::Array(_) | Value::Object(_) => None,
    }
}

/// Number of values in `value` (itself included) and its nesting depth (a scalar is 0).
fn measure(value: &Value) -> (usize, usize) {
    let add = |(values, depth): (usize, usize), child: &Value| {
        let (child_values, child_depth) = measure(child);
        (
            values.saturating_add(child_values),
            depth.max(child_depth + 1),
        )
    };
    match value {
        Value::Array(items) => items.iter().fold((1, 1), add),
        Value::Object(map) => map.values().fold((1, 1), add),
        _ => (1, 0),
    }
}

/// Maps saphyr's character indices to bytes of the text, moving a cursor (events come in
/// nearly increasing order, so this is linear overall).
struct CharCursor<'a> {
    text: &'a str,
    chars: usize,
    bytes: usize,
}

impl<'a> CharCursor<'a> {
    fn new(text: &'a str) -> Self {
        CharCursor {
            text,
            chars: 0,
            bytes: 0,
        }
    }

    fn char_before(&mut self, char_index: usize) -> Option<char> {
        let target = char_index.checked_sub(1)?;
        self.seek(target);
        self.text.get(self.bytes..)?.chars().next()
    }

    fn seek(&mut self, target: usize) {
        while self.chars > target {
            let Some(c) = self
                .text
                .get(..self.bytes)
                .and_then(|s| s.chars().next_back())
            else {
                return;
            };
            self.bytes -= c.len_utf8();
            self.chars -= 1;
        }
        while self.chars < target {
            let Some(c) = self.text.get(self.bytes..).and_then(|s| s.chars().next()) else {
                return;
            };
            self.bytes += c.len_utf8();
            self.chars += 1;
        }
    }
}

// ---------------------------------------------------------------------------------------------
// YAML scalar resolution (YAML 1.2 core schema)
// ---------------------------------------------------------------------------------------------

/// A number as YAML wrote it, before the JSON finiteness check.
enum Num {
    Int(i64),
    UInt(u64),
    Float(f64),
}

fn resolve_scalar(text: &str, style: ScalarStyle, tag: Option<&Tag>) -> Result<Value, String> {
    match tag {
        Some(tag) if tag.is_yaml_core_schema() => resolve_tagged(text, &tag.suffix),
        Some(_) => Ok(Value::String(text.to_owned())),
        None if style == ScalarStyle::Plain => resolve_plain(text),
        None => Ok(Value::String(text.to_owned())),
    }
}

fn resolve_plain(text: &str) -> Result<Value, String> {
    if is_null(text) {
        return Ok(Value::Null);
    }
    if let Some(b) = parse_bool(text) {
        return Ok(Value::Bool(b));
    }
    match parse_int(text).or_else(|| parse_float(text).map(Num::Float)) {
        Some(number) => number_value(number, text),
        None => Ok(Value::String(text.to_owned())),
    }
}

fn resolve_tagged(text: &str, suffix: &str) -> Result<Value, String> {
    let invalid = || format!("`{text}` is not a valid !!{suffix}");
    match suffix {
        "null" if is_null(text) => Ok(Value::Null),
        "bool" => parse_bool(text).map(Value::Bool).ok_or_else(invalid),
        "int" => parse_int(text)
            .ok_or_else(invalid)
            .and_then(|n| number_value(n, text)),
        "float" => {
            let float = parse_float(text).or_else(|| parse_int(text).map(num_to_f64));
            let float = float.ok_or_else(invalid)?;
            number_value(Num::Float(float), text)
        }
        "null" => Err(invalid()),
        _ => Ok(Value::String(text.to_owned())),
    }
}

fn is_null(text: &str) -> bool {
    matches!(text, "" | "~" | "null" | "Null" | "NULL")
}

fn parse_bool(text: &str) -> Option<bool> {
    match text {
        "true" | "True" | "TRUE" => Some(true),
        "false" | "False" | "FALSE" => Some(false),
        _ => None,
    }
}

/// `[-+]?[0-9]+`, `0o[0-7]+`, `0x[0-9a-fA-F]+`; too large for 64 bits gives a float.
fn parse_int(text: &str) -> Option<Num> {
    if let Some(digits) = text.strip_prefix("0o") {
        return parse_radix(digits, 8);
    }
    if let Some(digits) = text.strip_prefix("0x") {
        return parse_radix(digits, 16);
    }
    let unsigned = text.strip_prefix(['-', '+']).unwrap_or(text);
    if !is_digits(unsigned) {
        return None;
    }
    if let Ok(i) = text.parse::<i64>() {
        return Some(Num::Int(i));
    }
    if let Ok(u) = text.parse::<u64>() {
        return Some(Num::UInt(u));
    }
    text.parse::<f64>().ok().map(Num::Float)
}

fn parse_radix(digits: &str, radix: u32) -> Option<Num> {
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    if let Ok(u) = u64::from_str_radix(digits, radix) {
        return Some(Num::UInt(u));
    }
    let float = digits.chars().filter_map(|c| c.to_digit(radix));
    Some(Num::Float(
        float.fold(0.0, |acc, d| acc * f64::from(radix) + f64::from(d)),
    ))
}

/// `[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?` and the `.inf` / `.nan` forms.
fn parse_float(text: &str) -> Option<f64> {
    let unsigned = text.strip_prefix(['-', '+']).unwrap_or(text);
    let negative = text.starts_with('-');
    match unsigned {
        ".inf" | ".Inf" | ".INF" if negative => return Some(f64::NEG_INFINITY),
        ".inf" | ".Inf" | ".INF" => return Some(f64::INFINITY),
        ".nan" | ".NaN" | ".NAN" if unsigned.len() == text.len() => return Some(f64::NAN),
        _ => {}
    }
    if !is_float_syntax(unsigned) {
        return None;
    }
    text.parse::<f64>().ok()
}

fn is_float_syntax(unsigned: &str) -> bool {
    let (mantissa, exponent) = match unsigned.find(['e', 'E']) {
        Some(at) => (&unsigned[..at], Some(&unsigned[at + 1..])),
        None => (unsigned, None),
    };
    let mantissa_ok = match mantissa.split_once('.') {
        Some(("", fraction)) => is_digits(fraction),
        Some((whole, fraction)) => is_digits(whole) && fraction.bytes().all(|b| b.is_ascii_digit()),
        None => is_digits(mantissa),
    };
    let exponent_ok = exponent.is_none_or(|e| is_digits(e.strip_prefix(['-', '+']).unwrap_or(e)));
    mantissa_ok && exponent_ok
}

fn is_digits(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

fn num_to_f64(number: Num) -> f64 {
    match number {
        Num::Int(i) => i as f64,
        Num::UInt(u) => u as f64,
        Num::Float(f) => f,
    }
}

fn number_value(number: Num, text: &str) -> Result<Value, String> {
    match number {
        Num::Int(i) => Ok(Value::from(i)),
        Num::UInt(u) => Ok(Value::from(u)),
        Num::Float(f) => Number::from_f64(f)
            .map(Value::Number)
            .ok_or_else(|| format!("`{text}` is not a finite number (JSON cannot hold it)")),
    }
}

// ---------------------------------------------------------------------------------------------
// JSON
// ---------------------------------------------------------------------------------------------

/// Parse one JSON document: the value via serde_json (its errors mapped to SyntaxError with
/// line/column in chars), positions via [`json_positions`]' scanner, which also rejects
/// duplicate keys.
pub fn parse_json(text: &str) -> Result<Document, SyntaxError> {
    let value = serde_json::from_str::<Value>(text).map_err(|e| json_error(text, &e))?;
    let mut scanner = JsonScanner::new(text, true);
    scanner.run();
    if let Some(error) = scanner.duplicate {
        return Err(error);
    }
    Ok(Document {
        value,
        positions: scanner.out,
    })
}

/// Only the positions of a JSON text (used lazily: JSONL lines are parsed with serde_json
/// directly for speed, and positions are computed only when an error needs a location). Never
/// panics; on malformed input returns whatever it recorded so far.
pub fn json_positions(text: &str) -> Positions {
    let mut scanner = JsonScanner::new(text, false);
    scanner.run();
    scanner.out
}

/// serde_json reports 1-based lines and 1-based columns in bytes (column 0 when the error is
/// the newline ending the previous line); convert to columns in chars.
fn json_error(text: &str, error: &serde_json::Error) -> SyntaxError {
    let message = error.to_string();
    let suffix = format!(" at line {} column {}", error.line(), error.column());
    let message = message.strip_suffix(&suffix).unwrap_or(&message);
    let (mut line, mut byte_column) = (error.line().max(1), error.column());
    let mut line_text = text.split('\n').nth(line - 1).unwrap_or("");
    if byte_column == 0 && line > 1 {
        line -= 1;
        line_text = text.split('\n').nth(line - 1).unwrap_or("");
        byte_column = line_text.len() + 1;
    }
    let column = line_text
        .char_indices()
        .take_while(|&(i, _)| i < byte_column)
        .count();
    let column = column + usize::from(byte_column > line_text.len());
    SyntaxError::new(
        Position {
            line,
            column: column.max(1),
        },
        message,
    )
}

/// One open container of the JSON scanner.
struct Frame {
    /// The container's entry; `None` when it was not recorded (then neither are its children).
    id: Option<u32>,
    is_object: bool,
    expect_key: bool,
    next_index: usize,
    /// The key read for the next value: its segment and position.
    key: Option<(Segment, Position)>,
    /// Keys seen so far, when checking duplicates.
    seen: Option<HashMap<String, Position>>,
}

/// Single left-to-right pass over the bytes of a JSON text. Lines are counted as newlines go
/// by; columns are counted in chars, lazily, from the last recorded position on the same line.
struct JsonScanner<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    line: usize,
    /// Byte offset and 1-based column of a known point on the current line.
    mark_byte: usize,
    mark_column: usize,
    frames: Vec<Frame>,
    /// Containers opened beyond [`MAX_DEPTH`], not recorded.
    too_deep: usize,
    check_duplicates: bool,
    duplicate: Option<SyntaxError>,
    out: Positions,
}

impl<'a> JsonScanner<'a> {
    fn new(text: &'a str, check_duplicates: bool) -> Self {
        JsonScanner {
            text,
            bytes: text.as_bytes(),
            pos: 0,
            line: 1,
            mark_byte: 0,
            mark_column: 1,
            frames: Vec::new(),
            too_deep: 0,
            check_duplicates,
            duplicate: None,
            out: Positions::default(),
        }
    }

    fn run(&mut self) {
        while let Some(&byte) = self.bytes.get(self.pos) {
            match byte {
                b'\n' => {
                    self.newline(self.pos);
                    self.pos += 1;
                }
                b' ' | b'\t' | b'\r' | b':' => self.pos += 1,
                b'{' | b'[' => self.open(byte == b'{'),
                b'}' | b']' => self.close(),
                b',' => self.comma(),
                b'"' => self.string(),
                _ => self.literal(),
            }
            if self.duplicate.is_some() {
                return;
            }
        }
    }

    fn newline(&mut self, at: usize) {
        self.line += 1;
        self.mark_byte = at + 1;
        self.mark_column = 1;
    }

    /// Position of byte `at`, which lies on the current line at or after the mark.
    fn position(&mut self, at: usize) -> Position {
        let skipped = self.bytes.get(self.mark_byte..at).unwrap_or_default();
        let chars = skipped.iter().filter(|&&b| (b as i8) >= -0x40).count();
        self.mark_column += chars;
        self.mark_byte = at;
        Position {
            line: self.line,
            column: self.mark_column,
        }
    }

    fn open(&mut self, is_object: bool) {
        let at = self.pos;
        self.pos += 1;
        if self.too_deep > 0 || self.frames.len() >= MAX_DEPTH {
            self.too_deep += 1;
            return;
        }
        let position = self.position(at);
        let id = self.begin_value(position);
        self.frames.push(Frame {
            id,
            is_object,
            expect_key: is_object,
            next_index: 0,
            key: None,
            seen: (is_object && self.check_duplicates).then(HashMap::new),
        });
    }

    fn close(&mut self) {
        self.pos += 1;
        if self.too_deep > 0 {
            self.too_deep -= 1;
        } else {
            self.frames.pop();
        }
    }

    fn comma(&mut self) {
        self.pos += 1;
        if self.too_deep > 0 {
            return;
        }
        if let Some(frame) = self.frames.last_mut() {
            frame.expect_key = frame.is_object;
        }
    }

    /// Records a value starting at `position` under the current container; returns its id.
    fn begin_value(&mut self, position: Position) -> Option<u32> {
        let (parent, segment, key) = match self.frames.last_mut() {
            None => (NO_PARENT, Segment::Root, None),
            Some(frame) if frame.is_object => {
                let (segment, key) = frame.key.take()?;
                (frame.id?, segment, Some(key))
            }
            Some(frame) => {
                let index = frame.next_index;
                frame.next_index += 1;
                (frame.id?, Segment::Index(clamp(index)), None)
            }
        };
        Some(self.out.push(parent, segment, position, key))
    }

    fn string(&mut self) {
        let start = self.pos;
        let position = (self.too_deep == 0).then(|| self.position(start));
        let (end, escaped) = self.skip_string();
        self.pos = end.saturating_add(1);
        let Some(position) = position else {
            return;
        };
        if self
            .frames
            .last()
            .is_some_and(|f| f.is_object && f.expect_key)
        {
            self.key(start, end, escaped, position);
        } else {
            self.begin_value(position);
        }
    }

    /// Skips a string starting at `self.pos`; returns the index of its closing quote (or the
    /// text's length) and whether it holds escapes.
    fn skip_string(&mut self) -> (usize, bool) {
        let mut i = self.pos + 1;
        let mut escaped = false;
        while let Some(&byte) = self.bytes.get(i) {
            match byte {
                b'"' => return (i, escaped),
                b'\\' => {
                    escaped = true;
                    i += if self.bytes.get(i + 1) == Some(&b'\n') {
                        1
                    } else {
                        2
                    };
                }
                b'\n' => {
                    self.newline(i);
                    i += 1;
                }
                _ => i += 1,
            }
        }
        (self.bytes.len(), escaped)
    }

    /// Handles an object key spanning `start..=end` (its quotes).
    fn key(&mut self, start: usize, end: usize, escaped: bool, position: Position) {
        let raw = self.text.get(start + 1..end).unwrap_or_default();
        let decoded = escaped
            .then(|| self.text.get(start..=end))
            .flatten()
            .and_then(|quoted| serde_json::from_str::<String>(quoted).ok());
        let name = decoded.as_deref().unwrap_or(raw);
        let Some(frame) = self.frames.last_mut() else {
            return;
        };
        if let Some(seen) = &mut frame.seen {
            if let Some(&first) = seen.get(name) {
                self.duplicate = Some(SyntaxError::duplicate_key(name, first, position));
                return;
            }
            seen.insert(name.to_owned(), position);
        }
        frame.expect_key = false;
        if frame.id.is_some() {
            frame.key = Some((self.out.push_name(name), position));
        }
    }

    /// Numbers, `true`, `false`, `null` and any garbage: up to the next delimiter.
    fn literal(&mut self) {
        let start = self.pos;
        let mut i = start + 1;
        while let Some(&byte) = self.bytes.get(i) {
            if matches!(
                byte,
                b' ' | b'\t' | b'\r' | b'\n' | b',' | b':' | b'{' | b'}' | b'[' | b']' | b'"'
            ) {
                break;
            }
            i += 1;
        }
        self.pos = i;
        if self.too_deep == 0 {
            let position = self.position(start);
            self.begin_value(position);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn at(line: usize, column: usize) -> Position {
        Position { line, column }
    }

    fn yaml(text: &str) -> Document {
        parse_yaml(text).unwrap_or_else(|e| panic!("{e:?} in {text:?}"))
    }

    fn yaml_err(text: &str) -> SyntaxError {
        match parse_yaml(text) {
            Ok(doc) => panic!("expected an error, got {:?}", doc.value),
            Err(error) => error,
        }
    }

    fn json_err(text: &str) -> SyntaxError {
        match parse_json(text) {
            Ok(doc) => panic!("expected an error, got {:?}", doc.value),
            Err(error) => error,
        }
    }

    const SAMPLE_YAML: &str = "\
id: s-001
labels:
  requirements:
    - title: Export CSV
      source_messages: [0, 2]
    - title: \"Login\"
      source_messages:
        - 3
        - 5
  flow: {a: [x, {b: 1}]}
";

    #[test]
    fn yaml_block_positions() {
        let doc = yaml(SAMPLE_YAML);
        let p = &doc.positions;
        assert_eq!(
            doc.value["labels"]["requirements"][1]["source_messages"],
            json!([3, 5])
        );
        assert_eq!(p.value(""), Some(at(1, 1)));
        assert_eq!(p.value("/id"), Some(at(1, 5)));
        assert_eq!(p.key("/id"), Some(at(1, 1)));
        assert_eq!(p.key("/labels"), Some(at(2, 1)));
        assert_eq!(
            p.value("/labels"),
            Some(at(3, 3)),
            "block mapping: its first key"
        );
        assert_eq!(
            p.value("/labels/requirements"),
            Some(at(4, 5)),
            "block sequence: its dash"
        );
        assert_eq!(p.value("/labels/requirements/1"), Some(at(6, 7)));
        assert_eq!(p.value("/labels/requirements/1/title"), Some(at(6, 14)));
        assert_eq!(
            p.key("/labels/requirements/1/source_messages"),
            Some(at(7, 7))
        );
        assert_eq!(
            p.value("/labels/requirements/1/source_messages/0"),
            Some(at(8, 11))
        );
        assert_eq!(
            p.value("/labels/requirements/1/source_messages/1"),
            Some(at(9, 11))
        );
        assert_eq!(p.key("/labels/requirements/1/source_messages/1"), None);
    }

    #[test]
    fn yaml_flow_positions() {
        let doc = yaml(SAMPLE_YAML);
        let p = &doc.positions;
        assert_eq!(
            p.value("/labels/requirements/0/source_messages"),
            Some(at(5, 24))
        );
        assert_eq!(
            p.value("/labels/requirements/0/source_messages/1"),
            Some(at(5, 28))
        );
        assert_eq!(p.value("/labels/flow"), Some(at(10, 9)));
        assert_eq!(p.key("/labels/flow/a"), Some(at(10, 10)));
        assert_eq!(p.value("/labels/flow/a"), Some(at(10, 13)));
        assert_eq!(p.value("/labels/flow/a/0"), Some(at(10, 14)));
        assert_eq!(p.value("/labels/flow/a/1"), Some(at(10, 17)));
        assert_eq!(p.key("/labels/flow/a/1/b"), Some(at(10, 18)));
        assert_eq!(p.value("/labels/flow/a/1/b"), Some(at(10, 21)));

        let doc = yaml("a: &anchor {\n  b: 1}\nc: !!seq [\n  2]\nd: &x\n  e: 3\n");
        assert_eq!(
            doc.positions.value("/a"),
            Some(at(1, 12)),
            "the brace, not the anchor"
        );
        assert_eq!(doc.positions.value("/c"), Some(at(3, 10)));
        assert_eq!(
            doc.positions.value("/d"),
            Some(at(6, 3)),
            "block: the first key"
        );
    }

    const SAMPLE_JSON: &str = r#"{
  "id": "s-001",
  "labels": {
    "requirements": [
      {"title": "Export", "source_messages": [0, 2]},
      {
        "title": "Login",
        "source_messages": [3, 5]
      }
    ]
  }
}
"#;

    #[test]
    fn json_positions_nested() {
        let doc = parse_json(SAMPLE_JSON).unwrap();
        let expected: Value = serde_json::from_str(SAMPLE_JSON).unwrap();
        assert_eq!(doc.value, expected);
        let p = &doc.positions;
        assert_eq!(p.value(""), Some(at(1, 1)));
        assert_eq!(p.key("/id"), Some(at(2, 3)));
        assert_eq!(p.value("/id"), Some(at(2, 9)));
        assert_eq!(p.value("/labels"), Some(at(3, 13)));
        assert_eq!(p.value("/labels/requirements/0"), Some(at(5, 7)));
        assert_eq!(p.key("/labels/requirements/0/title"), Some(at(5, 8)));
        assert_eq!(p.value("/labels/requirements/0/title"), Some(at(5, 17)));
        assert_eq!(
            p.value("/labels/requirements/0/source_messages/1"),
            Some(at(5, 50))
        );
        assert_eq!(p.value("/labels/requirements/1"), Some(at(6, 7)));
        assert_eq!(
            p.key("/labels/requirements/1/source_messages"),
            Some(at(8, 9))
        );
        assert_eq!(
            p.value("/labels/requirements/1/source_messages"),
            Some(at(8, 28))
        );
        assert_eq!(
            p.value("/labels/requirements/1/source_messages/0"),
            Some(at(8, 29))
        );
        assert_eq!(
            p.value("/labels/requirements/1/source_messages/1"),
            Some(at(8, 32))
        );
        assert_eq!(p.key("/labels/requirements/1/source_messages/1"), None);
    }

    #[test]
    fn json_literals_and_escapes() {
        let text = "[true, null, -1.5e3, \"a\\\"b\", {\"k\\\"\": false}]";
        let p = json_positions(text);
        assert_eq!(p.value("/0"), Some(at(1, 2)));
        assert_eq!(p.value("/1"), Some(at(1, 8)));
        assert_eq!(p.value("/2"), Some(at(1, 14)));
        assert_eq!(p.value("/3"), Some(at(1, 22)));
        assert_eq!(p.value("/4"), Some(at(1, 30)));
        assert_eq!(p.key("/4/k\""), Some(at(1, 31)));
        assert_eq!(p.value("/4/k\""), Some(at(1, 38)));
        assert_eq!(p.value("/5"), None);
        let p = json_positions("{\"a\": 1, \"a\": [2]}");
        assert_eq!(
            p.value("/a"),
            Some(at(1, 15)),
            "the last duplicate wins, as in serde_json"
        );
        assert_eq!(p.value("/a/0"), Some(at(1, 16)));
    }

    #[test]
    fn nearest_falls_back() {
        let doc = yaml(SAMPLE_YAML);
        let p = &doc.positions;
        assert_eq!(
            p.nearest("/labels/requirements/1/title"),
            at(6, 7),
            "key first"
        );
        assert_eq!(
            p.nearest("/labels/requirements/1/source_messages/0"),
            at(8, 11)
        );
        assert_eq!(
            p.nearest("/labels/requirements/1/missing"),
            at(6, 7),
            "ancestor"
        );
        assert_eq!(p.nearest("/labels/requirements/7/x/y"), at(4, 5));
        assert_eq!(p.nearest("/nope"), at(1, 1), "the root");
        assert_eq!(Positions::default().nearest("/a/b"), at(1, 1));
        assert_eq!(Positions::default().nearest(""), at(1, 1));
    }

    fn scalar(text: &str) -> Value {
        yaml(&format!("v: {text}\n"))["v"].take()
    }

    impl std::ops::Index<&str> for Document {
        type Output = Value;
        fn index(&self, key: &str) -> &Value {
            &self.value[key]
        }
    }

    impl std::ops::IndexMut<&str> for Document {
        fn index_mut(&mut self, key: &str) -> &mut Value {
            &mut self.value[key]
        }
    }

    #[test]
    fn scalar_resolution_table() {
        let table = [
            ("~", json!(null)),
            ("null", json!(null)),
            ("Null", json!(null)),
            ("NULL", json!(null)),
            ("", json!(null)),
            ("nULL", json!("nULL")),
            ("true", json!(true)),
            ("True", json!(true)),
            ("TRUE", json!(true)),
            ("false", json!(false)),
            ("FALSE", json!(false)),
            ("yes", json!("yes")),
            ("on", json!("on")),
            ("\"true\"", json!("true")),
            ("'null'", json!("null")),
            ("\"12\"", json!("12")),
            ("42", json!(42)),
            ("-17", json!(-17)),
            ("+5", json!(5)),
            ("0123", json!(123)),
            ("0o17", json!(15)),
            ("0x1F", json!(31)),
            ("0xff", json!(255)),
            (
                "18446744073709551615",
                json!(18_446_744_073_709_551_615_u64),
            ),
            ("99999999999999999999", json!(1e20)),
            ("1e3", json!(1000.0)),
            ("-.5", json!(-0.5)),
            (".5", json!(0.5)),
            ("1.", json!(1.0)),
            ("3.25", json!(3.25)),
            ("+1.5E-2", json!(0.015)),
            ("1.2.3", json!("1.2.3")),
            ("0x", json!("0x")),
            ("0o8", json!("0o8")),
            ("1e", json!("1e")),
            ("12abc", json!("12abc")),
            ("inf", json!("inf")),
            ("nan", json!("nan")),
            ("1_000", json!("1_000")),
            ("!!str 12", json!("12")),
            ("!!str true", json!("true")),
            ("!!int \"42\"", json!(42)),
            ("!!float 1", json!(1.0)),
            ("!!bool 'false'", json!(false)),
            ("!!null ''", json!(null)),
            ("!custom 12", json!("12")),
            ("! 12", json!("12")),
            ("|\n  12\n", json!("12\n")),
            (">-\n  true\n", json!("true")),
        ];
        for (text, expected) in table {
            assert_eq!(scalar(text), expected, "scalar {text:?}");
        }
    }

    #[test]
    fn non_finite_and_invalid_tagged_scalars_are_errors() {
        for text in [
            ".inf",
            "-.inf",
            "+.INF",
            ".Inf",
            ".nan",
            ".NaN",
            "!!float .inf",
            "1e999",
        ] {
            let error = yaml_err(&format!("a: 1\nb: {text}\n"));
            assert_eq!(error.position, at(2, 4), "{text}");
            assert!(error.message.contains("not a finite number"), "{error}");
        }
        let error = yaml_err("a: !!int abc\n");
        assert_eq!(
            (error.position, error.message.as_str()),
            (at(1, 4), "`abc` is not a valid !!int")
        );
        assert!(yaml_err("a: !!bool yes\n").message.contains("!!bool"));
        assert!(yaml_err("a: !!null x\n").message.contains("!!null"));
    }

    #[test]
    fn non_string_keys_become_strings() {
        let doc = yaml("1: a\ntrue: b\n~: c\n0x10: d\n\"q\": e\n");
        assert_eq!(
            doc.value,
            json!({"1": "a", "true": "b", "null": "c", "16": "d", "q": "e"})
        );
        assert_eq!(doc.positions.key("/16"), Some(at(4, 1)));
        let error = yaml_err("a: 1\n? [x, y]\n: 2\n");
        assert_eq!(error.position, at(2, 3));
        assert!(error.message.contains("cannot be used as a key"), "{error}");
        let error = yaml_err("a: 1\n{x: 1}: 2\n");
        assert_eq!(error.position.line, 2);
        let error = yaml_err("a: &m {x: 1}\n*m : 2\n");
        assert_eq!(error.position, at(2, 1));
    }

    const ANCHORS: &str = "\
base: &base
  lang: en
  tags: [a, b]
copy: *base
list:
  - &item {x: 1}
  - *item
merged:
  <<: *base
  lang: de
multi:
  <<: [*item, *base]
  x: 2
inline:
  <<: {k: v}
";

    #[test]
    fn anchors_and_aliases() {
        let doc = yaml(ANCHORS);
        assert_eq!(doc.value["copy"], json!({"lang": "en", "tags": ["a", "b"]}));
        assert_eq!(doc.value["list"], json!([{"x": 1}, {"x": 1}]));
        let p = &doc.positions;
        assert_eq!(p.value("/copy"), Some(at(4, 7)), "the alias");
        assert_eq!(p.nearest("/copy/tags/1"), at(4, 7));
        assert_eq!(p.value("/list/1"), Some(at(7, 5)));
        assert_eq!(p.value("/base/tags/1"), Some(at(3, 13)));
        let error = yaml_err("a: [*x]\n");
        assert_eq!(error.position.line, 1);
        let error = yaml_err("a: &x [1, *x]\n");
        assert_eq!(error.position, at(1, 11));
    }

    #[test]
    fn merge_keys() {
        let doc = yaml(ANCHORS);
        assert_eq!(
            doc.value["merged"],
            json!({"lang": "de", "tags": ["a", "b"]})
        );
        assert_eq!(
            doc.value["multi"],
            json!({"x": 2, "lang": "en", "tags": ["a", "b"]})
        );
        assert_eq!(doc.value["inline"], json!({"k": "v"}));
        let p = &doc.positions;
        assert_eq!(p.key("/merged/lang"), Some(at(10, 3)), "explicit key wins");
        assert_eq!(
            p.value("/merged/tags"),
            Some(at(9, 7)),
            "merged: where it was merged"
        );
        assert_eq!(p.value("/multi/x"), Some(at(13, 6)));
        assert_eq!(p.value("/multi/lang"), Some(at(12, 15)));
        assert_eq!(p.value("/merged/<<"), None);
        let error = yaml_err("a: &a [1]\nb:\n  <<: *a\n");
        assert_eq!(error.position, at(3, 7));
        assert!(error.message.contains("merge key"), "{error}");
        assert_eq!(
            yaml("a: {\"<<\": 1}\n").value,
            json!({"a": {"<<": 1}}),
            "quoted: a plain key"
        );
    }

    #[test]
    fn duplicate_keys() {
        let error = yaml_err("id: a\ntitle: x\nid: b\n");
        assert_eq!(error.position, at(3, 1));
        assert_eq!(error.message, "duplicate key `id` (first at line 1)");
        let error = yaml_err("a:\n  b: {c: 1,\n    c: 2}\n");
        assert_eq!(error.position, at(3, 5));
        assert_eq!(error.message, "duplicate key `c` (first at line 2)");
        assert!(yaml_err("1: a\n\"1\": b\n")
            .message
            .contains("duplicate key `1`"));

        let error = json_err("{\n  \"id\": 1,\n  \"x\": {\"id\": 2},\n  \"id\": 3\n}");
        assert_eq!(error.position, at(4, 3));
        assert_eq!(error.message, "duplicate key `id` (first at line 2)");
        let error = json_err("{\"a\": 1, \"\\u0061\": 2}");
        assert_eq!(
            (error.position, error.message.as_str()),
            (at(1, 10), "duplicate key `a` (first at line 1)")
        );
        assert!(parse_json("[{\"a\": 1}, {\"a\": 2}]").is_ok());
    }

    #[test]
    fn one_yaml_document_per_file() {
        let error = yaml_err("a: 1\n---\nb: 2\n");
        assert_eq!(error.position, at(2, 1));
        assert_eq!(error.message, "a sample file holds one YAML document");
        assert_eq!(yaml_err("---\na: 1\n---\n").position, at(3, 1));
        assert_eq!(yaml("---\na: 1\n...\n").value, json!({"a": 1}));
        assert_eq!(yaml("").value, Value::Null);
        assert_eq!(yaml("# only a comment\n\n").value, Value::Null);
        assert_eq!(yaml("plain text\n").value, json!("plain text"));
    }

    #[test]
    fn yaml_syntax_errors_have_lines() {
        let error = yaml_err("id: x\nlabels:\n  a: 1\n b: 2\n");
        assert_eq!(error.position.line, 4, "{error:?}");
        let error = yaml_err("id: x\nlabels:\n  a: 1\n   b: 2\n");
        assert_eq!(error.position, at(4, 5), "{error:?}");
        let error = yaml_err("a: [1, 2\nb: 3\nc: 4\n");
        assert!(error.position.line >= 2, "{error:?}");
        let error = yaml_err("a: 1\nb: \"open\n");
        assert!(error.position.line >= 2, "{error:?}");
        let error = yaml_err("a:\n\t- 1\n");
        assert_eq!(error.position.line, 2, "{error:?}");
    }

    #[test]
    fn json_syntax_errors_have_lines() {
        let error = json_err("{\n  \"a\": \"unterminated");
        assert_eq!(error.position, at(2, 20), "its last char");
        assert!(
            error.message.starts_with("EOF while parsing a string"),
            "{error}"
        );
        let error = json_err("{\"a\": \"abc\n}");
        assert_eq!(error.position, at(1, 11), "the newline ending line 1");
        let error = json_err("{\"é\": 1, x}");
        assert_eq!(error.position, at(1, 10), "columns in chars");
        assert_eq!(error.message, "key must be a string");
        let error = json_err("\n\n  [1,\n 2,,]");
        assert_eq!(error.position, at(4, 4));
        assert_eq!(json_err("").position, at(1, 1));
        assert_eq!(json_err("{\"a\": 1}\nx").position, at(2, 1));
    }

    #[test]
    fn offset_lines_shifts_everything() {
        let mut p = json_positions("{\"a\": [1]}");
        p.offset_lines(9);
        assert_eq!(p.value("/a/0"), Some(at(10, 8)));
        assert_eq!(p.key("/a"), Some(at(10, 2)));
        assert_eq!(p.nearest("/a/5"), at(10, 7));
        let mut empty = Positions::default();
        empty.offset_lines(4);
        assert_eq!(empty.nearest("/x"), at(5, 1));
    }

    #[test]
    fn pointer_segments_are_escaped() {
        assert_eq!(escape_pointer_segment("a/b~c"), "a~1b~0c");
        assert_eq!(escape_pointer_segment("~1"), "~01");
        assert_eq!(escape_pointer_segment("plain"), "plain");
        let doc = yaml("\"a/b\": 1\nc~d:\n  - x\n");
        assert_eq!(doc.positions.value("/a~1b"), Some(at(1, 8)));
        assert_eq!(doc.positions.value("/c~0d/0"), Some(at(3, 5)));
        let p = json_positions("{\"x\\/y\": {\"~\": 2}, \"a/b\": 3}");
        assert_eq!(p.value("/x~1y/~0"), Some(at(1, 16)));
        assert_eq!(p.key("/a~1b"), Some(at(1, 20)));
    }

    #[test]
    fn crlf_line_endings() {
        let doc = yaml("a: 1\r\nb:\r\n  - x\r\n");
        assert_eq!(doc.positions.value("/b/0"), Some(at(3, 5)));
        let doc = parse_json("{\r\n  \"a\": [1,\r\n 2]\r\n}").unwrap();
        assert_eq!(doc.positions.value("/a/1"), Some(at(3, 2)));
    }

    #[test]
    fn unicode_shifts_columns_by_chars() {
        let doc = yaml("title: \"héllo wörld\"\nünï: [a, b]\n");
        assert_eq!(doc.positions.value("/ünï/1"), Some(at(2, 10)));
        let doc = yaml("t: 日本語 [x]\nb: {ä: é, c: 1}\n");
        assert_eq!(doc.positions.value("/b/c"), Some(at(2, 14)));
        assert_eq!(
            doc.positions.value("/b"),
            Some(at(2, 4)),
            "flow start found by char index"
        );
        let doc = yaml("😀: x\nü: &a {a: 1}\n");
        assert_eq!(doc.positions.value("/ü"), Some(at(2, 7)));
        let text = "{\"ünï\": [\"日本\", \"x\"],\n \"😀\": 1}";
        let doc = parse_json(text).unwrap();
        assert_eq!(doc.positions.value("/ünï/1"), Some(at(1, 16)));
        assert_eq!(doc.positions.value("/😀"), Some(at(2, 7)));
    }

    #[test]
    fn deep_nesting_is_capped() {
        let deep = "[".repeat(100_000);
        let p = json_positions(&deep);
        assert_eq!(p.value(""), Some(at(1, 1)));
        assert!(p.value(&"/0".repeat(MAX_DEPTH - 1)).is_some());
        assert!(p.value(&"/0".repeat(MAX_DEPTH)).is_none());
        let closed = format!("{}{}, 7]", "[".repeat(2000), "]".repeat(1999));
        assert_eq!(json_positions(&closed).value("/1"), Some(at(1, 4002)));
        assert!(parse_json(&deep).is_err());
        assert!(parse_yaml(&deep).is_err());
        let nested = format!("{}1{}", "[".repeat(600), "]".repeat(600));
        assert_eq!(
            yaml_err(&nested).message,
            "recursion limit exceeded",
            "saphyr's own cap"
        );
    }

    #[test]
    fn alias_expansion_is_bounded() {
        let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..12 {
            let p = i - 1;
            text.push_str(&format!(
                "a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"
            ));
        }
        assert!(yaml_err(&text).message.contains("aliases copy more than"));
    }

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
}
