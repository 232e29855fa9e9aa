//! The fake's bytes against what the real services send.

use std::time::Duration;

use tokio::net::{TcpListener, TcpStream};

use super::*;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// A raw HTTP/1.1 exchange: (status, headers+body as text).
async fn raw(
    port: u16,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, String, String) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
    let mut req = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    req.push_str(body);
    s.write_all(req.as_bytes()).await.unwrap();
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out).await;
    let text = String::from_utf8_lossy(&out).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    (status, head.to_string(), body.to_string())
}

fn sse_data(body: &str) -> Vec<String> {
    body.lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .map(str::to_string)
        .collect()
}

const CHAT: &str = r#"{"model":"m1","messages":[{"role":"user","content":"hi"}],"stream":true}"#;

#[tokio::test]
async fn openai_text_stream_has_role_chunk_deltas_usage_and_done() {
    let fake = FakeProvider::start(Script::new([Turn::text(["Hel", "lo \"x\""])])).await;
    let (status, head, body) = raw(fake.port, "POST", "/v1/chat/completions", &[], CHAT).await;
    assert_eq!(status, 200);
    assert!(head.contains("Content-Type: text/event-stream"));
    let data = sse_data(&body);
    assert_eq!(data.last().unwrap(), "[DONE]");
    let json: Vec<serde_json::Value> = data[..data.len() - 1]
        .iter()
        .map(|d| serde_json::from_str(d).unwrap())
        .collect();
    assert_eq!(json[0]["choices"][0]["delta"]["role"], "assistant");
    assert_eq!(json[1]["choices"][0]["delta"]["content"], "Hel");
    assert_eq!(json[2]["choices"][0]["delta"]["content"], "lo \"x\"");
    assert_eq!(json[3]["choices"][0]["finish_reason"], "stop");
    assert_eq!(json[4]["choices"].as_array().unwrap().len(), 0);
    assert_eq!(json[4]["usage"]["completion_tokens"], 2);
    assert_eq!(json[1]["model"], "m1");
    assert!(body.ends_with("data: [DONE]\n\n"));
}

#[tokio::test]
async fn each_format_is_chosen_by_path() {
    let fake = FakeProvider::start(Script::new([Turn::text(["A", "B"])])).await;
    let (_, head, body) = raw(fake.port, "POST", "/api/chat", &[], CHAT).await;
    assert!(head.contains("application/x-ndjson"));
    let lines: Vec<serde_json::Value> = body
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[0]["message"]["content"], "A");
    assert_eq!(lines[2]["done"], true);
    assert_eq!(lines[2]["done_reason"], "stop");

    let (_, _, body) = raw(fake.port, "POST", "/v1/messages", &[], CHAT).await;
    let events: Vec<&str> = body
        .lines()
        .filter_map(|l| l.strip_prefix("event: "))
        .collect();
    assert_eq!(
        events,
        [
            "message_start",
            "content_block_start",
            "ping",
            "content_block_delta",
            "content_block_delta",
            "content_block_stop",
            "message_delta",
            "message_stop"
        ]
    );
    for d in sse_data(&body) {
        let v: serde_json::Value = serde_json::from_str(&d).unwrap();
        assert!(v["type"].is_string());
    }

    let (_, _, body) = raw(
        fake.port,
        "POST",
        "/v1beta/models/gemini-x:streamGenerateContent?alt=sse",
        &[],
        "{}",
    )
    .await;
    assert!(
        body.contains("\r\n\r\n") && !body.replace("\r\n", "").contains('\n'),
        "CRLF only: {body:?}"
    );
    let chunks: Vec<serde_json::Value> = sse_data(&body)
        .iter()
        .map(|d| serde_json::from_str(d.trim_end()).unwrap())
        .collect();
    assert_eq!(chunks.len(), 2);
    assert_eq!(
        chunks[0]["candidates"][0]["content"]["parts"][0]["text"],
        "A"
    );
    assert_eq!(chunks[1]["candidates"][0]["finishReason"], "STOP");
    assert_eq!(chunks[1]["modelVersion"], "gemini-x");
    assert!(
        body.starts_with("data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"A\"}]")
    );
    assert_eq!(fake.turns_served(), 3);
    assert_eq!(fake.generate_requests().len(), 3);
}

