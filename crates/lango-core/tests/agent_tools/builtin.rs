//! The built-in tools: safe by default, the memory listings (only with a store, only the
//! current session, empty until the memory writes) and the current date and time.

use super::*;

#[test]
fn builtins_are_safe_by_default() {
    let names: Vec<String> = builtin_tools(None)
        .iter()
        .map(|t| t.name().to_owned())
        .collect();
    assert_eq!(names, ["current_datetime"]);
    for name in &names {
        for banned in ["file", "shell", "exec", "write", "read", "delete"] {
            assert!(!name.contains(banned), "{name}");
        }
    }
}

#[tokio::test]
async fn builtins_with_a_store_add_the_memory_listings() {
    let (_dir, store) = temp_store().await;
    let names: Vec<String> = builtin_tools(Some(store))
        .iter()
        .map(|t| t.name().to_owned())
        .collect();
    assert_eq!(
        names,
        [
            "current_datetime",
            "memory_list_observations",
            "memory_list_reflections"
        ]
    );
}

#[tokio::test]
async fn current_datetime_reports_local_utc_and_weekday() {
    let adapter = ToolAdapter::new(Arc::new(CurrentDateTime), Duration::from_secs(1));
    assert_eq!(
        adapter.spec().parameters,
        json!({"type": "object", "properties": {}, "additionalProperties": false})
    );
    let result = adapter.call(ctx(None), Map::new()).await;
    let local = chrono::DateTime::parse_from_rfc3339(result["local"].as_str().unwrap())
        .expect("local is RFC 3339");
    let utc = chrono::DateTime::parse_from_rfc3339(result["utc"].as_str().unwrap())
        .expect("utc is RFC 3339");
    assert!(result["utc"].as_str().unwrap().ends_with('Z'));
    assert_eq!(local.timestamp(), utc.timestamp());
    assert!((chrono::Utc::now().timestamp() - utc.timestamp()).abs() < 5);
    assert_eq!(
        result["weekday"].as_str().unwrap(),
        local.format("%A").to_string()
    );
}

#[tokio::test]
async fn memory_listings_are_empty_until_the_memory_writes() {
    let (_dir, store) = temp_store().await;
    store.create_session("s1", "").await.unwrap();
    let observations = ToolAdapter::new(
        Arc::new(MemoryListObservations::new(store.clone())),
        Duration::from_secs(5),
    );
    let reflections = ToolAdapter::new(
        Arc::new(MemoryListReflections::new(store.clone())),
        Duration::from_secs(5),
    );
    assert_eq!(
        Value::Object(observations.call(ctx(Some("s1")), Map::new()).await),
        json!({"observations": []})
    );
    assert_eq!(
        Value::Object(reflections.call(ctx(Some("s1")), Map::new()).await),
        json!({"reflections": []})
    );
    // No session in the context, or an unknown one → empty.
    assert_eq!(
        Value::Object(observations.call(ctx(None), Map::new()).await),
        json!({"observations": []})
    );
    assert_eq!(
        Value::Object(reflections.call(ctx(Some("nope")), Map::new()).await),
        json!({"reflections": []})
    );
}

fn observation(key: &str, content: &str) -> Observation {
    Observation {
        id: String::new(),
        session_key: key.into(),
        content: content.into(),
        token_count: 5,
        seq_start: 1,
        seq_end: 2,
        created_at: 0,
    }
}

#[tokio::test]
async fn memory_listings_show_only_the_current_session() {
    let (_dir, store) = temp_store().await;
    store.create_session("s1", "").await.unwrap();
    store.create_session("s2", "").await.unwrap();
    for content in ["o1", "o2", "o3"] {
        store
            .save_observation(observation("s1", content))
            .await
            .unwrap();
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    store
        .save_observation(observation("s2", "other"))
        .await
        .unwrap();
    store
        .save_reflection(Reflection {
            id: String::new(),
            session_key: "s1".into(),
            content: "user builds a REST API".into(),
            token_count: 7,
            generation: 1,
            seq_start: 1,
            seq_end: 2,
            source_token_count: 15,
            created_at: 0,
        })
        .await
        .unwrap();

    let observations = ToolAdapter::new(
        Arc::new(MemoryListObservations::new(store.clone())),
        Duration::from_secs(5),
    );
    let result = observations.call(ctx(Some("s1")), Map::new()).await;
    let contents: Vec<&str> = result["observations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["content"].as_str().unwrap())
        .collect();
    assert_eq!(contents, ["o1", "o2", "o3"]);

    let result = observations
        .call(ctx(Some("s1")), obj(json!({"limit": 2})))
        .await;
    let contents: Vec<&str> = result["observations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["content"].as_str().unwrap())
        .collect();
    assert_eq!(
        contents,
        ["o2", "o3"],
        "limit keeps the newest, oldest first"
    );

    let result = observations
        .call(ctx(Some("s1")), obj(json!({"limit": "two"})))
        .await;
    assert!(result["error"].as_str().unwrap().contains("limit"));

    let reflections = ToolAdapter::new(
        Arc::new(MemoryListReflections::new(store.clone())),
        Duration::from_secs(5),
    );
    let result = reflections.call(ctx(Some("s1")), Map::new()).await;
    assert_eq!(result["reflections"].as_array().unwrap().len(), 1);
    assert_eq!(
        result["reflections"][0]["content"],
        "user builds a REST API"
    );
    assert_eq!(result["reflections"][0]["generation"], 1);
    let result = reflections.call(ctx(Some("s2")), Map::new()).await;
    assert_eq!(result["reflections"], json!([]));
}
