//! The same memory is never sent twice (issue 16 item 4): a `[Compacted Summary]` history row
//! whose note the memory section already carries — the observation itself, or a reflection that
//! condensed it — is left out of the prompt; when the memory section does not carry it (memory
//! off, or the note trimmed out of the memory budget) the row is sent. Prompt assembly only:
//! the stored history keeps the row.
//!
//! Real SQLite stores in temp folders; the session is compacted by the store exactly as the
//! memory cycle does it (`record_observation` with compaction), and the request's history is
//! the session as the runner loads it.

use std::sync::{Arc, Mutex};

use futures_util::StreamExt;
use lango_core::agent::session::SessionServiceAdapter;
use lango_core::agent::{
    roles, Content, GenerateConfig, Llm, LlmRequest, LlmResponse, LlmStream, Part, RequestContext,
    SessionService,
};
use lango_core::memory::context::{
    assemble, AssembledRequest, AssemblyOptions, ContextAwareModelAdapter, MEMORY_HEADING,
};
use lango_core::memory::MemoryConfig;
use lango_core::store::{
    MessageKind, NewMessage, Observation, Reflection, Store, ToolCall, SUMMARY_PREFIX,
};
use lango_core::tokens::{default_counter, MessageParts};
use tempfile::TempDir;

const KEY: &str = "trip";
const NOTE: &str = "The user is planning a trip to Lisbon in May and prefers trains to planes.";

async fn temp_store() -> (TempDir, Store) {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = Store::open(&dir.path().join("lango.db"))
        .await
        .expect("open store");
    (dir, store)
}

fn call(id: &str) -> ToolCall {
    ToolCall {
        id: id.into(),
        name: "exec".into(),
        input: r#"{"cmd":"ls"}"#.into(),
        ..ToolCall::default()
    }
}

fn result(id: &str) -> ToolCall {
    ToolCall {
        id: id.into(),
        name: "exec".into(),
        output: r#"{"out":"tickets.pdf"}"#.into(),
        ..ToolCall::default()
    }
}

/// A session whose first two exchanges (seq 1..=4) were observed as [`NOTE`] and compacted
/// behind one summary row; the newest exchange (a tool call and its result) stays verbatim.
async fn compacted_session(store: &Store) -> Observation {
    store.create_session(KEY, KEY).await.expect("session");
    for (role, text) in [
        ("user", "I want to visit Lisbon in May."),
        ("assistant", "Lovely time of year."),
        ("user", "I would rather take the train."),
        ("assistant", "Trains it is."),
        ("user", "Which tickets do I have?"),
    ] {
        store
            .append_message(KEY, NewMessage::new(role, text))
            .await
            .expect("message");
    }
    let mut asking = NewMessage::new("assistant", "");
    asking.tool_calls = vec![call("c1")];
    store.append_message(KEY, asking).await.expect("call");
    let mut answer = NewMessage::new("tool", "");
    answer.tool_calls = vec![result("c1")];
    store.append_message(KEY, answer).await.expect("result");
    store
        .append_message(KEY, NewMessage::new("assistant", "One ticket, for May 3."))
        .await
        .expect("reply");
    let (observation, summary) = store
        .record_observation(
            Observation {
                id: String::new(),
                session_key: KEY.into(),
                content: NOTE.into(),
                token_count: 16,
                seq_start: 1,
                seq_end: 4,
                created_at: 0,
            },
            true,
        )
        .await
        .expect("record")
        .saved()
        .expect("not stale");
    let summary = summary.expect("compacted");
    assert_eq!(summary.content, format!("{SUMMARY_PREFIX}{NOTE}"));
    observation
}

/// The request the runner would build: the session's history as it loads it.
async fn next_request(store: &Store) -> LlmRequest {
    let sessions = SessionServiceAdapter::new(store.clone(), "lango-agent");
    let session = sessions.get(KEY).await.expect("load session");
    LlmRequest {
        model: "m".into(),
        contents: session
            .events()
            .all()
            .into_iter()
            .filter_map(|e| e.content)
            .collect(),
        config: GenerateConfig {
            system_instruction: Some(Content::new(
                roles::SYSTEM,
                vec![Part::text("You are Lango.")],
            )),
            ..GenerateConfig::default()
        },
    }
}