#[tokio::test]
async fn turns_are_consumed_in_order_and_the_last_repeats() {
    let script = Script::new([
        Turn::Status {
            code: 429,
            body: "slow down".into(),
            retry_after: Some(0.5),
        },
        Turn::tool_call("call_1", "read_file", r#"{"path":"/tmp/a.txt"}"#),
        Turn::text(["done"]),
    ]);
    let fake = FakeProvider::start(script).await;
    let (status, head, body) = raw(fake.port, "POST", "/v1/chat/completions", &[], CHAT).await;
    assert_eq!(status, 429);
    assert!(head.contains("Retry-After: 0.5"), "{head}");
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["error"]["message"], "slow down");

    let (_, _, body) = raw(fake.port, "POST", "/v1/chat/completions", &[], CHAT).await;
    let args: String = sse_data(&body)
        .iter()
        .filter_map(|d| serde_json::from_str::<serde_json::Value>(d).ok())
        .filter_map(|v| {
            v["choices"][0]["delta"]["tool_calls"][0]["function"]["arguments"]
                .as_str()
                .map(str::to_string)
        })
        .collect();
    assert_eq!(args, r#"{"path":"/tmp/a.txt"}"#);
    assert!(body.contains(r#""finish_reason":"tool_calls""#));
    for _ in 0..2 {
        let (_, _, body) = raw(fake.port, "POST", "/v1/chat/completions", &[], CHAT).await;
        assert!(body.contains(r#""content":"done""#));
    }
}

#[tokio::test]
async fn tool_calls_in_every_format() {
    let turn = Turn::ToolCall {
        id: "call_7".into(),
        name: "get_weather".into(),
        arguments_json: r#"{"city":"Paris"}"#.into(),
        then_text: Some("It is sunny.".into()),
    };
    let fake = FakeProvider::start(Script::new([turn])).await;
    // Anthropic: tool_use block and input_json_delta fragments.
    let (_, _, body) = raw(fake.port, "POST", "/v1/messages", &[], CHAT).await;
    let mut json = String::new();
    for d in sse_data(&body) {
        let v: serde_json::Value = serde_json::from_str(&d).unwrap();
        if let Some(p) = v["delta"]["partial_json"].as_str() {
            json.push_str(p);
        }
    }
    assert_eq!(json, r#"{"city":"Paris"}"#);
    assert!(body.contains(r#""stop_reason":"tool_use""#));
    // then_text: the next request gets the text.
    let (_, _, body) = raw(fake.port, "POST", "/api/chat", &[], CHAT).await;
    assert!(body.contains("It is sunny."));

    let fake = FakeProvider::start(Script::new([Turn::tool_call("c", "f", r#"{"a":1}"#)])).await;
    let (_, _, body) = raw(
        fake.port,
        "POST",
        "/v1beta/models/g:streamGenerateContent?alt=sse",
        &[],
        "{}",
    )
    .await;
    assert!(
        body.contains(r#"{"functionCall": {"args": {"a": 1},"name": "f"}}"#),
        "{body}"
    );
    let (_, _, body) = raw(fake.port, "POST", "/api/chat", &[], CHAT).await;
    let first: serde_json::Value = serde_json::from_str(body.lines().next().unwrap()).unwrap();
    assert_eq!(
        first["message"]["tool_calls"][0]["function"]["arguments"]["a"],
        1
    );
}

#[tokio::test]
async fn error_events_per_format() {
    let fake = FakeProvider::start(Script::new([Turn::error_event("model exploded")])).await;
    let (s, _, body) = raw(fake.port, "POST", "/v1/chat/completions", &[], CHAT).await;
    assert_eq!(s, 200);
    assert!(body.ends_with("data: {\"error\":{\"message\":\"model exploded\",\"type\":\"server_error\",\"param\":null,\"code\":null}}\n\n"));
    assert!(!body.contains("[DONE]"));
    let (_, _, body) = raw(fake.port, "POST", "/v1/messages", &[], CHAT).await;
    assert!(body.contains("event: error\ndata: {\"type\": \"error\", \"error\": {\"type\": \"api_error\", \"message\": \"model exploded\"}}\n\n"));
    assert!(!body.contains("message_stop"));
    let (_, _, body) = raw(fake.port, "POST", "/api/chat", &[], CHAT).await;
    assert_eq!(body, "{\"error\":\"model exploded\"}\n");
}

#[tokio::test]
async fn model_lists_in_each_format() {
    let fake = FakeProvider::start(Script::default().with_models(["m-a", "m-b"])).await;
    let (_, _, body) = raw(fake.port, "GET", "/v1/models", &[], "").await;
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["data"][1]["id"], "m-b");
    assert_eq!(v["object"], "list");
    let (_, _, body) = raw(
        fake.port,
        "GET",
        "/v1/models",
        &[("anthropic-version", "2023-06-01")],
        "",
    )
    .await;
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["data"][0]["type"], "model");
    assert_eq!(v["has_more"], false);
    let (_, _, body) = raw(fake.port, "GET", "/v1beta/models", &[], "").await;
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["models"][0]["name"], "models/m-a");
    let (_, _, body) = raw(fake.port, "GET", "/api/tags", &[], "").await;
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["models"][1]["name"], "m-b");
    assert_eq!(fake.turns_served(), 0);
}

#[tokio::test]
async fn required_key_rejects_other_keys_without_consuming_a_turn() {
    let fake =
        FakeProvider::start(Script::new([Turn::text(["ok"])]).with_required_key("sk-good")).await;
    let (s, _, body) = raw(
        fake.port,
        "POST",
        "/v1/messages",
        &[("x-api-key", "sk-bad")],
        CHAT,
    )
    .await;
    assert_eq!(s, 401);
    assert!(body.contains("authentication_error"));
    let (s, _, _) = raw(
        fake.port,
        "POST",
        "/v1/chat/completions",
        &[("Authorization", "Bearer sk-good")],
        CHAT,
    )
    .await;
    assert_eq!(s, 200);
    let (s, _, _) = raw(
        fake.port,
        "POST",
        "/v1beta/models/x:streamGenerateContent?alt=sse&key=sk-good",
        &[],
        "{}",
    )
    .await;
    assert_eq!(s, 200);
    assert_eq!(fake.turns_served(), 2);
}

#[tokio::test]
async fn embeddings_are_deterministic_and_word_based() {
    let fake = FakeProvider::start(Script::default()).await;
    let (_, _, body) = raw(
        fake.port,
        "POST",
        "/v1/embeddings",
        &[],
        r#"{"model":"e","input":["red apple","apple red","blue sky"]}"#,
    )
    .await;
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    let rows: Vec<Vec<f64>> = (0..3)
        .map(|i| {
            v["data"][i]["embedding"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_f64().unwrap())
                .collect()
        })
        .collect();
    assert_eq!(rows[0].len(), EMBEDDING_DIMS);
    let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f64>();
    assert!((dot(&rows[0], &rows[1]) - 1.0).abs() < 1e-6);
    assert!(dot(&rows[0], &rows[2]) < 0.9);
    let (_, _, body) = raw(
        fake.port,
        "POST",
        "/api/embed",
        &[],
        r#"{"model":"e","input":"red apple"}"#,
    )
    .await;
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["embeddings"].as_array().unwrap().len(), 1);
    let (_, _, body) = raw(
        fake.port,
        "POST",
        "/v1beta/models/e:batchEmbedContents",
        &[],
        r#"{"requests":[{"content":{"parts":[{"text":"red apple"}]}}]}"#,
    )
    .await;
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        v["embeddings"][0]["values"].as_array().unwrap().len(),
        EMBEDDING_DIMS
    );
    assert_eq!(fake.turns_served(), 0);
}

#[test]
fn scripts_parse_from_json_objects_and_bare_arrays() {
    let s = Script::from_json(
        r#"{"turns":[{"type":"text","chunks":["a"],"delay_ms":5},
            {"type":"tool_call","name":"t","arguments_json":"{\"x\":1}","then_text":"ok"},
            {"type":"status","code":429,"retry_after":1},
            {"type":"error_event","message":"boom"},
            {"type":"reset_after","chunks":["a"]},
            {"type":"stall","chunks":[],"stall_ms":100}],
           "models":["m"],"require_key":"k"}"#,
    )
    .unwrap();
    assert_eq!(s.turns.len(), 6);
    assert_eq!(
        s.turns[2],
        Turn::Status {
            code: 429,
            body: String::new(),
            retry_after: Some(1.0)
        }
    );
    let s = Script::from_json(r#"[{"type":"text","chunks":["x"]}]"#).unwrap();
    assert_eq!(s.turns, vec![Turn::text(["x"])]);
    assert!(Script::from_json(r#"[{"type":"text","chunkz":["x"]}]"#).is_err());
    let round = serde_json::to_string(&Script::new([Turn::stall(["a"], 5)])).unwrap();
    assert_eq!(
        Script::from_json(&round).unwrap().turns,
        vec![Turn::stall(["a"], 5)]
    );
}

#[tokio::test]
async fn relay_passes_bytes_resets_and_early_closes() {
    let fake = FakeProvider::start(Script::new([
        Turn::text(["x"]),
        Turn::reset_after(["a"]),
        Turn::slow_text(["a", "b"], 2_000),
    ]))
    .await;
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(relay(listener, fake.port));
    let (s, _, body) = raw(port, "POST", "/v1/chat/completions", &[], CHAT).await;
    assert_eq!(s, 200);
    assert!(body.ends_with("data: [DONE]\n\n"));

    // A reset upstream is a reset downstream, after the bytes sent before it.
    let mut sock = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
    let req = format!(
        "POST /v1/chat/completions HTTP/1.1\r\nContent-Length: {}\r\n\r\n{CHAT}",
        CHAT.len()
    );
    sock.write_all(req.as_bytes()).await.unwrap();
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    let err = loop {
        match sock.read(&mut buf).await {
            Ok(0) => break None,
            Ok(n) => got.extend_from_slice(&buf[..n]),
            Err(e) => break Some(e.kind()),
        }
    };
    assert_eq!(err, Some(std::io::ErrorKind::ConnectionReset));
    assert!(String::from_utf8_lossy(&got).contains(r#""content":"a""#));

    // A client that leaves mid-stream is seen by the server.
    let mut sock = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
    sock.write_all(req.as_bytes()).await.unwrap();
    let _ = sock.read(&mut buf).await.unwrap();
    drop(sock);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(2);
    while fake.closed_early() == 0 && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(fake.closed_early(), 1);
}
