//! What validation's code defines in the published schemas: an issue's keys, and its issue
//! type and severity values.

use crate::schema_drift::json_fields;
use crate::support::schema::KindDefs;
use goldgate_core::kinds::validation::labels::{enums, Issue};

/// An issue's keys and the enums it compares after `norm`.
pub(crate) fn hook() -> KindDefs {
    KindDefs {
        objects: vec![("/$defs/issue", json_fields::<Issue>())],
        enums: vec![
            ("issueType", enums::ISSUE_TYPE),
            ("severity", enums::SEVERITY),
        ],
    }
}
