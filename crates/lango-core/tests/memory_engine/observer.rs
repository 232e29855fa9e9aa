//! Spec 002 "Observer Agent" scenarios and REFERENCE §3.3 / §3.6 (a).

use lango_core::memory::observer::{
    render_messages, PAYLOAD_CAP_CHARS, TOOL_CAP_CHARS, TRUNCATION_MARKER,
};
use lango_core::memory::MemoryError;
use lango_core::store::MessageKind;

use super::*;

#[tokio::test]
async fn observation_trigger_on_token_threshold() {
    // Every message costs 250; observe at ≥ 1000 (REFERENCE §3.3 [REQ]).
    let (_dir, store, counter) = store_with_cost(250).await;
    let llm = ScriptedLlm::texts(["The user set up the project."]);
    let obs = observer(&llm, &counter, &config(1000, 100_000));

    // 4 rows, 2 observable (the newest exchange u1/a1 stays) → 500 < 1000.
    pairs(&store, 0..2).await;
    assert_eq!(obs.unobserved(&store, KEY).await.unwrap().tokens, 500);
    assert!(obs.observe(&store, KEY, false).await.unwrap().is_none());
    assert_eq!(llm.call_count(), 0, "below the threshold: no model call");

    // 6 rows → rows 1..=4 observable → exactly 1000 → observe.
    pairs(&store, 2..3).await;
    assert_eq!(obs.unobserved(&store, KEY).await.unwrap().tokens, 1000);
    let o = obs
        .observe(&store, KEY, false)
        .await
        .unwrap()
        .expect("observed");
    assert_eq!(llm.call_count(), 1);
    assert_eq!(o.content, "The user set up the project.");
    assert_eq!(o.token_count, 250, "token_count = counter.count(content)");
    assert_eq!((o.seq_start, o.seq_end), (1, 4));
    assert_eq!(store.list_observations(KEY).await.unwrap(), vec![o]);
    assert_eq!(store.observed_through_seq(KEY).await.unwrap(), 4);
}

#[tokio::test]
async fn observation_content_quality() {
    let (_dir, store, counter) = store_with_cost(10).await;
    let llm = ScriptedLlm::texts(["note"]);
    let obs = observer(&llm, &counter, &config(1, 100_000));
    let long = "x".repeat(5_000);
    append(&store, "user", "Build the CLI").await;
    append_calls(
        &store,
        "assistant",
        "Running",
        vec![call("exec", "cargo build", "")],
    )
    .await;
    append_calls(&store, "tool", &long, vec![call("exec", "", &long)]).await;
    pairs(&store, 9..10).await;
    obs.observe(&store, KEY, false)
        .await
        .unwrap()
        .expect("observed");

    let calls = llm.calls();
    assert_eq!(calls.len(), 1);
    let c = &calls[0];
    let system = c.system();
    // What the note must keep (spec 002 / REFERENCE §3.3).
    for keep in [
        "decisions",
        "goals",
        "facts",
        "progress",
        "follow-ups",
        "two to five sentences",
        "ONE short paragraph",
    ] {
        assert!(
            system.contains(keep),
            "prompt should ask for {keep:?}: {system}"
        );
    }
    // What it must leave out.
    for forbid in [
        "raw tool output",
        "code",
        "small talk",
        "redundant detail",
        "re-derived",
    ] {
        assert!(
            system.contains(forbid),
            "prompt should forbid {forbid:?}: {system}"
        );
    }
    // The call: system + one user text, no tools, bounded output, not streamed, in the session.
    assert!(!c.stream);
    assert!(c.request.config.tools.is_empty());
    assert_eq!(c.request.config.max_output_tokens, Some(1024));
    assert_eq!(c.request.contents.len(), 1);
    assert_eq!(c.request.contents[0].role, "user");
    assert_eq!(c.ctx.session_key(), Some(KEY));
    // Raw tool output is printed once, cut short, saying how much was left out.
    let input = c.input();
    let capped = format!(
        "  [result] {}… ({} more characters)\n",
        "x".repeat(TOOL_CAP_CHARS),
        5_000 - TOOL_CAP_CHARS
    );
    assert!(input.contains(&capped), "{input}");
    assert_eq!(
        input.matches(&"x".repeat(100)).count(),
        TOOL_CAP_CHARS / 100
    );
    // And the observer is asked to say what the tools did and found, not to quote them.
    assert!(
        system.contains("what the tools did and what they found"),
        "{system}"
    );
    assert!(input.starts_with("[user]: Build the CLI\n[assistant]: Running\n  [tool:exec] cargo build\n[tool]:\n  [tool:exec]\n  [result] "));
}

