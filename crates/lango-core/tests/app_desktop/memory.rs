//! The memory browser and inspector, a corrupt database, and the compactor wired at start-up.

use super::*;

#[tokio::test]
async fn with_low_thresholds_memory_fills_the_browser_and_the_inspector_shows_it() {
    let (_home, _fake, app) = app_with_memory(
        "The user is planning a trip to Lisbon in May and likes seafood.",
        json!({"messageTokenThreshold": 30, "observationTokenThreshold": 10000, "maxMessageTokenBudget": 2000}),
    )
    .await;
    let mut events = app.subscribe_memory();
    send_turns(
        &app,
        "trip",
        4,
        "I am planning a long trip to Lisbon, any tips for the food there?",
    )
    .await;
    // The memory runs in the background after turns; wait for its "memory updated" event.
    let added = first_observation(&mut events).await;
    assert_eq!(added.session_key, "trip");
    let overview = app.memory_overview("trip").await.unwrap();
    assert!(overview.enabled);
    // The view names the conversation it shows.
    assert!(
        overview.title.contains("I am planning a long trip"),
        "{}",
        overview.title
    );
    assert!(!overview.observations.is_empty());
    let first = &overview.observations[0];
    let sources = app
        .memory_sources("trip", first.seq_start, first.seq_end)
        .await
        .unwrap();
    assert!(!sources.is_empty());
    assert!(sources
        .iter()
        .all(|m| m.seq >= first.seq_start && m.seq <= first.seq_end));

    let view = app.inspect("trip").await.unwrap();
    assert!(view.memory_enabled);
    assert!(
        view.system_prompt.contains("## Conversation Memory"),
        "{}",
        view.system_prompt
    );
    assert!(view.memory_tokens > 0);
    assert!(view.sections.iter().any(|s| s.name == "memory"));
    // The observation's compaction left a summary row holding the same note: it is not sent
    // again, and the inspector says what that saved.
    assert_eq!(view.summaries_not_repeated, 1, "{:?}", view.history);
    assert!(view.summary_tokens_saved > 0);
    assert!(!view
        .history
        .iter()
        .any(|h| h.text.starts_with("[Compacted Summary]")));

    // An edit is what the next prompt uses.
    app.update_memory_item(
        MemoryItemKind::Observation,
        &first.id,
        "Edited: likes sardines.",
    )
    .await
    .unwrap();
    let view = app.inspect("trip").await.unwrap();
    assert!(view.system_prompt.contains("Edited: likes sardines."));
    app.delete_memory_item(MemoryItemKind::Observation, &first.id)
        .await
        .unwrap();
    let view = app.inspect("trip").await.unwrap();
    assert!(!view.system_prompt.contains("Edited: likes sardines."));
    app.shutdown().await;
}

#[tokio::test]
async fn a_corrupt_database_is_an_error_and_is_left_in_place() {
    let home = tempfile::tempdir().unwrap();
    let db = home.path().join("lango.db");
    std::fs::write(&db, b"this is not a database, but it is the user's file").unwrap();
    let err = App::open(AppPaths::under(home.path())).await.unwrap_err();
    assert_eq!(err.code, "database_corrupt");
    assert_eq!(
        std::fs::read(&db).unwrap(),
        b"this is not a database, but it is the user's file"
    );
}

/// spec 002 "Wire compactor during app initialization": the app, built from settings with
/// memory on, wires compaction into the memory cycle — the rows an observation covers leave
/// the model's history for one summary row, and stay viewable from the archive.
#[tokio::test]
async fn wire_compactor_during_app_initialization() {
    let (_home, _fake, app) = app_with_memory(
        "The user asked about Lisbon several times.",
        json!({"messageTokenThreshold": 30, "observationTokenThreshold": 10000}),
    )
    .await;
    let mut events = app.subscribe_memory();
    send_turns(
        &app,
        "compact",
        4,
        "tell me about Lisbon's old town, please.",
    )
    .await;
    let added = first_observation(&mut events).await;

    let history = app.store().list_messages("compact").await.unwrap();
    assert_eq!(
        history.first().map(|m| m.kind),
        Some(lango_core::store::MessageKind::Summary),
        "the history starts with the compaction summary"
    );
    // (The summary row takes the seq just below the oldest remaining row, so only ordinary
    // rows are checked against the covered range.)
    assert!(
        history
            .iter()
            .filter(|m| m.kind == lango_core::store::MessageKind::Message)
            .all(|m| m.seq < added.seq_start || m.seq > added.seq_end),
        "covered rows are still in the model's history"
    );
    let archived = app
        .memory_sources("compact", added.seq_start, added.seq_end)
        .await
        .unwrap();
    assert!(!archived.is_empty());
    assert!(archived.iter().all(|m| m.archived));
    app.shutdown().await;
}
