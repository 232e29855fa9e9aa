#!/usr/bin/env bash
# `make bench-scale`: the engine and the CLI on a 1,000 × 1,000-message database against a
# 1-conversation one, measured side by side in one run (release build). Seeds both with
# crates/lango-core/examples/seed_scale.rs, times the user's global search (a rare word in the
# same 5 messages of each, a rare word at a fixed rate — 20 hits at 1M, 1 in the small one —,
# a common word, a query per keystroke, three words) with examples/bench_search.rs and
# `lango sessions search` as a process, reports peak memory (/usr/bin/time) and database
# size per message, then prints one table: p50 / p95 of each, and the ratio 1M / 1-conv.
#
# The desktop app too (tests/perf/desktop-scale.mjs, under Xvfb): cold start to an
# interactive sidebar, sidebar first paint, opening a conversation, send → first partial and
# the app's peak memory, on each database, runs alternating (DESKTOP_RUNS, default 5;
# DESKTOP=0 skips it).
#
# SESSIONS / MESSAGES / RUNS override the sizes (defaults 1000, 1000, 200);
# KEEP=1 keeps the seeded folders (printed) for another run: SCALE_DIR=<folder> reuses them.
source "$(dirname "$0")/lib.sh"

SESSIONS="${SESSIONS:-1000}"
MESSAGES="${MESSAGES:-1000}"
RUNS="${RUNS:-200}"
CLI_RUNS="${CLI_RUNS:-10}"
DESKTOP="${DESKTOP:-1}"

ensure_toolchains
TOOLS=(--example seed_scale --example bench_search --bin lango)
if [ "$DESKTOP" = 1 ]; then
    build_release_desktop_with_fake_provider "${TOOLS[@]}"
else
    step "cargo build (release): seeder, search bench, CLI"
    cargo_build_with_tools --release "${TOOLS[@]}"
fi
BIN="$ROOT/target/release"

if [ -n "${SCALE_DIR:-}" ]; then
    DIR="$SCALE_DIR"
