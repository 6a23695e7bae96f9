//! Requirement ids of the `srs-agents` pipeline: the four sequences (`FR-`, `NFR-`, `CON-`,
//! `SUG-`), reading an id a model wrote (`fr-1`, `FR_001` and `FR-01` are the same id),
//! writing it with at least two digits, and numbering new items so that each sequence
//! continues after the highest number it ever used.

use std::collections::BTreeMap;

/// The sequence an id belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Prefix {
    /// A functional requirement.
    Fr,
    /// A non-functional requirement.
    Nfr,
    /// A constraint.
    Con,
    /// A suggestion ReqExplore adds.
    Sug,
}

impl Prefix {
    /// The sequences ReqParse may use (suggestions come from ReqExplore only).
    pub const PARSE: [Prefix; 3] = [Prefix::Fr, Prefix::Nfr, Prefix::Con];
    /// Every sequence.
    pub const ALL: [Prefix; 4] = [Prefix::Fr, Prefix::Nfr, Prefix::Con, Prefix::Sug];

    pub fn as_str(self) -> &'static str {
        match self {
            Prefix::Fr => "FR",
            Prefix::Nfr => "NFR",
            Prefix::Con => "CON",
            Prefix::Sug => "SUG",
        }
    }
}

/// A requirement id: its sequence and number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Id {
    pub prefix: Prefix,
    pub number: u32,
}

impl Id {
    /// Read an id as a model may write it: the prefix in any case, then `-`, `_`, a space or
    /// nothing, then a number of at most six digits, at least 1 (`fr-1`, `NFR_002`,
    /// `CON 3`). Anything else is not an id of the scheme.
    pub fn parse(text: &str) -> Option<Id> {
        let text = text.trim();
        let split = text
            .find(|c: char| !c.is_ascii_alphabetic())
            .unwrap_or(text.len());
        let (letters, rest) = text.split_at(split);
        let prefix = Prefix::ALL
            .into_iter()
            .find(|p| p.as_str().eq_ignore_ascii_case(letters))?;
        let rest = rest.trim_start();
        let digits = rest.strip_prefix(['-', '_']).unwrap_or(rest).trim_start();
        if digits.is_empty() || digits.len() > 6 || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let number: u32 = digits.parse().ok()?;
        (number >= 1).then_some(Id { prefix, number })
    }

    /// The id's canonical form, at least two digits: `FR-01`, `NFR-12`, `SUG-100`.
    pub fn render(self) -> String {
        format!("{}-{:02}", self.prefix.as_str(), self.number)
    }
}

/// The canonical form of an id a model wrote, or the text trimmed when it is not of the
/// scheme (so it can still be compared with the ids goldgate gave).
pub fn canonical(text: &str) -> String {
    Id::parse(text).map_or_else(|| text.trim().to_string(), Id::render)
}

/// The next number of each sequence: one past the highest number used so far.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Numbering {
    highest: BTreeMap<Prefix, u32>,
}

impl Numbering {
    /// Numbering that continues after every id in `used`.
    pub fn after<'a>(used: impl IntoIterator<Item = &'a str>) -> Numbering {
        let mut numbering = Numbering::default();
        for id in used.into_iter().filter_map(Id::parse) {
            numbering.saw(id);
        }
        numbering
    }

    fn saw(&mut self, id: Id) {
        let highest = self.highest.entry(id.prefix).or_default();
        *highest = (*highest).max(id.number);
    }

    /// The next id of `prefix`, counted as used.
    pub fn next(&mut self, prefix: Prefix) -> String {
        let id = Id {
            prefix,
            number: self.highest.get(&prefix).copied().unwrap_or(0) + 1,
        };
        self.saw(id);
        id.render()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_read_in_any_spelling_and_written_with_two_digits() {
        let id = |t: &str| Id::parse(t).map(Id::render);
        assert_eq!(id("FR-01").as_deref(), Some("FR-01"));
        assert_eq!(id("fr-1").as_deref(), Some("FR-01"));
        assert_eq!(id(" NFR_002 ").as_deref(), Some("NFR-02"));
        assert_eq!(id("CON 3").as_deref(), Some("CON-03"));
        assert_eq!(id("SUG7").as_deref(), Some("SUG-07"));
        assert_eq!(id("Sug-123").as_deref(), Some("SUG-123"));
        for bad in [
            "",
            "FR",
            "FR-",
            "FR-0",
            "FR-00",
            "REQ-01",
            "F-01",
            "FRX-01",
            "FR-1a",
            "FR--1",
            "FR-1234567",
            "FR-01.2",
            "1",
            "NFR -",
            "FR-١",
        ] {
            assert_eq!(Id::parse(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn canonical_keeps_other_text_trimmed() {
        assert_eq!(canonical("nfr-4"), "NFR-04");
        assert_eq!(canonical(" REQ-9 "), "REQ-9");
    }

    #[test]
    fn numbering_continues_each_sequence_after_its_highest_number() {
        let mut n = Numbering::after(["FR-01", "FR-07", "NFR-02", "junk", "SUG-1"]);
        assert_eq!(n.next(Prefix::Fr), "FR-08");
        assert_eq!(n.next(Prefix::Fr), "FR-09");
        assert_eq!(n.next(Prefix::Nfr), "NFR-03");
        assert_eq!(n.next(Prefix::Con), "CON-01");
        assert_eq!(n.next(Prefix::Sug), "SUG-02");
        let mut n = Numbering::after(["FR-99"]);
        assert_eq!(n.next(Prefix::Fr), "FR-100");
    }
}
