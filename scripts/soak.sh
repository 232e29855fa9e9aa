#!/usr/bin/env bash
# Soaks (release builds): the engine through 2,000 turns of one conversation with the memory
# on (crates/lango-core/benches/soak.rs), then the desktop app kept open through 500 streamed
# replies (tests/perf/desktop-soak.mjs), both against the fake provider. Each prints memory
# and latency at the start and at the end. SOAK_TURNS / SOAK_REPLIES change the lengths;
# ONLY=engine or ONLY=desktop runs one of them.
source "$(dirname "$0")/lib.sh"

ONLY="${ONLY:-}"
ensure_toolchains
if [ "$ONLY" != desktop ]; then
    step "engine soak (cargo bench --bench soak)"
    (cd "$ROOT" && cargo bench --locked -p lango-core --bench soak)
fi
if [ "$ONLY" != engine ]; then
    build_release_desktop_with_fake_provider
    step "desktop soak"
    "$ROOT/scripts/with-desktop-session.sh" env APP_BIN="$ROOT/target/release/lango-desktop" \
        FAKE_PROVIDER_BIN="$ROOT/target/release/lango-fake-provider" \
        node "$ROOT/tests/perf/desktop-soak.mjs"
fi