#[tokio::test]
async fn observer_uses_configurable_llm() {
    // The engine builds the observer with the model of observationalMemory.provider/model
    // (or the agent's); the observer must call exactly that one.
    let (_dir, store, counter) = store_with_cost(10).await;
    let agent_llm = ScriptedLlm::named("agent", []);
    let memory_llm = ScriptedLlm::named("memory", [Reply::Text("note".into())]);
    let obs = observer(&memory_llm, &counter, &config(1, 100_000)).with_model("om-model");
    pairs(&store, 0..2).await;
    obs.observe(&store, KEY, false)
        .await
        .unwrap()
        .expect("observed");
    assert_eq!(agent_llm.call_count(), 0);
    let calls = memory_llm.calls();
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].request.model, "om-model");

    // Without a model override the request leaves the choice to the given Llm.
    let obs = observer(&memory_llm, &counter, &config(1, 100_000));
    pairs(&store, 2..3).await;
    obs.observe(&store, KEY, false)
        .await
        .unwrap()
        .expect("observed");
    assert_eq!(memory_llm.calls()[1].request.model, "");
}

#[tokio::test]
async fn observer_failure_graceful_degradation() {
    let (_dir, store, counter) = store_with_cost(10).await;
    let llm = ScriptedLlm::new([Reply::Fail("provider down".into())]);
    let c = cycle(&store, &llm, &counter, &config(1, 100_000)).with_compactor(true);
    pairs(&store, 0..3).await;
    let before = store.list_messages(KEY).await.unwrap();

    let report = c.run(KEY).await;
    assert!(report
        .observe_error
        .as_deref()
        .unwrap()
        .contains("provider down"));
    assert!(report.observation.is_none());
    // The raw history is intact and the cursor did not move.
    assert_eq!(store.list_messages(KEY).await.unwrap(), before);
    assert_eq!(store.observed_through_seq(KEY).await.unwrap(), 0);
    assert!(store.list_observations(KEY).await.unwrap().is_empty());

    // The next trigger retries the same rows.
    let report = c.run(KEY).await;
    let o = report.observation.expect("retried");
    assert_eq!((o.seq_start, o.seq_end), (1, 4));
    assert_eq!(llm.call_count(), 2);
    assert_eq!(llm.calls()[0].input(), llm.calls()[1].input());
}

#[tokio::test]
async fn newest_complete_exchange_stays_verbatim() {
    let (_dir, store, counter) = store_with_cost(10).await;
    let llm = ScriptedLlm::texts(["note"]);
    let obs = observer(&llm, &counter, &config(1, 100_000));

    // Only one exchange: nothing to observe, however large.
    append(&store, "user", "first question").await;
    append_calls(&store, "assistant", "", vec![call("exec", "ls", "")]).await;
    append_calls(&store, "tool", "a.txt", vec![call("exec", "", "a.txt")]).await;
    append(&store, "assistant", "first answer").await;
    assert!(obs
        .unobserved(&store, KEY)
        .await
        .unwrap()
        .messages
        .is_empty());
    assert!(obs.observe(&store, KEY, true).await.unwrap().is_none());
    assert_eq!(llm.call_count(), 0);

    // A second exchange with tool rows (one legacy user-role tool response): the first
    // exchange is observed and compacted, the second stays verbatim.
    append(&store, "user", "second question").await;
    append_calls(&store, "assistant", "", vec![call("read", "b.txt", "")]).await;
    append_calls(&store, "user", "", vec![call("read", "", "contents")]).await;
    append(&store, "assistant", "second answer").await;
    let o = obs
        .observe(&store, KEY, true)
        .await
        .unwrap()
        .expect("observed");
    assert_eq!((o.seq_start, o.seq_end), (1, 4));
    let input = llm.calls()[0].input();
    assert!(
        input.contains("first answer") && !input.contains("second"),
        "{input}"
    );

    let history = store.list_messages(KEY).await.unwrap();
    assert_eq!(history[0].kind, MessageKind::Summary);
    assert_eq!(
        history[1..].iter().map(|m| m.seq).collect::<Vec<_>>(),
        vec![5, 6, 7, 8]
    );
    assert_eq!(history[1].content, "second question");
    assert_eq!(history[3].tool_calls[0].output, "contents");
}

#[tokio::test]
async fn observer_input_bounded_by_max_message_token_budget() {
    // Cost 100 per row, budget 250: two rows per observation, the rest next cycle.
    let (_dir, store, counter) = store_with_cost(100).await;
    let llm = ScriptedLlm::texts(["n1", "n2", "n3"]);
    let config = MemoryConfig {
        max_message_token_budget: 250,
        ..config(100, 100_000)
    };
    let obs = observer(&llm, &counter, &config);
    pairs(&store, 0..3).await; // rows 1..=4 observable
    let first = obs.observe(&store, KEY, false).await.unwrap().unwrap();
    assert_eq!((first.seq_start, first.seq_end), (1, 2));
    assert_eq!(llm.calls()[0].input(), "[user]: u0\n[assistant]: a0\n");
    let second = obs.observe(&store, KEY, false).await.unwrap().unwrap();
    assert_eq!((second.seq_start, second.seq_end), (3, 4));
    assert!(obs.observe(&store, KEY, false).await.unwrap().is_none());

    // A single row above the budget is still observed on its own.
    let config = MemoryConfig {
        max_message_token_budget: 50,
        ..config
    };
    let obs = observer(&llm, &counter, &config);
    pairs(&store, 3..4).await; // rows 5, 6 observable now
    let third = obs.observe(&store, KEY, false).await.unwrap().unwrap();
    assert_eq!((third.seq_start, third.seq_end), (5, 5));
}

