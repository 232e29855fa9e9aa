#!/usr/bin/env bash
# Measures the desktop app: cold start to interactive and idle memory, side by side with a
# blank Tauri window built from the same crates (src-tauri/examples/blank_window.rs), and the
# first paint of a 10,000-message conversation (tests/perf/desktop-perf.mjs). Release build
# by default (PROFILE=debug to measure the debug build); RUNS=20 cold starts each.
source "$(dirname "$0")/lib.sh"

PROFILE="${PROFILE:-release}"
apt_install_missing "${BUILD_PACKAGES[@]}" "${TEST_PACKAGES[@]}"
ensure_toolchains
ensure_ui_deps
build_ui
step "cargo build ($PROFILE)"
flag=(); [ "$PROFILE" = release ] && flag=(--release)
(cd "$ROOT" && cargo build --locked "${flag[@]}" -p lango-desktop --features tauri/custom-protocol \
    --bins --example blank_window)
(cd "$ROOT" && cargo build --locked --release -p lango-core --example seed_session)

HOME_DIR="$(mktemp -d)"
trap 'rm -rf "$HOME_DIR"' EXIT
"$ROOT/target/release/examples/seed_session" "$HOME_DIR" perf-10k 10000
step "measuring"
"$ROOT/scripts/with-desktop-session.sh" env LANGO_HOME="$HOME_DIR" \
    APP_BIN="$ROOT/target/$PROFILE/lango-desktop" BLANK_BIN="$ROOT/target/$PROFILE/examples/blank_window" \
    node "$ROOT/tests/perf/desktop-perf.mjs"
