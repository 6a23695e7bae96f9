//! The tuples kind's chat prompts: none built in (a tuple task's fields are the suite's),
//! and the starting point `init` writes, which gives the sample's text.

use super::Tuples;
use crate::kinds::TaskKind;

#[test]
fn there_is_no_built_in_prompt_and_the_starter_gives_the_text() {
    let prompts = Tuples.chat_prompts();
    assert!(prompts.built_in.is_none());
    assert!(prompts.starter.contains("{{ text }}"));
    assert!(prompts.starter.contains("\"final_tuples\""));
}
