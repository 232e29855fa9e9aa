#!/usr/bin/env bash
# Runs every test: UI unit tests, Rust tests (engine, CLI, app crate) and the end-to-end
# tests that drive the real window, all inside a virtual desktop session with a real
# keychain, and the package test: the .deb of the debug build installed with apt, started
# from its launcher command, removed (tests/package). Installs what is missing first.
source "$(dirname "$0")/lib.sh"

apt_install_missing "${BUILD_PACKAGES[@]}" "${TEST_PACKAGES[@]}" "${PACKAGE_TEST_PACKAGES[@]}"
ensure_toolchains
ensure_ui_deps
ensure_mcp_test_servers

step "ui unit tests (vitest)"
(cd "$ROOT/ui" && npx vitest run && npm run --silent test:dom)
step "measurement tooling unit tests (node --test)"
(cd "$ROOT" && node --test tests/perf/lib/*.test.mjs)
build_ui
build_app

step "cargo test (workspace) in a desktop session with a real keychain"
"$ROOT/scripts/with-desktop-session.sh" env LANGO_TEST_KEYCHAIN=required \
    cargo test --locked --workspace --features tauri/custom-protocol

step "end-to-end tests (real window over WebDriver, against the fake provider)"
# The fake provider, and the seeders that fill a 10,000-message conversation
# (tests/e2e/chat-polish.test.mjs) and 620 conversations (tests/e2e/many-conversations.test.mjs).
# Built with the app's packages selected, so they reuse its build (lib.sh, APP_AND_TOOLS).
cargo_build_with_tools --bin lango-fake-provider --example seed_session --example seed_scale
mkdir -p "$ROOT/tests/e2e/screenshots"
"$ROOT/scripts/with-desktop-session.sh" env APP_BIN="$ROOT/target/debug/lango-desktop" \
    FAKE_PROVIDER_BIN="$ROOT/target/debug/lango-fake-provider" \
    sh -c "cd '$ROOT' && node --test tests/e2e/*.test.mjs"

# The debug binary just tested, bundled (no second compile): the packaging — dependencies,
# desktop entry, icons, install, first start, removal — is the same as the release's
# (`make test-package` runs this test on the release build).
build_packages debug
"$ROOT/tests/package/test-deb.sh" "$ROOT/target/debug/bundle/deb/Lango_$(app_version)_amd64.deb"
step "all tests passed; screenshots in tests/e2e/screenshots/"
