#!/usr/bin/env bash
# Installs the linters `make lint` needs besides cargo's (tools/requirements-lint.txt:
# actionlint, ShellCheck) from PyPI into a virtualenv in .tools/venv, and prints the venv's
# bin folder. Skips the install when it is already there for the current requirements.
source "$(dirname "$0")/lib.sh"

ensure_lint_tools() {
    local venv="$ROOT/.tools/venv" req="$ROOT/tools/requirements-lint.txt"
    local stamp="$venv/.lango-installed"
    if [ ! -f "$stamp" ] || [ "$req" -nt "$stamp" ]; then
        command -v python3 >/dev/null || apt_install_missing python3 >&2
        python3 -c "import ensurepip" 2>/dev/null || apt_install_missing python3-venv >&2
        step "pip install (lint tools)" >&2
        rm -rf "$venv"
        python3 -m venv "$venv" >&2
        "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$req" >&2
        touch "$stamp"
    fi
    echo "$venv/bin"
}
ensure_lint_tools
