//! Context assembly with observations (spec 002 "Context Assembly with Observations",
//! "Configurable memory context limits", "Memory token budgeting in context assembly";
//! REFERENCE §3.8; acceptance 54–57).
//!
//! Real SQLite stores in temp folders; the inner model is `Recorder`, a fake `Llm` that
//! records every request it is given and answers "ok".

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use futures_util::StreamExt;
use lango_core::agent::{
    roles, Content, GenerateConfig, Llm, LlmRequest, LlmResponse, LlmStream, Part, RequestContext,
};
use lango_core::memory::context::{
    assemble, memory_section, AssemblyOptions, ContextAwareModelAdapter,
    DEFAULT_MEMORY_TOKEN_BUDGET,
};
use lango_core::memory::knowledge::knowledge_section;
use lango_core::memory::runtime_context::{channel_type, RuntimeContext};
use lango_core::memory::MemoryConfig;
use lango_core::provider::ToolSpec;
use lango_core::store::{NewMessage, Observation, Reflection, Store};
use lango_core::tokens::{default_counter, TokenCounter};
use serde_json::json;
use tempfile::TempDir;

// ---------------------------------------------------------------------------------------
// Harness
// ---------------------------------------------------------------------------------------

#[derive(Debug, Default)]
struct Recorder {
    calls: Mutex<Vec<(Option<String>, LlmRequest)>>,
}

impl Recorder {
    fn last(&self) -> LlmRequest {
        self.calls
            .lock()
            .unwrap()
            .last()
            .expect("the inner model was called")
            .1
            .clone()
    }

    fn count(&self) -> usize {
        self.calls.lock().unwrap().len()
    }
}

impl Llm for Recorder {
    fn name(&self) -> &str {
        "recorder"
    }

    fn generate_content(&self, ctx: &RequestContext, request: LlmRequest, _: bool) -> LlmStream {
        self.calls
            .lock()
            .unwrap()
            .push((ctx.session_key.clone(), request));
        Box::pin(futures_util::stream::iter(vec![Ok(LlmResponse {
            content: Some(Content::model_text("ok")),
            turn_complete: true,
            ..LlmResponse::default()
        })]))
    }
}

/// Counts a text as its entry in the table, else 1 ("cost N" per item).
#[derive(Debug, Default)]
struct CostTable(HashMap<String, usize>);

impl CostTable {
    fn new(entries: &[(&str, usize)]) -> Arc<Self> {
        Arc::new(Self(
            entries.iter().map(|(t, c)| ((*t).to_owned(), *c)).collect(),
        ))
    }
}

impl TokenCounter for CostTable {
    fn count(&self, text: &str) -> usize {
        self.0.get(text).copied().unwrap_or(1)
    }
}

async fn temp_store() -> (TempDir, Store) {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = Store::open(&dir.path().join("lango.db"))
        .await
        .expect("open store");
    (dir, store)
}

async fn session(store: &Store, key: &str) {
    store.create_session(key, key).await.expect("session");
}

async fn observe(store: &Store, key: &str, content: &str) -> Observation {
    store
        .save_observation(Observation {
            id: String::new(),
            session_key: key.to_owned(),
            content: content.to_owned(),
            token_count: 0,
            seq_start: 0,
            seq_end: 0,
            created_at: 0,
        })
        .await
        .expect("save observation")
}

async fn reflect(store: &Store, key: &str, content: &str) -> Reflection {
    store
        .save_reflection(Reflection {
            id: String::new(),
            session_key: key.to_owned(),
            content: content.to_owned(),
            token_count: 0,
            generation: 1,
            seq_start: 0,
            seq_end: 0,
            source_token_count: 0,
            created_at: 0,
        })
        .await
        .expect("save reflection")
}

fn request(base: &str, user: &str) -> LlmRequest {
    LlmRequest {
        model: "m".into(),
        contents: vec![
            Content::user_text("earlier question"),
            Content::model_text("earlier answer"),
            Content::user_text(user),
        ],
        config: GenerateConfig {
            system_instruction: (!base.is_empty())
                .then(|| Content::new(roles::SYSTEM, vec![Part::text(base)])),
            temperature: Some(0.2),
            max_output_tokens: Some(512),
            tools: vec![ToolSpec {
                name: "exec".into(),
                description: "run".into(),
                parameters: json!({"type": "object"}),
            }],
        },
    }
}

