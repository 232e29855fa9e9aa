#!/usr/bin/env bash
# Regenerates src-tauri/startup-order.txt: the functions the release desktop app runs from its
# start until its window is idle, which the release link then places side by side
# (src-tauri/build.rs). Runs the app twice under valgrind's callgrind in a virtual desktop
# session (once as a start usually goes — a provider set up, its key in the OS keychain, as
# `make perf` measures — and once as a first run with the page waiting for the data), and
# keeps every function of the app's own binary either run touched. Symbol names change with a Rust
# or dependency upgrade: regenerate then, or when `make perf` finds few of the listed functions.
source "$(dirname "$0")/lib.sh"

apt_install_missing "${BUILD_PACKAGES[@]}" "${TEST_PACKAGES[@]}" valgrind
ensure_toolchains
ensure_ui_deps
build_ui
step "cargo build (release)"
# With the seeder and the CLI (which stores the provider's key), as make perf builds them.
cargo_build_with_tools --release --bin lango-desktop --example seed_session --bin lango

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
BIN="$ROOT/target/release/lango-desktop"
"$ROOT/target/release/examples/seed_session" "$WORK/home" perf-10k 10000
"$ROOT/target/release/examples/seed_session" "$WORK/first-run" perf-10k 10000
# As scripts/perf-desktop.sh sets it up: a provider whose key is in the keychain, memory on.
write_set_up_settings "$WORK/home"

# One profiled start: the app under callgrind (~50× slower than natively) until its window has
# long been idle; the profile up to then is dumped (`$out.1`: what a start runs, not what quitting
# runs), then SIGTERM, which the app answers with a clean exit.
profile_start() {
    local out="$1" home="$2"
    shift 2
    step "callgrind: start ${out##*/}"
    # A set-up home's key goes into the session's throw-away keychain first.
    "$ROOT/scripts/with-desktop-session.sh" env LANGO_HOME="$home" "$@" \
        XDG_DATA_HOME="$WORK/xdg/data" XDG_CACHE_HOME="$WORK/xdg/cache" XDG_CONFIG_HOME="$WORK/xdg/config" \
        sh -c 'if [ -f "$LANGO_HOME/settings.json" ]; then
                   echo sk-startup-order-0123456789 | "$3" config set-key cloud >/dev/null || exit 1
               fi
               valgrind --tool=callgrind --demangle=no --dump-instr=no --callgrind-out-file="$1" "$2" >"$1.log" 2>&1 &
               pid=$!; sleep 60; callgrind_control --dump=idle "$pid" >/dev/null; sleep 3
               kill -TERM "$pid"; wait "$pid" || true' sh "$out" "$BIN" "$ROOT/target/release/lango"
    [ -s "$out.1" ] || die "callgrind wrote no profile at idle (see $out.log)"
}
# The first start with a freshly seeded folder is also the day's first: it makes the daily
# backup and indexes the seeded messages, as a user's first start of a day or after an import.
profile_start "$WORK/usual.out" "$WORK/home"
profile_start "$WORK/data-first.out" "$WORK/first-run" LANGO_BOOT_WAIT_MS=60000

node "$ROOT/tests/perf/startup-order.mjs" "$BIN" "$ROOT/src-tauri/startup-order.txt" \
    "$WORK/usual.out.1" "$WORK/data-first.out.1"
echo "Rebuild the release app (make perf, make package) to use it."
