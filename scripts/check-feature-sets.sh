#!/usr/bin/env bash
# Checks that the desktop app gets one feature set for every crate it links, whether it is
# built alone (`tauri build`, i.e. `make package` and the release pipeline) or together with
# the CLI, the engine's examples and the test kit (`make test`, `make perf`, `make
# startup-order`). Cargo unifies features over what one invocation selects; a crate whose
# features differ is compiled twice and gets other symbol names in the shipped binary than in
# the one measured, which leaves src-tauri/startup-order.txt partly unused (stop 50: nix's
# `term` from the CLI). ~2 s; part of `make lint`.
source "$(dirname "$0")/lib.sh"

# Every crate the graph names, with its features, one line each ("name vX.Y.Z f1,f2").
# Arguments: the kinds of dependency followed, then the packages selected.
feature_sets() {
    local edges="$1"
    shift
    (cd "$ROOT" && cargo tree --locked --features tauri/custom-protocol --prefix none \
        -e "features,$edges" -f '{p} {f}' "$@") |
        grep -v ' feature "' | sed 's/ (\*)$//; s/ (proc-macro)//' | sort -u
}

alone="$(feature_sets normal,build -p lango-desktop)"
# Dev-dependencies too: building the engine's examples turns them on.
together="$(feature_sets normal,build,dev "${APP_AND_TOOLS[@]}")"

# A crate of the app's graph that appears with other features when built together.
differ="$(comm -13 <(echo "$alone") <(echo "$together") | while read -r name version rest; do
    if grep -q "^$name $version " <<<"$alone"; then echo "  $name $version: $rest"; fi
done)"
if [ -n "$differ" ]; then
    echo "The desktop app's crates get other features when built with the CLI and the tools:" >&2
    echo "$differ" >&2
    echo "  (alone: $(comm -23 <(echo "$alone") <(echo "$together") | tr '\n' ';'))" >&2
    echo "Ask for the same features in src-tauri/Cargo.toml (see its nix entry)." >&2
    exit 1
fi
echo "one feature set: the desktop app alone and with the CLI, examples and test kit"
