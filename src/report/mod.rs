//! Renderers: turning results into text for people. Later issues add the Markdown comment,
//! HTML and JUnit; this module holds the terminal tables.

pub mod html;
pub mod junit;
pub mod markdown;
pub mod progress;
pub mod terminal;
