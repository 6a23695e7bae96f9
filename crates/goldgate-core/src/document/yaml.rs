//! YAML → value: a builder over saphyr's parser events that records positions, resolves
//! anchors, aliases and merge keys (with bounds on how many values and how many bytes of
//! text aliases may copy), refuses duplicate keys and more than one document, and caps
//! nesting depth.

use std::collections::HashMap;

use saphyr_parser::{Event, Marker, Parser, ScalarStyle, ScanError, Span, StrInput};
use serde_json::{Map, Value};

use super::positions::{clamp, Positions, Segment, NO_PARENT};
use super::yaml_scalar::resolve_scalar;
use super::{Document, Position, SyntaxError, MAX_ALIAS_BYTES, MAX_ALIAS_VALUES, MAX_DEPTH};

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
    size: Size,
}

/// How much a value holds: its values (itself included), the bytes of its text (strings
/// and keys; 8 for any other scalar) and its nesting depth (a scalar is 0).
#[derive(Clone, Copy)]
struct Size {
    values: usize,
    bytes: usize,
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
    /// The bytes of text aliases copied so far.
    alias_bytes: usize,
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
            alias_bytes: 0,
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
        if depth + anchored.size.depth > MAX_DEPTH {
            let message = format!("alias nests values deeper than {MAX_DEPTH} levels");
            return Err(SyntaxError::new(at, message));
        }
        self.alias_values = self.alias_values.saturating_add(anchored.size.values);
        if self.alias_values > MAX_ALIAS_VALUES {
            let message = format!("aliases copy more than {MAX_ALIAS_VALUES} values");
            return Err(SyntaxError::new(at, message));
        }
        // Checked before the copy is made: a long string copied many times is refused
        // before it fills the memory.
        self.alias_bytes = self.alias_bytes.saturating_add(anchored.size.bytes);
        if self.alias_bytes > MAX_ALIAS_BYTES {
            let message = format!(
                "aliases copy more than {} MiB of text; a document may expand by at most that",
                MAX_ALIAS_BYTES >> 20
            );
            return Err(SyntaxError::new(at, message));
        }
        Ok(anchored.value.clone())
    }

    fn store_anchor(&mut self, anchor: usize, value: &Value) {
        if anchor == 0 {
            return;
        }
        let size = measure(value);
        let value = value.clone();
        let anchored = Anchored { value, size };
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

/// The [`Size`] of `value`.
fn measure(value: &Value) -> Size {
    let add = |size: Size, (key, child): (usize, &Value)| {
        let of = measure(child);
        Size {
            values: size.values.saturating_add(of.values),
            bytes: size.bytes.saturating_add(key).saturating_add(of.bytes),
            depth: size.depth.max(of.depth + 1),
        }
    };
    let container = Size {
        values: 1,
        bytes: 0,
        depth: 1,
    };
    match value {
        Value::Array(items) => items.iter().map(|v| (0, v)).fold(container, add),
        Value::Object(map) => map.iter().map(|(k, v)| (k.len(), v)).fold(container, add),
        Value::String(s) => Size {
            values: 1,
            bytes: s.len(),
            depth: 0,
        },
        _ => Size {
            values: 1,
            bytes: 8,
            depth: 0,
        },
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