else
    DIR="$(mktemp -d)"
    [ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$DIR"' EXIT
    step "seeding $SESSIONS × $MESSAGES messages and 1 × $MESSAGES"
    mkdir -p "$DIR/big" "$DIR/one"
    "$BIN/examples/seed_scale" "$DIR/one" 1 "$MESSAGES"
    "$BIN/examples/seed_scale" "$DIR/big" "$SESSIONS" "$MESSAGES"
fi
[ "${KEEP:-0}" = 1 ] && echo "seeded folders kept in $DIR (SCALE_DIR=$DIR to reuse)"

# Peak resident memory (KiB) of a command, its stdout kept in $OUT.
peak() {
    local mem
    mem="$(mktemp)"
    OUT="$(/usr/bin/time -f %M -o "$mem" "$@")"
    PEAK_KB="$(tail -1 "$mem")"
    rm -f "$mem"
}

ROWS=()
row() { ROWS+=("$*"); }

step "global search (engine, first page of 50, $RUNS runs each, the two databases alternating)"
for set in needle rare common typing three; do
    # Times: both databases in one process, each query on one and then the other.
    pair="$("$BIN/examples/bench_search" "$DIR/one" "$DIR/big" "$set" "$RUNS")"
    # Peak memory: each database alone.
    peak "$BIN/examples/bench_search" "$DIR/one" "$set" 5
    one_mem="$PEAK_KB"
    peak "$BIN/examples/bench_search" "$DIR/big" "$set" 5
    big_mem="$PEAK_KB"
    row "$(jq -rn --argjson p "$pair" --arg ma "$one_mem" --arg mb "$big_mem" --arg set "$set" \
        '$p.small as $a | $p.big as $b | "search: \($set) (\($b.total)\(if $b.lower_bound then "+" else "" end) hits at 1M, \($a.total) in 1-conv)|\($a.p50_ms*100|round/100)|\($a.p95_ms*100|round/100)|\($b.p50_ms*100|round/100)|\($b.p95_ms*100|round/100)|\(($b.p95_ms/$a.p95_ms)*100|round/100)|\($ma|tonumber/1024|round) / \($mb|tonumber/1024|round) MB"')"
done

step "lango sessions search (a process each, $CLI_RUNS runs)"
# Without this, each command's daily backup (VACUUM INTO of the whole file, given 5 s at
# exit) is what is measured: at 1M it never finishes in 5 s, so every command waits 5 s.
for db in one big; do
    [ -f "$DIR/$db/settings.json" ] || echo '{"backups": {"daily": false}}' > "$DIR/$db/settings.json"
done
cli_times() {
    local db=$1 t0 t1
    TIMES=()
    for _ in $(seq "$CLI_RUNS"); do
        t0=$(date +%s%N)
        peak "$BIN/lango" --data-dir "$DIR/$db" --json sessions search project --limit 50
        t1=$(date +%s%N)
        TIMES+=("$(( (t1 - t0) / 1000 ))")
    done
}
pct() { printf '%s\n' "$@" | sort -n | awk -v p="$P" '{a[NR]=$1} END {i=int((NR-1)*p+0.5)+1; printf "%.2f", a[i]/1000}'; }
cli_times one; P=0.5 one50=$(pct "${TIMES[@]}"); P=0.95 one95=$(pct "${TIMES[@]}"); one_mem=$PEAK_KB
cli_times big; P=0.5 big50=$(pct "${TIMES[@]}"); P=0.95 big95=$(pct "${TIMES[@]}"); big_mem=$PEAK_KB
row "lango sessions search project (process)|$one50|$one95|$big50|$big95|$(awk -v a="$one95" -v b="$big95" 'BEGIN{printf "%.2f", b/a}')|$((one_mem / 1024)) / $((big_mem / 1024)) MB"

size_per_message() { # bytes per message of the folder's database (WAL folded in at close)
    local bytes
    bytes=$(stat -c %s "$DIR/$1/lango.db")
    echo $(( bytes / $2 ))
}
one_b=$(size_per_message one "$MESSAGES")
big_b=$(size_per_message big $((SESSIONS * MESSAGES)))
row "database size per message (bytes)|$one_b||$big_b||$(awk -v a="$one_b" -v b="$big_b" 'BEGIN{printf "%.2f", b/a}')|"

if [ "$DESKTOP" = 1 ]; then
    step "desktop app on each database (${DESKTOP_RUNS:-5} cold starts each, alternating)"
    DESKTOP_OUT="$("$ROOT/scripts/with-desktop-session.sh" env APP_BIN="$BIN/lango-desktop" \
        FAKE_PROVIDER_BIN="$BIN/lango-fake-provider" SCALE_ONE="$DIR/one" SCALE_BIG="$DIR/big" \
        DESKTOP_RUNS="${DESKTOP_RUNS:-5}" node "$ROOT/tests/perf/desktop-scale.mjs")"
    one_json="$(grep '"db":"one"' <<<"$DESKTOP_OUT")"
    big_json="$(grep '"db":"big"' <<<"$DESKTOP_OUT")"
    for measure in "cold:desktop: cold start → interactive sidebar" "sidebar:desktop: sidebar first paint (from the process start)" \
        "open:desktop: open a conversation (1,000 messages)" "firstPartial:desktop: send → first partial"; do
        key="${measure%%:*}" label="${measure#*:}"
        row "$(jq -rn --argjson a "$one_json" --argjson b "$big_json" --arg k "$key" --arg name "$label" \
            '"\($name)|\($a[$k].p50|round)|\($a[$k].p95|round)|\($b[$k].p50|round)|\($b[$k].p95|round)|\(($b[$k].p95/$a[$k].p95)*100|round/100)|\(if $k == "cold" then "\($a.peakKb/1024|round) / \($b.peakKb/1024|round) MB (the app, peak)" else "" end)"')"
    done
fi

echo
echo "bench-scale: ${SESSIONS} × ${MESSAGES} messages (1M) vs 1 × ${MESSAGES} (1-conv); times in ms; ratio = 1M p95 / 1-conv p95"
{
    echo "measure|1-conv p50|1-conv p95|1M p50|1M p95|ratio|peak memory 1-conv / 1M"
    printf '%s\n' "${ROWS[@]}"
} | column -t -s '|'
