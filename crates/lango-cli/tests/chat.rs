//! `lango chat` end to end: the real binary, a real SQLite file, real HTTP to the fake
//! provider in each wire format.

mod support;

#[cfg(unix)]
use std::time::Duration;

use lango_core::store::MessageStatus;
use lango_testkit::fake::{FakeProvider, Script, Turn};
use serde_json::{json, Value};
use support::{
    base_url, lango, rows, stderr, stdout, write_provider_settings as write_settings, KEY,
};

#[tokio::test(flavor = "multi_thread")]
async fn a_plain_streamed_answer_in_every_wire_format() {
    for kind in ["openai-compatible", "ollama", "anthropic", "gemini"] {
        let fake = FakeProvider::start(Script::new([Turn::text([
            "The capital ",
            "of France ",
            "is Paris.",
        ])]))
        .await;
        let home = tempfile::tempdir().unwrap();
        write_settings(home.path(), kind, &base_url(&fake, kind), json!({}));
        let out = lango(
            home.path(),
            &["chat", "--session", "s1", "What is the capital of France?"],
            None,
        )
        .await;
        assert!(out.status.success(), "{kind}: {}", stderr(&out));
        assert_eq!(stdout(&out), "The capital of France is Paris.\n", "{kind}");
        let rows = rows(home.path(), "s1").await;
        let stored: Vec<(&str, &str)> = rows
            .iter()
            .map(|r| (r.role.as_str(), r.content.as_str()))
            .collect();
        assert_eq!(
            stored,
            [
                ("user", "What is the capital of France?"),
                ("assistant", "The capital of France is Paris.")
            ],
            "{kind}"
        );
        assert_eq!(fake.generate_requests().len(), 1, "{kind}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn no_stream_prints_the_same_answer_once() {
    let fake = FakeProvider::start(Script::new([Turn::text(["Hello ", "world"])])).await;
    let home = tempfile::tempdir().unwrap();
    write_settings(
        home.path(),
        "openai-compatible",
        &base_url(&fake, "openai-compatible"),
        json!({}),
    );
    let out = lango(
        home.path(),
        &["chat", "--no-stream", "--session", "s", "hi"],
        None,
    )
    .await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), "Hello world\n");
}

const KINDS: [&str; 4] = ["openai-compatible", "ollama", "anthropic", "gemini"];

