//! Issue 14 item 7: no provider request ever carries a tool result without its call or a
//! call without its result, whatever the stored history (compacted, legacy).

use super::wire::assert_no_orphans;
use super::*;

fn turn_with_call() -> Vec<NewMessage> {
    vec![
        row("user", "", "list the files", vec![]),
        row("assistant", "", "", vec![call("c1", "ls", "{}")]),
        row(
            "tool",
            "",
            r#"{"files":3}"#,
            vec![response("c1", "ls", r#"{"files":3}"#)],
        ),
        row("assistant", "", "three files", vec![]),
        row("user", "", "thanks", vec![]),
        row("assistant", "", "you're welcome", vec![]),
    ]
}

/// Compaction up to a call used to archive the call and leave its result at the head.
#[tokio::test]
async fn compaction_up_to_a_call_keeps_the_call_with_its_result() {
    let (_dir, store) = temp_store_with_cost(10).await;
    seed(&store, "s", turn_with_call()).await;
    store
        .compact_messages("s", 1, "the user asked for files")
        .await
        .unwrap();
    let history = store.list_messages("s").await.unwrap();
    let roles: Vec<&str> = history.iter().map(|m| m.role.as_str()).collect();
    assert_eq!(
        roles,
        [
            "system",
            "assistant",
            "tool",
            "assistant",
            "user",
            "assistant"
        ]
    );
    let events = loaded_events(&store, "", 0, "s").await;
    assert_no_orphans(&events);
}

/// A history already stored with a result at its head (an older Lango's compaction, or a
/// legacy database): every provider's request folds it into a user line instead of an
/// orphan, and keeps what the tool said.
#[tokio::test]
async fn a_stored_result_without_its_call_is_sent_as_a_user_line_by_every_provider() {
    let (_dir, store) = temp_store_with_cost(10).await;
    let mut rows = turn_with_call();
    rows.drain(..2); // the user's message and the call are gone
    seed(&store, "s", rows).await;
    let events = loaded_events(&store, "", 0, "s").await;
    let b = assert_no_orphans(&events);
    let line = "[tool result for ls: {\"files\":3}]";
    assert_eq!(b.openai["messages"][0]["content"], line);
    assert_eq!(b.anthropic["messages"][0]["content"][0]["text"], line);
    assert_eq!(b.gemini["contents"][0]["parts"][0]["text"], line);
}

/// A call whose result was never stored, followed by the user's next message: every
/// provider's request answers it with a synthetic result.
#[tokio::test]
async fn a_stored_call_without_its_result_gets_a_synthetic_one_from_every_provider() {
    let (_dir, store) = temp_store_with_cost(10).await;
    let mut rows = turn_with_call();
    rows.remove(2);
    seed(&store, "s", rows).await;
    let events = loaded_events(&store, "", 0, "s").await;
    assert_no_orphans(&events);
}
