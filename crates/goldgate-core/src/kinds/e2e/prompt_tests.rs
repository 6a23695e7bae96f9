//! The e2e kind's built-in chat prompt (`prompt.j2`), as its template reads: what it asks
//! for, and what it gives the model when a sample has no conversation.

use super::E2e;
use crate::kinds::TaskKind;

#[test]
fn the_prompt_asks_for_the_requirements_and_the_document() {
    let prompt = E2e.chat_prompts().built_in.expect("a built-in prompt");
    for key in ["\"requirements\"", "\"srs_markdown\""] {
        assert!(prompt.contains(key), "{key}");
    }
}

#[test]
fn without_a_conversation_the_prompt_gives_the_stakeholders_statement() {
    let prompt = E2e.chat_prompts().built_in.expect("a built-in prompt");
    let (with, without) = prompt
        .split_once("{% else %}")
        .expect("the prompt tells a conversation from a statement");
    assert!(with.contains("{% if transcript %}") && with.contains("{{ transcript }}"));
    assert!(without.contains("{{ user_input }}"));
}
