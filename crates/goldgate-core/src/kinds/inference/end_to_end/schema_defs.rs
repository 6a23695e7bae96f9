//! What inference's code defines in the published schemas: an inferred requirement's keys,
//! and its inference type and necessity values.

use crate::schema_drift::json_fields;
use crate::support::schema::KindDefs;
use goldgate_core::kinds::inference::labels::{enums, InferredRequirement};

/// An inferred requirement's keys and the enums it compares after `norm`.
pub(crate) fn hook() -> KindDefs {
    KindDefs {
        objects: vec![(
            "/$defs/inferredRequirement",
            json_fields::<InferredRequirement>(),
        )],
        enums: vec![
            ("inferenceType", enums::INFERENCE_TYPE),
            ("necessity", enums::NECESSITY),
        ],
    }
}