/// The tool result the provider received in its second request, in its own format.
fn tool_result_sent(kind: &str, body: &Value) -> (String, String) {
    let s = |v: &Value| v.as_str().unwrap_or_default().to_string();
    match kind {
        "anthropic" => {
            let block = body["messages"]
                .as_array()
                .unwrap()
                .iter()
                .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
                .find(|b| b["type"] == "tool_result")
                .expect("a tool_result block");
            (s(&block["tool_use_id"]), block["content"].to_string())
        }
        "gemini" => {
            let part = body["contents"]
                .as_array()
                .unwrap()
                .iter()
                .flat_map(|c| c["parts"].as_array().cloned().unwrap_or_default())
                .find(|p| p.get("functionResponse").is_some())
                .expect("a functionResponse part");
            (
                s(&part["functionResponse"]["id"]),
                part["functionResponse"]["response"].to_string(),
            )
        }
        _ => {
            let m = body["messages"]
                .as_array()
                .unwrap()
                .iter()
                .find(|m| m["role"] == "tool")
                .expect("a tool message")
                .clone();
            (s(&m["tool_call_id"]), s(&m["content"]))
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_tool_call_round_trip_in_every_wire_format() {
    for kind in KINDS {
        let script = Script::new([Turn::ToolCall {
            id: "call_clock_1".into(),
            name: "current_datetime".into(),
            arguments_json: "{}".into(),
            then_text: Some("It is Sunday.".into()),
        }]);
        let fake = FakeProvider::start(script).await;
        let home = tempfile::tempdir().unwrap();
        write_settings(home.path(), kind, &base_url(&fake, kind), json!({}));
        let out = lango(
            home.path(),
            &["chat", "--session", "s", "What day is it?"],
            None,
        )
        .await;
        assert!(out.status.success(), "{kind}: {}", stderr(&out));
        assert_eq!(stdout(&out), "It is Sunday.\n", "{kind}");
        assert!(
            stderr(&out).contains("[calling current_datetime"),
            "{kind}: {}",
            stderr(&out)
        );

        let requests = fake.generate_requests();
        assert_eq!(requests.len(), 2, "{kind}");
        let rows = rows(home.path(), "s").await;
        let roles: Vec<&str> = rows.iter().map(|r| r.role.as_str()).collect();
        assert_eq!(roles, ["user", "assistant", "tool", "assistant"], "{kind}");
        let call_id = rows[1].tool_calls[0].id.clone();
        // A provider that sends no id gets call_<name> (REFERENCE §1.3); either way it is kept.
        assert!(
            call_id == "call_clock_1" || call_id == "call_current_datetime",
            "{kind}: {call_id}"
        );
        assert_eq!(
            rows[2].tool_calls[0].id, call_id,
            "{kind}: the result answers the same call"
        );
        let (sent_id, sent_result) = tool_result_sent(kind, &requests[1].json());
        if kind != "ollama" {
            assert_eq!(
                sent_id, call_id,
                "{kind}: the provider got the result under the call's id"
            );
        }
        assert!(sent_result.contains("weekday"), "{kind}: {sent_result}");
        assert_eq!(rows[3].content, "It is Sunday.", "{kind}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_provider_error_mid_stream_keeps_the_partial_reply_and_the_next_turn_works() {
    for kind in KINDS {
        let fake = FakeProvider::start(Script::new([
            Turn::reset_after(["Partial ", "answer"]),
            Turn::text(["Recovered."]),
        ]))
        .await;
        let home = tempfile::tempdir().unwrap();
        write_settings(home.path(), kind, &base_url(&fake, kind), json!({}));
        let out = lango(home.path(), &["chat", "--session", "s", "first"], None).await;
        assert_eq!(out.status.code(), Some(4), "{kind}: {}", stderr(&out));
        assert!(
            stdout(&out).starts_with("Partial answer"),
            "{kind}: {}",
            stdout(&out)
        );
        assert!(
            stderr(&out).contains("interrupted"),
            "{kind}: {}",
            stderr(&out)
        );
        let after_failure = rows(home.path(), "s").await;
        assert_eq!(after_failure.len(), 2, "{kind}");
        assert_eq!(
            (after_failure[1].content.as_str(), after_failure[1].status),
            ("Partial answer", MessageStatus::Interrupted),
            "{kind}"
        );

        let out = lango(home.path(), &["chat", "--session", "s", "second"], None).await;
        assert!(out.status.success(), "{kind}: {}", stderr(&out));
        assert_eq!(stdout(&out), "Recovered.\n", "{kind}");
        // No retry after the first byte: one request per turn.
        assert_eq!(fake.generate_requests().len(), 2, "{kind}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_system_prompt_arrives_as_exactly_one_system_message() {
    for kind in KINDS {
        let fake = FakeProvider::start(Script::new([Turn::text(["ok"])])).await;
        let home = tempfile::tempdir().unwrap();
        write_settings(home.path(), kind, &base_url(&fake, kind), json!({}));
        for text in ["one", "two"] {
            let out = lango(home.path(), &["chat", "--session", "s", text], None).await;
            assert!(out.status.success(), "{kind}: {}", stderr(&out));
        }
        let body = fake.generate_requests().pop().unwrap().json();
        let system_texts: Vec<String> = match kind {
            "anthropic" => vec![body["system"].as_str().unwrap_or_default().to_string()],
            "gemini" => body["systemInstruction"]["parts"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| p["text"].as_str().unwrap_or_default().to_string())
                .collect(),
            _ => {
                let messages = body["messages"].as_array().unwrap();
                assert_eq!(messages[0]["role"], "system", "{kind}");
                messages
                    .iter()
                    .filter(|m| m["role"] == "system")
                    .map(|m| m["content"].as_str().unwrap_or_default().to_string())
                    .collect()
            }
        };
        assert_eq!(
            system_texts,
            ["You are a test assistant."],
            "{kind}: {body}"
        );
        let all = body.to_string();
        assert!(all.contains("\"one\"") || all.contains("one"), "{kind}");
        assert_eq!(
            all.matches("You are a test assistant.").count(),
            1,
            "{kind}: the prompt is sent once"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn without_a_provider_chat_explains_what_to_configure() {
    let home = tempfile::tempdir().unwrap();
    let out = lango(home.path(), &["chat", "hello"], None).await;
    assert_eq!(out.status.code(), Some(3));
    assert!(
        stderr(&out).contains("no provider is configured"),
        "{}",
        stderr(&out)
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_rejected_key_is_a_provider_error_with_the_reason() {
    let fake = FakeProvider::start(Script::new([Turn::status(
        401,
        "Incorrect API key provided",
    )]))
    .await;
    let home = tempfile::tempdir().unwrap();
    write_settings(
        home.path(),
        "anthropic",
        &base_url(&fake, "anthropic"),
        json!({}),
    );
    let out = lango(home.path(), &["chat", "--session", "s", "hi"], None).await;
    assert_eq!(out.status.code(), Some(4));
    let err = stderr(&out);
    assert!(
        err.contains("rejected the API key") && err.contains("Incorrect API key"),
        "{err}"
    );
    assert!(!err.contains(KEY));
}

#[cfg(unix)]
#[tokio::test(flavor = "multi_thread")]
async fn ctrl_c_stops_the_reply_keeps_it_interrupted_and_closes_the_connection() {
    let fake = FakeProvider::start(Script::new([Turn::slow_text(
        ["one ", "two ", "three ", "four ", "five ", "six"],
        300,
    )]))
    .await;
    let home = tempfile::tempdir().unwrap();
    write_settings(
        home.path(),
        "openai-compatible",
        &base_url(&fake, "openai-compatible"),
        json!({}),
    );
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_lango"))
        .arg("--data-dir")
        .arg(home.path())
        .args(["chat", "--session", "s", "count"])
        .env("LANGO_P_API_KEY", KEY)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Press Ctrl-C once the first words are on screen.
    let mut child_stdout = child.stdout.take().unwrap();
    let mut seen = Vec::new();
    let mut buf = [0u8; 64];
    while !String::from_utf8_lossy(&seen).contains("two ") {
        use tokio::io::AsyncReadExt;
        let n = tokio::time::timeout(Duration::from_secs(20), child_stdout.read(&mut buf))
            .await
            .unwrap()
            .unwrap();
        assert!(
            n > 0,
            "lango ended before streaming: {:?}",
            String::from_utf8_lossy(&seen)
        );
        seen.extend_from_slice(&buf[..n]);
    }
    let pid = child.id().unwrap().to_string();
    assert!(std::process::Command::new("kill")
        .args(["-INT", &pid])
        .status()
        .unwrap()
        .success());
    let out = child.wait_with_output().await.unwrap();
    assert_eq!(out.status.code(), Some(130), "{}", stderr(&out));
    let rows = rows(home.path(), "s").await;
    assert_eq!(rows.len(), 2, "{rows:?}");
    assert_eq!(rows[1].status, MessageStatus::Interrupted);
    assert!(rows[1].content.starts_with("one "), "{:?}", rows[1].content);
    assert!(rows[1].content.len() < "one two three four five six".len());
    for _ in 0..50 {
        if fake.server().closed_early() > 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(
        fake.server().closed_early(),
        1,
        "the provider saw the connection close"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_hallucinated_sub_agent_name_is_corrected_and_the_retry_succeeds() {
    let script = Script::new([
        Turn::tool_call(
            "call_t",
            "transfer_to_agent",
            r#"{"agent_name":"browser_agent"}"#,
        ),
        Turn::text(["done"]),
    ]);
    let fake = FakeProvider::start(script).await;
    let home = tempfile::tempdir().unwrap();
    write_settings(
        home.path(),
        "openai-compatible",
        &base_url(&fake, "openai-compatible"),
        json!({"agent": {"subAgents": [
            {"name": "planner", "instruction": "You plan."},
            {"name": "researcher", "instruction": "You research."}
        ]}}),
    );
    let out = lango(
        home.path(),
        &["chat", "--session", "s", "open the website"],
        None,
    )
    .await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), "done\n");

    let expected =
        "[System: Agent \"browser_agent\" does not exist. Valid agents: planner, researcher. \
                    Please retry using one of the valid agent names listed above.]";
    let requests = fake.generate_requests();
    assert_eq!(requests.len(), 2);
    let first_tools = requests[0].json()["tools"].to_string();
    assert!(first_tools.contains("transfer_to_agent"), "{first_tools}");
    let messages = requests[1].json()["messages"].as_array().unwrap().clone();
    let last_user = messages.iter().rev().find(|m| m["role"] == "user").unwrap();
    assert_eq!(last_user["content"], expected);
    let rows = rows(home.path(), "s").await;
    assert!(
        rows.iter()
            .any(|r| r.role == "user" && r.content == expected),
        "the correction is a persisted user turn"
    );
    // The failed transfer call was closed, so no call is left unanswered.
    let called: Vec<&str> = rows
        .iter()
        .flat_map(|r| &r.tool_calls)
        .filter(|c| !c.input.is_empty())
        .map(|c| c.id.as_str())
        .collect();
    let answered: Vec<&str> = rows
        .iter()
        .flat_map(|r| &r.tool_calls)
        .filter(|c| !c.output.is_empty())
        .map(|c| c.id.as_str())
        .collect();
    assert!(
        called.iter().all(|id| answered.contains(id)),
        "{called:?} vs {answered:?}"
    );
    assert_eq!(rows.last().unwrap().content, "done");
}
