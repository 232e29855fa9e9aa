#!/usr/bin/env bash
# Measures the desktop app: cold start to interactive and idle memory, side by side with a
# blank Tauri window built from the same crates (src-tauri/examples/blank_window.rs), and the
# first paint of a 10,000-message conversation (tests/perf/desktop-perf.mjs), with a provider
# set up and its key in the OS keychain. Release build by default (PROFILE=debug to measure
# the debug build); RUNS=20 cold starts each.
source "$(dirname "$0")/lib.sh"

PROFILE="${PROFILE:-release}"
apt_install_missing "${BUILD_PACKAGES[@]}" "${TEST_PACKAGES[@]}"
ensure_toolchains
ensure_ui_deps
build_ui
step "cargo build ($PROFILE)"
flag=(); [ "$PROFILE" = release ] && flag=(--release)
cargo_build_with_tools "${flag[@]}" --bin lango-desktop --example blank_window
# The seeder and the CLI (which stores the provider's key below), always release.
cargo_build_with_tools --release --example seed_session --bin lango

HOME_DIR="$(mktemp -d)"
trap 'rm -rf "$HOME_DIR"' EXIT
"$ROOT/target/release/examples/seed_session" "$HOME_DIR" perf-10k 10000
# Set up as a user has it: a provider whose API key is in the OS keychain (so a start reads
# it there) and the memory on. The address answers nothing; nothing here sends a message.
write_set_up_settings "$HOME_DIR"
step "measuring"
# The key goes into the session's keychain (with-desktop-session.sh starts a throw-away one).
"$ROOT/scripts/with-desktop-session.sh" sh -c '
    echo sk-perf-measurement-0123456789 | LANGO_HOME="$1" "$2/target/release/lango" config set-key cloud >/dev/null &&
    exec env LANGO_HOME="$1" APP_BIN="$2/target/$3/lango-desktop" BLANK_BIN="$2/target/$3/examples/blank_window" \
        node "$2/tests/perf/desktop-perf.mjs"' sh "$HOME_DIR" "$ROOT" "$PROFILE"