#[tokio::test]
async fn empty_reply_is_an_explicit_failure() {
    let (_dir, store, counter) = store_with_cost(10).await;
    let llm = ScriptedLlm::texts(["  \n "]);
    let obs = observer(&llm, &counter, &config(1, 100_000));
    pairs(&store, 0..2).await;
    let err = obs.observe(&store, KEY, true).await.unwrap_err();
    assert!(matches!(err, MemoryError::EmptyReply), "{err:?}");
    assert_eq!(store.observed_through_seq(KEY).await.unwrap(), 0);
    assert_eq!(store.list_messages(KEY).await.unwrap().len(), 4);
}

#[test]
fn render_prints_each_payload_once() {
    let messages = vec![
        msg("model", "Checking", vec![call("exec", "ls", "")]),
        msg("function", "file.txt", vec![call("exec", "", "file.txt")]),
        msg("assistant", "", vec![]),
    ];
    assert_eq!(
        render_messages(&messages),
        "[assistant]: Checking\n  [tool:exec] ls\n[tool]:\n  [tool:exec]\n  [result] file.txt\n[assistant]:\n"
    );
    let long = "é".repeat(PAYLOAD_CAP_CHARS + 1);
    let out = render_messages(&[msg("user", &long, vec![])]);
    assert_eq!(
        out,
        format!(
            "[user]: {}{TRUNCATION_MARKER}\n",
            "é".repeat(PAYLOAD_CAP_CHARS)
        )
    );
}

fn msg(role: &str, content: &str, tool_calls: Vec<lango_core::store::ToolCall>) -> StoredMessage {
    StoredMessage {
        id: 1,
        seq: 1,
        role: role.to_string(),
        author: String::new(),
        content: content.to_string(),
        tool_calls,
        status: lango_core::store::MessageStatus::Complete,
        kind: MessageKind::Message,
        token_count: 0,
        created_at: 0,
        archived: false,
        reply: None,
        attachments: Vec::new(),
    }
}

#[tokio::test]
async fn a_note_on_rows_a_rebuilt_engine_observed_meanwhile_is_dropped_without_an_error() {
    // After a settings change the app builds a new engine on the same store while the old
    // engine's observer may still be waiting for its model.
    let (_dir, store, counter) = store_with_cost(250).await;
    pairs(&store, 0..3).await; // rows 1..=4 observable
    let old_llm = ScriptedLlm::texts(["the old engine's note"]);
    let new_llm = ScriptedLlm::texts(["the new engine's note"]);
    let old = observer(&old_llm, &counter, &config(1000, 100_000));
    let new = observer(&new_llm, &counter, &config(1000, 100_000));
    let (s, n) = (store.clone(), new.clone());
    old_llm.set_hook(move || {
        let (s, n) = (s.clone(), n.clone());
        async move {
            n.observe(&s, KEY, true)
                .await
                .unwrap()
                .expect("the new engine observes rows 1..=4");
        }
    });

    let dropped = old.observe(&store, KEY, true).await.unwrap();
    assert!(dropped.is_none(), "{dropped:?}");
    let notes: Vec<String> = store
        .list_observations(KEY)
        .await
        .unwrap()
        .into_iter()
        .map(|o| o.content)
        .collect();
    assert_eq!(notes, ["the new engine's note"]);
    let summaries = store
        .list_messages(KEY)
        .await
        .unwrap()
        .into_iter()
        .filter(|m| m.kind == MessageKind::Summary)
        .count();
    assert_eq!(summaries, 1);
}

