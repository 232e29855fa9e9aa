//! Prompt tokens per turn with a real model, memory on / off (goal at turn 200: ≤ 0.3).
//!
//! Run by `make test-real` (scripts/test-real.sh starts llama-server with SmolLM2-135M and
//! sets LANGO_REAL_LLM_URL); without the variable it prints that it was skipped.
//!
//! One conversation of 200 turns (REAL_TOKENS_TURNS) per setting, the same ~25-token user
//! messages, replies capped at 16 tokens (the model decodes on one thread), temperature 0.
//! The same model is the chat and the memory model. With memory on (messageTokenThreshold
//! 600, observationTokenThreshold 1200, maxMessageTokenBudget 1200) the memory cycle runs
//! after every turn, awaited, as the CLI does before it exits. Prompt tokens are the ones the
//! server reports for each chat request (`usage.prompt_tokens`, SmolLM2's tokenizer and chat
//! template), not our estimate.

use std::time::Instant;

use futures_util::StreamExt;
use lango_core::agent::RequestContext;
use lango_core::engine::Engine;
use lango_core::paths::AppPaths;
use lango_core::store::Store;
use serde_json::{json, Value};

const PROVIDER: &str = "local";

fn user_message(i: usize) -> String {
    const ROOMS: [&str; 5] = ["kitchen", "bathroom", "attic", "garden shed", "hallway"];
    const TASKS: [&str; 4] = ["new tiles", "wiring", "paint", "window frames"];
    const DAYS: [&str; 5] = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"];
    format!(
        "Turn {i}: the {} needs {} by {}; it costs {} euros. Please remember it.",
        ROOMS[i % ROOMS.len()],
        TASKS[(i / 3) % TASKS.len()],
        DAYS[(i / 2) % DAYS.len()],
        150 + (i * 37) % 900
    )
}

/// One turn; the prompt tokens the server reported for its chat request.
async fn turn(engine: &Engine, key: &str, text: &str) -> Option<u64> {
    let ctx = RequestContext::for_session(key, engine.runner.root().name.clone());
    let mut stream = engine.runner.run(ctx, key, text, true);
    let mut prompt = None;
    while let Some(item) = stream.next().await {
        let event = item.expect("turn");
        if let Some(usage) = event.usage {
            prompt = Some(usage.input_tokens);
        }
    }
    prompt
}

async fn run(url: &str, turns: usize, memory: Value) -> Vec<Option<u64>> {
    let home = tempfile::tempdir().expect("temp dir");
    let settings = json!({
        "providers": {PROVIDER: {"type": "openai-compatible", "baseUrl": format!("{url}/v1"), "defaultModel": "smollm2"}},
        "agent": {"provider": PROVIDER, "systemPrompt": "You are a helpful assistant. Answer briefly.",
                  "temperature": 0, "maxTokens": 16},
        "observationalMemory": memory,
    });
    let (settings, _) = lango_core::config::validate_value(&settings).expect("valid settings");
    let paths = AppPaths::under(home.path());
    let store = Store::open_app(&paths).await.expect("store");
    let engine = Engine::from_parts(&paths, settings, store).expect("engine");
    let on = engine.memory.is_some();
    let key = "tokens";
    let started = Instant::now();
    let mut prompts = Vec::with_capacity(turns);
    for i in 0..turns {
        prompts.push(turn(&engine, key, &user_message(i)).await);
        if let Some(m) = &engine.memory {
            m.cycle.run(key).await;
        }
        if (i + 1) % 25 == 0 {
            println!(
                "  memory {}: turn {:>3}: {} prompt tokens; {:.0} s",
                if on { "on " } else { "off" },
                i + 1,
                prompts[i].map_or("?".into(), |n| n.to_string()),
                started.elapsed().as_secs_f64()
            );
        }
    }
    if on {
        let observations = engine
            .store
            .list_observations(key)
            .await
            .map_or(0, |v| v.len());
        let reflections = engine
            .store
            .list_reflections(key)
            .await
            .map_or(0, |v| v.len());
        println!("  memory on: {observations} observations, {reflections} reflections");
    }
    engine.shutdown().await;
    prompts
}

fn main() {
    let Ok(url) = std::env::var("LANGO_REAL_LLM_URL") else {
        println!("real-model prompt tokens: skipped (no LANGO_REAL_LLM_URL; run `make test-real`)");
        return;
    };
    let turns: usize = std::env::var("REAL_TOKENS_TURNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200)
        .max(1);
    std::env::set_var(lango_core::secrets::env_var_name(PROVIDER), "unused");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        println!("real-model prompt tokens: {turns} turns, SmolLM2-135M as chat and memory model, replies <= 16 tokens");
        // REAL_TOKENS_ONLY=on|off runs one side (e.g. each against its own server at once:
        // the counts are the server's, the same whichever runs first).
        let only = std::env::var("REAL_TOKENS_ONLY").unwrap_or_default();
        let on = if only == "off" {
            Vec::new()
        } else {
            run(
                &url,
                turns,
                json!({"enabled": true, "messageTokenThreshold": 600,
                       "observationTokenThreshold": 1200, "maxMessageTokenBudget": 1200}),
            )
            .await
        };
        let off = if only == "on" {
            Vec::new()
        } else {
            run(&url, turns, json!({"enabled": false})).await
        };
        for (side, prompts) in [("on", &on), ("off", &off)] {
            if let Some(Some(last)) = prompts.last() {
                println!("  memory {side}: prompt tokens at turn {turns}: {last}");
            }
        }
        if !only.is_empty() {
            println!("  one side only (REAL_TOKENS_ONLY={only}): the ratio is the two runs' figures");
            return;
        }
        let (Some(Some(on_last)), Some(Some(off_last))) = (on.last(), off.last()) else {
            println!("  the server reported no usage for the last turn: no figure");
            return;
        };
        let ratio = *on_last as f64 / *off_last as f64;
        println!(
            "prompt tokens at turn {turns} (server-reported): memory on {on_last} / off {off_last} = ratio {ratio:.3} (goal <= 0.3) {}",
            if ratio <= 0.3 { "OK" } else { "ABOVE GOAL" }
        );
    });
}
