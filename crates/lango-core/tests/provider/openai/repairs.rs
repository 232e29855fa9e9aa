//! The repairs before sending, on the wire (acceptance 63–65): an orphaned or partly answered
//! tool call gets a synthetic result, thought calls and their results are not sent, a tool is
//! strict only when its schema allows it, and a nameless tool is left out.

use super::requests::send_and_record;
use super::*;

fn roles_and_ids(body: &Value) -> Vec<String> {
    body["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .map(|m| {
            let role = m["role"].as_str().unwrap_or_default();
            match role {
                "tool" => format!("tool:{}", m["tool_call_id"].as_str().unwrap_or_default()),
                "assistant" => {
                    let ids: Vec<&str> = m
                        .get("tool_calls")
                        .and_then(Value::as_array)
                        .map(|c| c.iter().filter_map(|c| c["id"].as_str()).collect())
                        .unwrap_or_default();
                    format!("assistant:{}", ids.join("+"))
                }
                other => other.to_string(),
            }
        })
        .collect()
}

fn call(id: &str, thought: bool) -> ToolCallRequest {
    ToolCallRequest {
        id: id.into(),
        name: "exec".into(),
        arguments: "{}".into(),
        thought,
        ..Default::default()
    }
}

fn assistant(calls: Vec<ToolCallRequest>) -> Message {
    Message {
        tool_calls: calls,
        ..Message::assistant("")
    }
}

#[tokio::test]
async fn acceptance_63_orphaned_call_gets_a_synthetic_interrupted_result_on_the_wire() {
    let params = GenerateParams {
        messages: vec![
            assistant(vec![call("call_orphan", false)]),
            Message::user("go on"),
        ],
        ..hello()
    };
    let body = send_and_record(params, None).await.json();
    assert_eq!(
        roles_and_ids(&body),
        ["assistant:call_orphan", "tool:call_orphan", "user"]
    );
    let result: Value =
        serde_json::from_str(body["messages"][1]["content"].as_str().expect("content"))
            .expect("JSON");
    assert!(
        result["error"]
            .as_str()
            .is_some_and(|e| e.contains("interrupted")),
        "{result}"
    );
}

#[tokio::test]
async fn acceptance_63_partially_answered_turn_gets_the_synthetic_result_first() {
    let params = GenerateParams {
        messages: vec![
            assistant(vec![call("call_a", false), call("call_b", false)]),
            Message::tool_result("call_a", "exec", "a done"),
            Message::user("go on"),
        ],
        ..hello()
    };
    let body = send_and_record(params, None).await.json();
    assert_eq!(
        roles_and_ids(&body),
        [
            "assistant:call_a+call_b",
            "tool:call_b",
            "tool:call_a",
            "user"
        ]
    );
    assert_eq!(body["messages"][2]["content"], "a done");
}

#[tokio::test]
async fn acceptance_63_pending_and_matched_calls_are_sent_unchanged() {
    let pending = GenerateParams {
        messages: vec![Message::user("q"), assistant(vec![call("call_1", false)])],
        ..hello()
    };
    assert_eq!(
        roles_and_ids(&send_and_record(pending, None).await.json()),
        ["user", "assistant:call_1"]
    );
    let matched = GenerateParams {
        messages: vec![
            assistant(vec![call("call_1", false)]),
            Message::tool_result("call_1", "exec", "ok"),
            Message::user("q"),
        ],
        ..hello()
    };
    assert_eq!(
        roles_and_ids(&send_and_record(matched, None).await.json()),
        ["assistant:call_1", "tool:call_1", "user"]
    );
}

#[tokio::test]
async fn acceptance_64_thought_calls_and_their_results_are_not_sent() {
    let params = GenerateParams {
        messages: vec![
            Message::user("q"),
            assistant(vec![call("call_thought", true), call("call_real", false)]),
            Message::tool_result("call_thought", "exec", "t"),
            Message::tool_result("call_real", "exec", "r"),
            Message::user("next"),
        ],
        ..hello()
    };
    let body = send_and_record(params, None).await.json();
    assert_eq!(
        roles_and_ids(&body),
        ["user", "assistant:call_real", "tool:call_real", "user"]
    );
}

#[tokio::test]
async fn acceptance_64_an_assistant_with_only_thought_calls_sends_no_tool_calls() {
    let params = GenerateParams {
        messages: vec![
            Message::user("q"),
            assistant(vec![call("call_thought", true)]),
            Message::tool_result("call_thought", "exec", "t"),
            Message::user("next"),
        ],
        ..hello()
    };
    let body = send_and_record(params, None).await.json();
    assert_eq!(body["messages"].as_array().map(Vec::len), Some(3));
    assert_eq!(
        body["messages"][1],
        json!({"role": "assistant", "content": ""})
    );
}

#[tokio::test]
async fn acceptance_65_strict_flags_and_nameless_tools_on_the_wire() {
    let tool = |name: &str, parameters: Value| ToolSpec {
        name: name.into(),
        description: String::new(),
        parameters,
    };
    let closed = json!({"type":"object","properties":{"a":{}},"required":["a"],"additionalProperties":false});
    let params = GenerateParams {
        tools: vec![
            tool("all_required", closed),
            tool(
                "optional",
                json!({"type":"object","properties":{"a":{},"b":{}},"required":["a"],"additionalProperties":false}),
            ),
            tool("", json!({})),
            tool(
                "open",
                json!({"type":"object","properties":{"a":{}},"required":["a"],"additionalProperties":true}),
            ),
            tool(
                "no_ap",
                json!({"type":"object","properties":{"a":{}},"required":["a"]}),
            ),
            tool("no_schema", Value::Null),
            tool(
                "no_properties",
                json!({"type":"object","additionalProperties":false}),
            ),
        ],
        ..hello()
    };
    let body = send_and_record(params, None).await.json();
    let flags: Vec<(String, bool)> = body["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| {
            (
                t["function"]["name"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
                t["function"]["strict"].as_bool().expect("strict"),
            )
        })
        .collect();
    let expected: Vec<(String, bool)> = [
        ("all_required", true),
        ("optional", false),
        ("open", false),
        ("no_ap", false),
        ("no_schema", false),
        ("no_properties", true),
    ]
    .iter()
    .map(|(n, s)| (n.to_string(), *s))
    .collect();
    assert_eq!(flags, expected);
}