#[tokio::test]
async fn a_stored_one_megabyte_tool_result_is_observed_cut_short_and_compacted() {
    // A row written before tool output was capped: 1 MB of output in one tool row.
    let (_dir, store, counter) = store_tiktoken().await;
    let llm = ScriptedLlm::texts(["The assistant listed the logs; they were all routine."]);
    let config = MemoryConfig {
        max_message_token_budget: 2_000,
        ..config(100, 1_000_000)
    };
    let c = MemoryCycle::new(
        observer(&llm, &counter, &config),
        reflector(&llm, &counter, &config),
        store.clone(),
    )
    .with_compactor(true);
    let huge = "log line: all routine\n".repeat(1_000_000 / 22);
    append(&store, "user", "Show me the logs").await;
    append_calls(&store, "assistant", "", vec![call("read_logs", "{}", "")]).await;
    append_calls(&store, "tool", &huge, vec![call("read_logs", "", &huge)]).await;
    append(&store, "assistant", "They are routine.").await;
    pairs(&store, 0..1).await;

    let report = c.run(KEY).await;
    let o = report.observation.expect("observed despite the huge row");
    assert_eq!(
        (o.seq_start, o.seq_end),
        (1, 4),
        "the whole exchange, tool row included"
    );
    let input = llm.calls()[0].input();
    assert!(
        input.len() < 2_000,
        "the observer got {} characters",
        input.len()
    );
    assert!(input.contains("more characters)"), "{input}");
    // Compacted: the history starts with the summary, the archive holds the huge row whole.
    let history = store.list_messages(KEY).await.unwrap();
    assert_eq!(history[0].kind, lango_core::store::MessageKind::Summary);
    let archived = store.archived_messages(KEY, 1, 4).await.unwrap();
    assert_eq!(archived.len(), 4);
    assert_eq!(archived[2].tool_calls[0].output, huge);
}

/// Issue 14 item 7: a batch cut by `maxMessageTokenBudget` right after a call used to end
/// there, so compaction archived the call and left its result at the head of the history
/// (OpenAI and Anthropic answer 400). The batch now ends before the call.
#[tokio::test]
async fn an_observed_and_compacted_batch_never_leaves_a_result_without_its_call() {
    let (_dir, store, counter) = store_with_cost(100).await;
    let llm = ScriptedLlm::texts(["The user listed files."]);
    let mut cfg = config(1, 100_000);
    cfg.max_message_token_budget = 300; // u0, a0, the call — not its result
    let obs = observer(&llm, &counter, &cfg);
    pairs(&store, 0..1).await;
    append_calls(&store, "assistant", "", vec![call("ls", "{}", "")]).await;
    append_calls(&store, "tool", "", vec![call("ls", "", r#"{"files":3}"#)]).await;
    append(&store, "assistant", "three files").await;
    pairs(&store, 1..2).await;
    let o = obs
        .observe(&store, KEY, true)
        .await
        .unwrap()
        .expect("observed");
    assert_eq!(
        (o.seq_start, o.seq_end),
        (1, 2),
        "the batch ends before the call"
    );
    let history = store.list_messages(KEY).await.unwrap();
    let head = history
        .iter()
        .find(|m| m.kind == MessageKind::Message)
        .unwrap();
    assert!(
        !head.is_tool_result(),
        "history starts with an orphan result: {head:?}"
    );
    assert_eq!(head.tool_calls[0].name, "ls");
}

#[tokio::test]
async fn a_batch_too_long_for_the_memory_models_context_is_observed_in_part() {
    // 14 observable rows of 250 within the default 8,000 budget: all in one batch, which the
    // model (run with a smaller context) refuses; half of it is observed, the rest waits.
    let (_dir, store, counter) = store_with_cost(250).await;
    let llm = ScriptedLlm::new([Reply::TooLong, Reply::Text("The first part.".into())]);
    let obs = observer(&llm, &counter, &config(1000, 100_000));
    pairs(&store, 0..8).await;
    let o = obs
        .observe(&store, KEY, false)
        .await
        .unwrap()
        .expect("observed");
    let calls = llm.calls();
    assert_eq!(calls.len(), 2);
    assert!(calls[1].input().len() < calls[0].input().len());
    assert_eq!(o.content, "The first part.");
    assert_eq!(
        (o.seq_start, o.seq_end),
        (1, 7),
        "the half of 3,500 tokens: 7 rows"
    );
    assert_eq!(store.observed_through_seq(KEY).await.unwrap(), o.seq_end);
    // The next cycle goes on from there.
    assert!(obs.unobserved(&store, KEY).await.unwrap().tokens >= 1000);
}

#[tokio::test]
async fn one_message_too_long_for_the_memory_models_context_fails_the_cycle_and_saves_nothing() {
    let (_dir, store, counter) = store_with_cost(5000).await;
    let llm = ScriptedLlm::new([Reply::TooLong]);
    let obs = observer(&llm, &counter, &config(1000, 100_000));
    pairs(&store, 0..2).await;
    let e = obs.observe(&store, KEY, false).await.unwrap_err();
    assert!(matches!(e, MemoryError::Model(_)), "{e:?}");
    assert_eq!(
        llm.call_count(),
        1,
        "one row cannot be made smaller: no retry"
    );
    assert!(store.list_observations(KEY).await.unwrap().is_empty());
    assert_eq!(store.observed_through_seq(KEY).await.unwrap(), 0);
}
