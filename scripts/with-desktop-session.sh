#!/usr/bin/env bash
# Runs a command the way a desktop session would have it: a virtual display (Xvfb), a
# private D-Bus session bus, and an unlocked gnome-keyring as the OS keychain, under a
# throw-away HOME so no real keyring or settings are touched (BUILD-NOTES §6, §9).
set -euo pipefail
[ $# -gt 0 ] || { echo "usage: $0 COMMAND [ARGS…]" >&2; exit 2; }

SESSION_HOME="$(mktemp -d)"
trap 'rm -rf "$SESSION_HOME"' EXIT
# cargo and rustup find their homes through HOME unless told: keep the real ones.
export CARGO_HOME="${CARGO_HOME:-$HOME/.cargo}" RUSTUP_HOME="${RUSTUP_HOME:-$HOME/.rustup}"
export npm_config_cache="${npm_config_cache:-$HOME/.npm}"

xvfb-run -a -s "-screen 0 1280x800x24" \
    env HOME="$SESSION_HOME" XDG_RUNTIME_DIR="$SESSION_HOME" \
    dbus-run-session -- sh -c \
    'printf lango-test-keyring | gnome-keyring-daemon --unlock --components=secrets >/dev/null && exec "$@"' \
    sh "$@"
