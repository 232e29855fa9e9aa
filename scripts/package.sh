#!/usr/bin/env bash
# Builds the Linux packages of the desktop app: the .deb and the .rpm, release build, into
# target/release/bundle/{deb,rpm}/. The AppImage is left to the release pipeline
# (.github/workflows/release.yml): Tauri's bundler downloads its tools (linuxdeploy, AppRun)
# from GitHub while building one, which only package registries' hosts allow here.
source "$(dirname "$0")/lib.sh"

apt_install_missing "${BUILD_PACKAGES[@]}"
ensure_toolchains
ensure_ui_deps
build_packages release
step "packages:"
ls -l "$ROOT"/target/release/bundle/deb/*.deb "$ROOT"/target/release/bundle/rpm/*.rpm
