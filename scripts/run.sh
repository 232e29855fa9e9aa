#!/usr/bin/env bash
# Installs what is missing, builds the UI and the desktop app, and starts it.
# Extra arguments are passed to the app. LANGO_HOME=<dir> keeps all data in <dir>.
source "$(dirname "$0")/lib.sh"

apt_install_missing "${BUILD_PACKAGES[@]}"
ensure_toolchains
ensure_ui_deps
build_ui
build_app
step "starting Lango"
exec "$ROOT/target/debug/lango-desktop" "$@"