fn adapter(
    inner: &Arc<Recorder>,
    store: &Store,
    counter: Arc<dyn TokenCounter>,
    config: MemoryConfig,
) -> ContextAwareModelAdapter {
    ContextAwareModelAdapter::new(
        Arc::clone(inner) as Arc<dyn Llm>,
        store.clone(),
        counter,
        config,
    )
}

/// Sends through the adapter, drains the stream, returns what the inner model got.
async fn send(
    adapter: &ContextAwareModelAdapter,
    inner: &Recorder,
    key: Option<&str>,
    req: LlmRequest,
) -> LlmRequest {
    let ctx = match key {
        Some(k) => RequestContext::for_session(k, "root"),
        None => RequestContext::default(),
    };
    let before = inner.count();
    let responses: Vec<_> = adapter.generate_content(&ctx, req, false).collect().await;
    assert_eq!(responses.len(), 1);
    assert!(responses[0].is_ok());
    assert_eq!(inner.count(), before + 1, "exactly one inner call");
    inner.last()
}

fn system_text(req: &LlmRequest) -> String {
    req.config
        .system_instruction
        .as_ref()
        .map(|c| {
            c.parts
                .iter()
                .filter_map(|p| p.text.clone())
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default()
}

fn pos(haystack: &str, needle: &str) -> usize {
    haystack
        .find(needle)
        .unwrap_or_else(|| panic!("{needle:?} missing in {haystack:?}"))
}

fn section_lines(text: &str) -> Vec<String> {
    text.lines().map(str::to_owned).collect()
}

fn limits(reflections: usize, observations: usize) -> MemoryConfig {
    MemoryConfig {
        max_reflections_in_context: reflections,
        max_observations_in_context: observations,
        ..MemoryConfig::default()
    }
}

// ---------------------------------------------------------------------------------------
// Spec 002: Context Assembly with Observations
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn context_ordering() {
    let (_d, store) = temp_store().await;
    session(&store, "s1").await;
    let old = observe(&store, "s1", "the cluster runs kubernetes with helm charts").await;
    reflect(&store, "s1", "user operates production kubernetes clusters").await;
    observe(&store, "s1", "newest note about dashboards").await;
    let inner = Arc::new(Recorder::default());
    // Only the newest observation fits the memory section, so the older one can come from RAG.
    let adapter = adapter(&inner, &store, default_counter(), limits(5, 1)).with_knowledge(true);

    let req = request("You are Lango.", "How do I upgrade kubernetes?");
    let sent = send(&adapter, &inner, Some("s1"), req.clone()).await;
    let text = system_text(&sent);

    assert!(
        text.starts_with("You are Lango.\n\n## Semantic Context (RAG)\n"),
        "{text}"
    );
    let rag = pos(&text, "## Semantic Context (RAG)");
    let old_item = pos(
        &text,
        &format!("### [observation] {}\n{}", old.id, old.content),
    );
    let runtime = pos(&text, "## Runtime Context");
    let memory = pos(&text, "\n\n## Conversation Memory\n");
    let summary = pos(
        &text,
        "### Summary\nuser operates production kubernetes clusters\n",
    );
    let recent = pos(
        &text,
        "### Recent Observations\n- newest note about dashboards\n",
    );
    assert!(rag < old_item && old_item < runtime && runtime < memory);
    assert!(memory < summary && summary < recent);
    // The reflection is in the memory section, not repeated by RAG.
    assert_eq!(
        text.matches("user operates production kubernetes").count(),
        1
    );
    // Recent messages follow as contents, unchanged; everything else untouched.
    assert_eq!(sent.contents, req.contents);
    assert_eq!(sent.config.tools, req.config.tools);
    assert_eq!(sent.config.temperature, req.config.temperature);
    assert_eq!(sent.model, req.model);
}

#[tokio::test]
async fn no_observations_available() {
    let (_d, store) = temp_store().await;
    session(&store, "s1").await;
    let inner = Arc::new(Recorder::default());
    let adapter = adapter(&inner, &store, default_counter(), MemoryConfig::default());
    let mut req = request("You are Lango.", "hello");
    // Several instruction parts, one empty: must survive exactly.
    req.config.system_instruction = Some(Content::new(
        roles::SYSTEM,
        vec![
            Part::text("You are Lango."),
            Part::text(""),
            Part::text("Be brief."),
        ],
    ));
    let sent = send(&adapter, &inner, Some("s1"), req.clone()).await;
    assert_eq!(sent, req);
    assert_eq!(
        serde_json::to_vec(&sent.config.system_instruction).unwrap(),
        serde_json::to_vec(&req.config.system_instruction).unwrap()
    );
    // No instruction at all stays None.
    let bare = request("", "hello");
    assert_eq!(send(&adapter, &inner, Some("s1"), bare.clone()).await, bare);
    // A session the store does not know behaves the same.
    assert_eq!(send(&adapter, &inner, Some("nope"), req.clone()).await, req);
}

#[tokio::test]
async fn observation_formatting() {
    let (_d, store) = temp_store().await;
    session(&store, "s1").await;
    observe(&store, "s1", "obs one").await;
    reflect(&store, "s1", "refl one").await;
    observe(&store, "s1", "obs two").await;
    reflect(&store, "s1", "refl two").await;
    let inner = Arc::new(Recorder::default());
    let adapter = adapter(&inner, &store, default_counter(), MemoryConfig::default());
    let sent = send(&adapter, &inner, Some("s1"), request("Base.", "hi")).await;
    assert_eq!(
        system_text(&sent),
        "Base.\n\n## Conversation Memory\n\n### Summary\nrefl one\nrefl two\n\n\
         ### Recent Observations\n- obs one\n- obs two\n"
    );
}

#[tokio::test]
async fn session_key_resolved_from_request_context() {
    let (_d, store) = temp_store().await;
    session(&store, "alpha").await;
    session(&store, "beta").await;
    observe(&store, "alpha", "alpha likes tea").await;
    observe(&store, "beta", "beta likes coffee").await;
    let inner = Arc::new(Recorder::default());
    // One adapter, constructed without any key: the key comes from each call.
    let adapter = adapter(&inner, &store, default_counter(), MemoryConfig::default());

    let a = system_text(&send(&adapter, &inner, Some("alpha"), request("B", "x")).await);
    assert!(
        a.contains("- alpha likes tea") && !a.contains("beta"),
        "{a}"
    );
    let b = system_text(&send(&adapter, &inner, Some("beta"), request("B", "x")).await);
    assert!(
        b.contains("- beta likes coffee") && !b.contains("alpha"),
        "{b}"
    );
    let a2 = system_text(&send(&adapter, &inner, Some("alpha"), request("B", "x")).await);
    assert_eq!(a, a2);
}

#[tokio::test]
async fn no_session_key_in_context_skips_memory() {
    let (_d, store) = temp_store().await;
    session(&store, "s1").await;
    observe(&store, "s1", "secret note").await;
    let inner = Arc::new(Recorder::default());
    let adapter =
        adapter(&inner, &store, default_counter(), MemoryConfig::default()).with_knowledge(true);

    let req = request("Base.", "secret note?");
    let sent = send(&adapter, &inner, None, req.clone()).await;
    assert_eq!(sent, req);
    assert!(!system_text(&sent).contains("Conversation Memory"));
    // An empty key counts as no key.
    let ctx = RequestContext {
        session_key: Some(String::new()),
        ..RequestContext::default()
    };
    let _: Vec<_> = adapter
        .generate_content(&ctx, req.clone(), false)
        .collect()
        .await;
    assert_eq!(inner.last(), req);

    // Proof the store is never touched: on a closed store every query fails (and is counted),
    // yet a call without a key records no failure.
    store.close().await;
    assert_eq!(send(&adapter, &inner, None, req.clone()).await, req);
    assert_eq!(adapter.retrieval_failures(), 0, "no key → no store query");
    // Control: with a key the same closed store is queried (fails, degrades, still sends;
    // only the runtime context, which needs no store, is added).
    let sent = send(&adapter, &inner, Some("s1"), req.clone()).await;
    assert_eq!(sent.contents, req.contents);
    assert!(!system_text(&sent).contains("Conversation Memory"));
    assert!(adapter.retrieval_failures() >= 2);
    assert_eq!(adapter.runtime_context().session_key(), "s1");
}

#[tokio::test]
async fn session_key_propagated_to_runtime_context_adapter() {
    let (_d, store) = temp_store().await;
    let inner = Arc::new(Recorder::default());
    let shared = Arc::new(RuntimeContext::new(true, false, false));
    let adapter = adapter(&inner, &store, default_counter(), MemoryConfig::default())
        .with_runtime_context(Arc::clone(&shared));

    send(
        &adapter,
        &inner,
        Some("telegram:123:456"),
        request("B", "x"),
    )
    .await;
    assert_eq!(shared.session_key(), "telegram:123:456");
    assert_eq!(shared.channel(), "telegram");
    assert_eq!(
        shared.render(),
        "## Runtime Context\nSession: telegram:123:456 | Channel: telegram | Tools: 1 | \
         Encryption: true | Knowledge: false | Memory: true"
    );
    send(&adapter, &inner, Some("tui-1"), request("B", "x")).await;
    assert_eq!(shared.session_key(), "tui-1");
    assert_eq!(shared.channel(), "direct");
    // A call without a key leaves it alone.
    send(&adapter, &inner, None, request("B", "x")).await;
    assert_eq!(shared.session_key(), "tui-1");
}

#[tokio::test]
async fn session_key_propagated_to_rag_retrieval() {
    let (_d, store) = temp_store().await;
    session(&store, "s1").await;
    session(&store, "s2").await;
    let mine = observe(&store, "s1", "the user studied zebras in Kenya").await;
    observe(&store, "s1", "newest unrelated note").await;
    let theirs = observe(
        &store,
        "s2",
        "zebras are striped, noted in the other session",
    )
    .await;
    store
        .append_message("s2", NewMessage::new("user", "zebras everywhere in s2"))
        .await
        .unwrap();
    // Earlier turns' messages: the memory cycle indexes them after each turn (retrieval
    // itself does not, to keep writes off the send path).
    store.index_pending_messages().await.unwrap();
    let inner = Arc::new(Recorder::default());
    let adapter = adapter(&inner, &store, default_counter(), limits(5, 1)).with_knowledge(true);

    let text = system_text(
        &send(
            &adapter,
            &inner,
            Some("s1"),
            request("B", "Tell me about zebras"),
        )
        .await,
    );
    assert!(
        text.contains(&format!(
            "### [observation] {}\nthe user studied zebras in Kenya\n",
            mine.id
        )),
        "{text}"
    );
    assert!(
        !text.contains(&theirs.id) && !text.contains("striped") && !text.contains("everywhere"),
        "{text}"
    );

    // The retrieval function itself, both ways round.
    let counter = default_counter();
    let (s1, _) = knowledge_section(&store, "s1", "zebras", counter.as_ref(), 0)
        .await
        .unwrap()
        .expect("s1 has a match");
    assert!(s1.starts_with("## Semantic Context (RAG)\n\n### [observation] "));
    assert!(s1.contains("Kenya") && !s1.contains("striped"));
    let (s2, _) = knowledge_section(&store, "s2", "zebras", counter.as_ref(), 0)
        .await
        .unwrap()
        .expect("s2 has a match");
    assert!(s2.contains("striped") && !s2.contains("Kenya"));
    assert!(s2.contains("### [message] "), "{s2}");
    // The query's own message is not echoed back.
    let (s2, _) = knowledge_section(&store, "s2", "zebras everywhere in s2", counter.as_ref(), 0)
        .await
        .unwrap()
        .expect("s2 has a match");
    assert!(s2.contains("striped") && !s2.contains("[message]"), "{s2}");
    assert_eq!(
        knowledge_section(&store, "s1", "giraffes", counter.as_ref(), 0)
            .await
            .unwrap(),
        None
    );
}

// ---------------------------------------------------------------------------------------
// Spec 002: Configurable memory context limits
// ---------------------------------------------------------------------------------------

async fn seed_many(store: &Store, key: &str, reflections: usize, observations: usize) {
    session(store, key).await;
    for i in 0..reflections {
        reflect(store, key, &format!("reflection {i:02}")).await;
    }
    for i in 0..observations {
        observe(store, key, &format!("observation {i:02}")).await;
    }
}

fn memory_items(text: &str) -> (Vec<String>, Vec<String>) {
    let lines = section_lines(text);
    let refl = lines
        .iter()
        .filter(|l| l.starts_with("reflection "))
        .cloned()
        .collect();
    let obs = lines
        .iter()
        .filter_map(|l| l.strip_prefix("- observation "))
        .map(|n| format!("observation {n}"))
        .collect();
    (refl, obs)
}

fn names(prefix: &str, range: std::ops::Range<usize>) -> Vec<String> {
    range.map(|i| format!("{prefix} {i:02}")).collect()
}

#[tokio::test]
async fn default_limits_applied() {
    let config = MemoryConfig::default();
    assert_eq!(config.max_reflections_in_context, 5);
    assert_eq!(config.max_observations_in_context, 20);
    let (_d, store) = temp_store().await;
    seed_many(&store, "s1", 7, 25).await;
    let inner = Arc::new(Recorder::default());
    let adapter = adapter(&inner, &store, default_counter(), config);
    let text = system_text(&send(&adapter, &inner, Some("s1"), request("B", "x")).await);
    let (refl, obs) = memory_items(&text);
    assert_eq!(refl, names("reflection", 2..7));
    assert_eq!(obs, names("observation", 5..25));
}

#[tokio::test]
async fn custom_limits_applied() {
    let (_d, store) = temp_store().await;
    seed_many(&store, "s1", 7, 25).await;
    let inner = Arc::new(Recorder::default());
    let adapter = adapter(&inner, &store, default_counter(), limits(3, 10));
    let text = system_text(&send(&adapter, &inner, Some("s1"), request("B", "x")).await);
    let (refl, obs) = memory_items(&text);
    assert_eq!(refl, names("reflection", 4..7));
    assert_eq!(obs, names("observation", 15..25));
}

// ---------------------------------------------------------------------------------------
// Spec 002: Memory token budgeting in context assembly
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn default_memory_token_budget() {
    let (_d, store) = temp_store().await;
    session(&store, "s1").await;
    for r in ["r-2000", "r-1999", "r-2"] {
        reflect(&store, "s1", r).await;
    }
    let inner = Arc::new(Recorder::default());
    let counter = CostTable::new(&[("r-2000", 2000), ("r-1999", 1999), ("r-2", 2)]);
    let adapter = adapter(&inner, &store, counter, MemoryConfig::default());
    assert_eq!(adapter.memory_token_budget(), DEFAULT_MEMORY_TOKEN_BUDGET);
    assert_eq!(DEFAULT_MEMORY_TOKEN_BUDGET, 4000);
    let text = system_text(&send(&adapter, &inner, Some("s1"), request("B", "x")).await);
    // 2000 + 1999 = 3999 fits; + 2 = 4001 does not.
    assert!(
        text.contains("r-2000\nr-1999\n") && !text.contains("r-2\n"),
        "{text}"
    );
}

#[tokio::test]
async fn reflections_exceed_budget() {
    let counter = CostTable::new(&[("R1", 60), ("R2", 60), ("O1", 50), ("O2", 50)]);
    let (text, used) = memory_section(&["R1", "R2"], &["O1", "O2"], counter.as_ref(), 100).unwrap();
    assert_eq!(text, "## Conversation Memory\n\n### Summary\nR1\n");
    assert_eq!(used, 60);
    // Reflections filling the budget exactly: observations skipped even if free.
    let counter = CostTable::new(&[("R1", 50), ("R2", 50), ("R3", 50), ("O1", 0)]);
    let (text, used) = memory_section(&["R1", "R2", "R3"], &["O1"], counter.as_ref(), 100).unwrap();
    assert_eq!(text, "## Conversation Memory\n\n### Summary\nR1\nR2\n");
    assert_eq!(used, 100);

    // Through the adapter.
    let (_d, store) = temp_store().await;
    session(&store, "s1").await;
    reflect(&store, "s1", "R1").await;
    reflect(&store, "s1", "R2").await;
    observe(&store, "s1", "O1").await;
    let inner = Arc::new(Recorder::default());
    let counter = CostTable::new(&[("R1", 60), ("R2", 60), ("O1", 50)]);
    let adapter =
        adapter(&inner, &store, counter, MemoryConfig::default()).with_memory_token_budget(100);
    let text = system_text(&send(&adapter, &inner, Some("s1"), request("B", "x")).await);
    assert_eq!(text, "B\n\n## Conversation Memory\n\n### Summary\nR1\n");
}

#[tokio::test]
async fn budget_shared_between_reflections_and_observations() {
    let counter = CostTable::new(&[("R1", 40), ("O1", 30), ("O2", 30), ("O3", 30)]);
    let (text, used) = memory_section(&["R1"], &["O1", "O2", "O3"], counter.as_ref(), 100).unwrap();
    assert_eq!(
        text,
        "## Conversation Memory\n\n### Summary\nR1\n\n### Recent Observations\n- O1\n- O2\n"
    );
    assert_eq!(used, 100);
    // Stops at the first observation that does not fit, even if a later one would.
    let counter = CostTable::new(&[("R1", 40), ("O1", 30), ("O2", 50), ("O3", 1)]);
    let (text, _) = memory_section(&["R1"], &["O1", "O2", "O3"], counter.as_ref(), 100).unwrap();
    assert!(text.ends_with("- O1\n"), "{text}");
}

#[tokio::test]
async fn custom_budget_via_with_memory_token_budget() {
    let (_d, store) = temp_store().await;
    session(&store, "s1").await;
    reflect(&store, "s1", "R1").await;
    reflect(&store, "s1", "R2").await;
    let inner = Arc::new(Recorder::default());
    let counter: Arc<dyn TokenCounter> = CostTable::new(&[("R1", 30), ("R2", 30)]);
    let custom = adapter(
        &inner,
        &store,
        Arc::clone(&counter),
        MemoryConfig::default(),
    )
    .with_memory_token_budget(50);
    assert_eq!(custom.memory_token_budget(), 50);
    let text = system_text(&send(&custom, &inner, Some("s1"), request("B", "x")).await);
    assert_eq!(text, "B\n\n## Conversation Memory\n\n### Summary\nR1\n");
    // Non-positive keeps the default.
    let zero =
        adapter(&inner, &store, counter, MemoryConfig::default()).with_memory_token_budget(0);
    assert_eq!(zero.memory_token_budget(), 4000);
    let text = system_text(&send(&zero, &inner, Some("s1"), request("B", "x")).await);
    assert!(text.ends_with("### Summary\nR1\nR2\n"));
}

// ---------------------------------------------------------------------------------------
// REFERENCE acceptance 54–57
// ---------------------------------------------------------------------------------------

const EXAMPLE: &str = "## Conversation Memory\n\n### Summary\nexperienced developer\n\n### Recent Observations\n- user prefers Rust\n";

#[tokio::test]
async fn acceptance_54_exact_memory_section() {
    let counter = default_counter();
    let (text, _) = memory_section(
        &["experienced developer"],
        &["user prefers Rust"],
        counter.as_ref(),
        4000,
    )
    .unwrap();
    assert_eq!(text, EXAMPLE);

    let (_d, store) = temp_store().await;
    session(&store, "s1").await;
    reflect(&store, "s1", "experienced developer").await;
    observe(&store, "s1", "user prefers Rust").await;
    let inner = Arc::new(Recorder::default());
    let adapter = adapter(&inner, &store, counter, MemoryConfig::default());
    let sent = send(
        &adapter,
        &inner,
        Some("s1"),
        request("You are Lango.", "hi"),
    )
    .await;
    assert_eq!(system_text(&sent), format!("You are Lango.\n\n{EXAMPLE}"));
    // No base prompt: the section alone, no leading blank lines.
    let sent = send(&adapter, &inner, Some("s1"), request("", "hi")).await;
    assert_eq!(system_text(&sent), EXAMPLE);
    assert_eq!(sent.config.system_instruction.unwrap().role, roles::SYSTEM);
}

#[tokio::test]
async fn acceptance_55_budget_walk_and_nothing_fits() {
    let counter = CostTable::new(&[
        ("R1", 1500),
        ("R2", 2000),
        ("R3", 1000),
        ("O1", 300),
        ("O2", 600),
        ("BIG", 5000),
    ]);
    let (text, used) =
        memory_section(&["R1", "R2", "R3"], &["O1", "O2"], counter.as_ref(), 4000).unwrap();
    assert_eq!(
        text,
        "## Conversation Memory\n\n### Summary\nR1\nR2\n\n### Recent Observations\n- O1\n"
    );
    assert_eq!(used, 3800);
    // Budget 0 → 4000.
    assert_eq!(
        memory_section(&["R1", "R2", "R3"], &["O1", "O2"], counter.as_ref(), 0)
            .unwrap()
            .0,
        text
    );
    // [FIX] nothing fits → no section (no empty headings).
    let none: [&str; 0] = [];
    assert_eq!(
        memory_section(&["BIG"], &none, counter.as_ref(), 4000),
        None
    );
    assert_eq!(memory_section(&none, &none, counter.as_ref(), 4000), None);

    // … and through the adapter the instruction stays untouched.
    let (_d, store) = temp_store().await;
    session(&store, "s1").await;
    reflect(&store, "s1", "BIG").await;
    let inner = Arc::new(Recorder::default());
    let adapter = adapter(&inner, &store, counter, MemoryConfig::default());
    let req = request("Base.", "hi");
    assert_eq!(send(&adapter, &inner, Some("s1"), req.clone()).await, req);
}

#[tokio::test]
async fn acceptance_55_builds_on_the_requests_own_instruction() {
    // [FIX] Whatever the runtime put into THIS request's instruction is kept.
    let (_d, store) = temp_store().await;
    session(&store, "s1").await;
    observe(&store, "s1", "user prefers Rust").await;
    let inner = Arc::new(Recorder::default());
    let adapter = adapter(&inner, &store, default_counter(), MemoryConfig::default());
    let first = send(
        &adapter,
        &inner,
        Some("s1"),
        request("Agent A prompt.", "hi"),
    )
    .await;
    assert!(system_text(&first).starts_with("Agent A prompt.\n\n## Conversation Memory"));
    let mut req = request("Agent B prompt.", "hi");
    req.config.system_instruction = Some(Content::new(
        roles::SYSTEM,
        vec![
            Part::text("Agent B prompt."),
            Part::text("Runtime addition."),
        ],
    ));
    let second = send(&adapter, &inner, Some("s1"), req).await;
    let parts = &second.config.system_instruction.as_ref().unwrap().parts;
    assert_eq!(parts[0].text.as_deref(), Some("Agent B prompt."));
    assert_eq!(
        parts[1].text.as_deref(),
        Some("Runtime addition.\n\n## Conversation Memory\n\n### Recent Observations\n- user prefers Rust\n")
    );
    assert!(!system_text(&second).contains("Agent A"));
}

#[tokio::test]
async fn acceptance_56_limits_and_key_resolution() {
    let (_d, store) = temp_store().await;
    seed_many(&store, "telegram:123:456", 6, 6).await;
    let inner = Arc::new(Recorder::default());
    let a = adapter(&inner, &store, default_counter(), limits(3, 5));
    let text = system_text(&send(&a, &inner, Some("telegram:123:456"), request("B", "x")).await);
    assert!(text.contains("Conversation Memory"));
    let (refl, obs) = memory_items(&text);
    assert_eq!(refl, names("reflection", 3..6));
    assert_eq!(obs, names("observation", 1..6));

    let all = adapter(&inner, &store, default_counter(), limits(0, 0));
    let text = system_text(&send(&all, &inner, Some("telegram:123:456"), request("B", "x")).await);
    let (refl, obs) = memory_items(&text);
    assert_eq!(refl, names("reflection", 0..6));
    assert_eq!(obs, names("observation", 0..6));

    // No key → the store is never called (a closed store would fail any query).
    store.close().await;
    let req = request("B", "x");
    assert_eq!(send(&all, &inner, None, req.clone()).await, req);
    assert_eq!(all.retrieval_failures(), 0);
}

#[tokio::test]
async fn acceptance_57_channel_types() {
    for key in [
        "",
        "noseparator",
        "unknown:1:2",
        "http:x",
        "tui-1",
        "5f0c9a0e-1b2c-4d3e-8f90-123456789abc",
    ] {
        assert_eq!(channel_type(key), "direct", "{key:?}");
    }
    for (key, channel) in [
        ("telegram:1:2", "telegram"),
        ("discord:g:c", "discord"),
        ("slack:t:c", "slack"),
    ] {
        assert_eq!(channel_type(key), channel);
        let rc = RuntimeContext::default();
        rc.set_session(key);
        assert_eq!((rc.session_key().as_str(), rc.channel()), (key, channel));
        assert!(rc.render().starts_with(&format!(
            "## Runtime Context\nSession: {key} | Channel: {channel} |"
        )));
    }
}

// ---------------------------------------------------------------------------------------
// Inspector
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn assemble_returns_exactly_what_the_adapter_sends() {
    let (_d, store) = temp_store().await;
    session(&store, "s1").await;
    reflect(&store, "s1", "user operates kubernetes clusters").await;
    observe(&store, "s1", "older kubernetes upgrade went badly").await;
    observe(&store, "s1", "newest note").await;
    let inner = Arc::new(Recorder::default());
    let adapter = adapter(&inner, &store, default_counter(), limits(5, 1))
        .with_knowledge(true)
        .with_memory_token_budget(1234);
    let req = request("You are Lango.", "kubernetes upgrade again?");
    let ctx = RequestContext::for_session("s1", "root");

    let sent = send(&adapter, &inner, Some("s1"), req.clone()).await;
    let assembled = adapter.assemble(&ctx, &req).await;
    assert!(assembled.changed && assembled.errors.is_empty());
    assert_eq!(assembled.apply(req.clone()), sent);
    assert_eq!(assembled.system_prompt, system_text(&sent));
    assert_eq!(assembled.contents, sent.contents);
    assert_eq!(assembled.session_key.as_deref(), Some("s1"));
    let names: Vec<_> = assembled.sections.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["base", "knowledge", "runtime", "memory"]);
    let memory = &assembled.sections[3];
    assert_eq!(memory.budget, Some(1234));
    assert!(memory.tokens > 0 && memory.tokens <= 1234);
    assert!(assembled.history_tokens > 0);

    // The free function with the adapter's options gives the same.
    let free = assemble(
        &store,
        Some("s1"),
        &req,
        default_counter().as_ref(),
        adapter.config(),
        adapter.options(),
    )
    .await;
    assert_eq!(free, assembled);

    // Without a key: unchanged, base section only.
    let none = assemble(
        &store,
        None,
        &req,
        default_counter().as_ref(),
        &MemoryConfig::default(),
        &AssemblyOptions::default(),
    )
    .await;
    assert!(!none.changed);
    assert_eq!(none.apply(req.clone()), req);
    assert_eq!(none.system_prompt, "You are Lango.");
    assert_eq!(none.sections.len(), 1);
}

// Issue "Observational memory" — Editing: a user can edit or delete an observation or
// reflection; the change is what the next prompt uses.
#[tokio::test]
async fn an_edited_or_deleted_memory_item_is_what_the_next_prompt_uses() {
    let (_dir, store) = temp_store().await;
    session(&store, "s").await;
    let o = observe(&store, "s", "user prefers Go").await;
    let r = reflect(&store, "s", "user is a backend developer").await;
    let inner = Arc::new(Recorder::default());
    let adapter = adapter(&inner, &store, default_counter(), MemoryConfig::default());

    let before = system_text(&send(&adapter, &inner, Some("s"), request("Base.", "hi")).await);
    assert!(
        before.contains("- user prefers Go") && before.contains("user is a backend developer"),
        "{before}"
    );

    store
        .update_observation(&o.id, "user prefers Rust", 4)
        .await
        .unwrap();
    store
        .delete_reflections(std::slice::from_ref(&r.id))
        .await
        .unwrap();
    let after = system_text(&send(&adapter, &inner, Some("s"), request("Base.", "hi")).await);
    assert!(after.contains("- user prefers Rust"), "{after}");
    assert!(
        !after.contains("prefers Go") && !after.contains("backend developer"),
        "{after}"
    );
    assert!(
        !after.contains("### Summary"),
        "no reflections left, no empty heading: {after}"
    );
}

#[tokio::test]
async fn interleaved_turns_of_two_sessions_each_see_their_own_runtime_context() {
    let (_d, store) = temp_store().await;
    session(&store, "telegram:1:2").await;
    session(&store, "tui-1").await;
    let inner = Arc::new(Recorder::default());
    let adapter =
        adapter(&inner, &store, default_counter(), MemoryConfig::default()).with_knowledge(true);
    // Both calls are made before either is sent, as with two conversations at once.
    let first = adapter.generate_content(
        &RequestContext::for_session("telegram:1:2", "agent"),
        request("B", "x"),
        false,
    );
    let mut second_request = request("B", "y");
    second_request.config.tools.clear();
    let second = adapter.generate_content(
        &RequestContext::for_session("tui-1", "agent"),
        second_request,
        false,
    );
    let _: Vec<_> = first.collect().await;
    let _: Vec<_> = second.collect().await;

    let calls = inner.calls.lock().unwrap().clone();
    let text = |i: usize| system_text(&calls[i].1);
    assert!(
        text(0).contains("Session: telegram:1:2 | Channel: telegram | Tools: 1 |"),
        "{}",
        text(0)
    );
    assert!(
        text(1).contains("Session: tui-1 | Channel: direct | Tools: 0 |"),
        "{}",
        text(1)
    );
}