async fn assembled(store: &Store, key: Option<&str>, budget: usize) -> AssembledRequest {
    let request = next_request(store).await;
    assemble(
        store,
        key,
        &request,
        default_counter().as_ref(),
        &MemoryConfig::default(),
        &AssemblyOptions::with_memory_token_budget(budget),
    )
    .await
}

fn history_texts(contents: &[Content]) -> Vec<String> {
    contents.iter().map(Content::text).collect()
}

fn summaries_sent(contents: &[Content]) -> usize {
    contents
        .iter()
        .flat_map(|c| &c.parts)
        .filter(|p| {
            p.text
                .as_deref()
                .is_some_and(|t| t.starts_with(SUMMARY_PREFIX))
        })
        .count()
}

fn memory_section(assembled: &AssembledRequest) -> &str {
    let prompt = assembled.system_prompt.as_str();
    prompt.find(MEMORY_HEADING).map_or("", |at| &prompt[at..])
}

#[tokio::test]
async fn a_summary_whose_observation_is_in_the_memory_section_is_not_sent_again() {
    let (_dir, store) = temp_store().await;
    compacted_session(&store).await;
    let off = assembled(&store, None, 0).await;
    assert_eq!(
        summaries_sent(&off.contents),
        1,
        "the session has a summary row"
    );

    let on = assembled(&store, Some(KEY), 0).await;
    assert!(memory_section(&on).contains(NOTE), "{}", on.system_prompt);
    assert_eq!(
        summaries_sent(&on.contents),
        0,
        "the note is in the memory section; the summary repeating it is not sent: {:?}",
        history_texts(&on.contents)
    );
    // Everything else goes out as it was, the tool call still first with its result.
    assert_eq!(on.contents, off.contents[1..].to_vec());
    assert!(on.contents[1].parts[0].function_call.is_some());
    assert!(on.contents[2].parts[0].function_response.is_some());
    // The stored history keeps the row.
    let stored = store.list_messages(KEY).await.unwrap();
    assert_eq!(stored[0].kind, MessageKind::Summary);
}

#[tokio::test]
async fn a_summary_whose_observation_was_condensed_into_a_shown_reflection_is_not_sent_again() {
    let (_dir, store) = temp_store().await;
    let observation = compacted_session(&store).await;
    let reflection = "Trip to Lisbon in May, by train.";
    store
        .record_reflection(
            Reflection {
                id: String::new(),
                session_key: KEY.into(),
                content: reflection.into(),
                token_count: 9,
                generation: 1,
                seq_start: observation.seq_start,
                seq_end: observation.seq_end,
                source_token_count: observation.token_count,
                created_at: 0,
            },
            std::slice::from_ref(&observation.id),
            &[],
        )
        .await
        .expect("record reflection")
        .saved()
        .expect("not stale");

    let on = assembled(&store, Some(KEY), 0).await;
    let memory = memory_section(&on);
    assert!(memory.contains(reflection), "{}", on.system_prompt);
    assert!(!memory.contains(NOTE), "the observation was condensed");
    assert_eq!(
        summaries_sent(&on.contents),
        0,
        "the reflection carries what the summary says: {:?}",
        history_texts(&on.contents)
    );
}

