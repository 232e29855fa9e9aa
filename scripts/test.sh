#!/usr/bin/env bash
# Runs every test: UI unit tests, Rust tests (engine, CLI, app crate) and the end-to-end
# tests that drive the real window, all inside a virtual desktop session with a real
# keychain. Installs what is missing first.
source "$(dirname "$0")/lib.sh"

apt_install_missing "${BUILD_PACKAGES[@]}" "${TEST_PACKAGES[@]}"
ensure_toolchains
ensure_ui_deps
ensure_mcp_test_servers

step "ui unit tests (vitest)"
(cd "$ROOT/ui" && npx vitest run)
build_ui
build_app

step "cargo test (workspace) in a desktop session with a real keychain"
"$ROOT/scripts/with-desktop-session.sh" env LANGO_TEST_KEYCHAIN=required \
    cargo test --locked --workspace --features tauri/custom-protocol

step "end-to-end tests (real window over WebDriver, against the fake provider)"
(cd "$ROOT" && cargo build --locked -p lango-testkit --bin lango-fake-provider)
mkdir -p "$ROOT/tests/e2e/screenshots"
"$ROOT/scripts/with-desktop-session.sh" env APP_BIN="$ROOT/target/debug/lango-desktop" \
    FAKE_PROVIDER_BIN="$ROOT/target/debug/lango-fake-provider" \
    sh -c "cd '$ROOT' && node --test tests/e2e/*.test.mjs"
step "all tests passed; screenshots in tests/e2e/screenshots/"
