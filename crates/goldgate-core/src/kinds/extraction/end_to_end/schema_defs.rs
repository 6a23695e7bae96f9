//! What extraction's code defines in the published schemas: a requirement's keys, its type
//! and priority values, and the type's `norm` pattern read as goldgate reads it.

use serde_json::json;

use crate::schema_drift::json_fields;
use crate::support::schema::{load, KindDefs};
use goldgate_core::kinds::extraction::labels::{enums, Requirement};

/// A requirement's keys and the enums it compares after `norm`.
pub(crate) fn hook() -> KindDefs {
    KindDefs {
        objects: vec![("/$defs/requirement", json_fields::<Requirement>())],
        enums: vec![
            ("requirementType", enums::REQUIREMENT_TYPE),
            ("priority", enums::PRIORITY),
        ],
    }
}

/// The requirement type's pattern reads as `norm` reads, on a few spellings.
#[test]
fn the_requirement_type_pattern_reads_as_goldgate_reads() {
    let sample = load("sample.schema.json");
    let pattern = &sample["$defs"]["requirementType"]["anyOf"][1];
    let pattern = jsonschema::draft202012::new(pattern).unwrap();
    for spelling in [
        "non-functional",
        "Non-Functional",
        "non_functional",
        " NON FUNCTIONAL ",
        "interface",
        "nonfunctional",
        "functionalx",
        "feature",
        "",
        "é-functional",
    ] {
        let by_schema = pattern.is_valid(&json!(spelling));
        let by_goldgate = goldgate_core::text::in_enum(spelling, enums::REQUIREMENT_TYPE);
        assert_eq!(by_schema, by_goldgate, "{spelling:?}");
    }
}