#[tokio::test]
async fn a_summary_is_sent_when_its_note_was_trimmed_out_of_the_memory_budget() {
    let (_dir, store) = temp_store().await;
    compacted_session(&store).await;
    // A reflection about something else fills the whole budget: the note does not fit.
    let other = "The user's name is Ana.";
    store
        .save_reflection(Reflection {
            id: String::new(),
            session_key: KEY.into(),
            content: other.into(),
            token_count: 7,
            generation: 1,
            seq_start: 0,
            seq_end: 0,
            source_token_count: 0,
            created_at: 0,
        })
        .await
        .expect("reflection");
    let budget = default_counter().count(other);

    let on = assembled(&store, Some(KEY), budget).await;
    let memory = memory_section(&on);
    assert!(memory.contains(other), "{}", on.system_prompt);
    assert!(!memory.contains(NOTE), "the note is out of the budget");
    assert_eq!(
        summaries_sent(&on.contents),
        1,
        "the note is nowhere else in the prompt: the summary is sent"
    );
    assert_eq!((on.summaries_not_repeated, on.summary_tokens_saved), (0, 0));
    assert_eq!(on.contents, assembled(&store, None, 0).await.contents);
}

#[tokio::test]
async fn a_summary_is_sent_when_memory_is_off() {
    let (_dir, store) = temp_store().await;
    compacted_session(&store).await;
    // Memory off: the engine assembles without a session key (no memory section).
    let off = assembled(&store, None, 0).await;
    assert!(!off.system_prompt.contains(MEMORY_HEADING));
    assert_eq!(summaries_sent(&off.contents), 1);
    assert_eq!(off.contents, next_request(&store).await.contents);
}

#[tokio::test]
async fn leaving_out_a_repeated_summary_saves_its_tokens() {
    let (_dir, store) = temp_store().await;
    compacted_session(&store).await;
    let counter = default_counter();
    let summary_cost = counter.message_cost(&MessageParts {
        content: &format!("{SUMMARY_PREFIX}{NOTE}"),
        tool_calls: Vec::new(),
    });
    let off = assembled(&store, None, 0).await;
    let on = assembled(&store, Some(KEY), 0).await;
    let saved = off.history_tokens - on.history_tokens;
    println!(
        "history: {} tokens with the summary, {} without: {saved} saved (the summary costs {summary_cost})",
        off.history_tokens, on.history_tokens
    );
    assert_eq!(saved, summary_cost);
    // The inspector is told what was left out and what it saved.
    assert_eq!(on.summaries_not_repeated, 1);
    assert_eq!(on.summary_tokens_saved, summary_cost);
    assert_eq!(
        (off.summaries_not_repeated, off.summary_tokens_saved),
        (0, 0)
    );
}

/// What the adapter hands the model is what `assemble` shows: the summary is left out there too.
#[derive(Debug, Default)]
struct Recorder {
    calls: Mutex<Vec<LlmRequest>>,
}

impl Llm for Recorder {
    fn name(&self) -> &str {
        "recorder"
    }

    fn generate_content(&self, _: &RequestContext, request: LlmRequest, _: bool) -> LlmStream {
        self.calls.lock().unwrap().push(request);
        Box::pin(futures_util::stream::iter(vec![Ok(
            LlmResponse::complete_text("ok"),
        )]))
    }
}

#[tokio::test]
async fn the_model_is_not_sent_a_summary_the_memory_section_carries() {
    let (_dir, store) = temp_store().await;
    compacted_session(&store).await;
    let inner = Arc::new(Recorder::default());
    let adapter = ContextAwareModelAdapter::new(
        Arc::clone(&inner) as Arc<dyn Llm>,
        store.clone(),
        default_counter(),
        MemoryConfig::default(),
    );
    let request = next_request(&store).await;
    let expected = adapter
        .assemble(&RequestContext::for_session(KEY, "root"), &request)
        .await;
    let replies: Vec<_> = adapter
        .generate_content(&RequestContext::for_session(KEY, "root"), request, false)
        .collect()
        .await;
    assert!(replies.iter().all(Result::is_ok));
    let sent = inner.calls.lock().unwrap()[0].clone();
    assert_eq!(
        summaries_sent(&sent.contents),
        0,
        "{:?}",
        history_texts(&sent.contents)
    );
    assert_eq!(sent.contents, expected.contents);
    assert_eq!(sent.config.system_instruction, expected.system_instruction);
}
