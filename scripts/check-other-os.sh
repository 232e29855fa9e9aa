#!/usr/bin/env bash
# Type-checks the code for Windows and macOS from Linux (`cargo check --target`): every
# `#[cfg(windows)]` / `#[cfg(target_os = "macos")]` path compiles. Nothing is linked or run
# (CI runs the tests on Windows and macOS runners).
#
# - Windows (x86_64-pc-windows-gnu): the real MinGW C compiler (apt) builds the bundled
#   SQLite and aws-lc.
# - macOS (x86_64-apple-darwin): no macOS SDK can be had here, and `check` never links, so a
#   stand-in compiler writes empty objects for the C parts of dependencies; the Rust code is
#   checked for real.
#
# Usage: scripts/check-other-os.sh [windows|macos]...  (default: both)
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"

targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(windows macos)

for os in "${targets[@]}"; do
    case "$os" in
    windows)
        apt_install_missing gcc-mingw-w64-x86-64
        rustup target add x86_64-pc-windows-gnu
        step "cargo check for Windows (engine, CLI, their tests, the desktop shell)"
        cargo check --target x86_64-pc-windows-gnu -p lango-core -p lango-cli --all-targets
        cargo check --target x86_64-pc-windows-gnu -p lango-desktop --features tauri/custom-protocol
        ;;
    macos)
        rustup target add x86_64-apple-darwin
        fake="$(mktemp -d)"
        trap 'rm -rf "$fake"' EXIT
        cat >"$fake/cc" <<'CC'
#!/bin/sh
# Empty objects wherever -o points; "clang" when cc-rs asks (-E); not cl.exe (-?).
out=""; prev=""
for a in "$@"; do
  [ "$a" = "-?" ] && exit 1
  [ "$prev" = "-o" ] && out="$a"
  prev="$a"
done
case " $* " in *" --version "*) echo "clang version 18.0.0"; exit 0;; esac
case " $* " in *" -E "*) echo '"clang"'; exit 0;; esac
[ -n "$out" ] && cc -c -x c /dev/null -o "$out"
exit 0
CC
        chmod +x "$fake/cc"
        step "cargo check for macOS (engine, CLI, their tests, the desktop shell)"
        CC_x86_64_apple_darwin="$fake/cc" CXX_x86_64_apple_darwin="$fake/cc" \
            AR_x86_64_apple_darwin=ar SDKROOT="$fake" \
            cargo check --target x86_64-apple-darwin -p lango-core -p lango-cli -p lango-desktop --all-targets
        ;;
    *) die "unknown target $os (windows or macos)" ;;
    esac
done
step "checked: ${targets[*]}"
