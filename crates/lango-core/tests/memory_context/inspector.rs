//! The inspector shows what the adapter sends; edits reach the next prompt; two sessions interleaved.

use crate::harness::*;

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
