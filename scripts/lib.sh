# Shared helpers for Lango's scripts (sourced, not run). Bash, Debian/Ubuntu.

set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-auto}"
T0=$SECONDS

step() { echo "=== [$((SECONDS - T0))s] $*"; }
die() { echo "error: $*" >&2; exit 1; }

# Runs a command as root: directly when we are root, else through sudo.
as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"
    elif command -v sudo >/dev/null; then sudo "$@"
    else die "need root to run: $* (install sudo or run as root)"
    fi
}

# Installs the given Debian packages that are not installed yet; no-op (and no root
# needed) when all are present.
apt_install_missing() {
    local missing=()
    for pkg in "$@"; do
        dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    step "apt-get install ${missing[*]}"
    as_root apt-get update -q
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
}

# What building the desktop app needs (BUILD-NOTES §1; bookworm has no libappindicator3-dev).
BUILD_PACKAGES=(
    build-essential pkg-config curl file ca-certificates
    libwebkit2gtk-4.1-dev libgtk-3-dev libsoup-3.0-dev libjavascriptcoregtk-4.1-dev
    libayatana-appindicator3-dev librsvg2-dev libssl-dev libxdo-dev libdbus-1-dev xdg-utils
)

# What the test suite adds: a virtual display, WebKit's WebDriver, a private D-Bus session
# with a keyring for the keychain tests, ImageMagick for screenshots.
# tmux: the CLI test that types an API key into a real terminal (crates/lango-cli/tests/terminal.rs).
# python3-venv: the PyPI MCP server the tool tests run (tests/mcp-servers).
TEST_PACKAGES=(xvfb xauth webkit2gtk-driver dbus dbus-x11 gnome-keyring imagemagick tmux python3 python3-venv)

# What the package test adds (tests/package): desktop-file-validate, xwininfo/xprop to find
# the window, rpm to read the .rpm's requirements.
PACKAGE_TEST_PACKAGES=(desktop-file-utils x11-utils rpm)

ensure_toolchains() {
    if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
        apt_install_missing nodejs npm
    fi
    local major
    major="$(node -p 'process.versions.node.split(".")[0]')"
    [ "$major" -ge 20 ] || die "Node.js >= 20.19 is needed for Vite 7 (found $(node --version))"
    command -v cargo >/dev/null || die "Rust is needed: install it with rustup (https://rustup.rs), then re-run"
}

# ui/node_modules, refreshed when package.json or the lock changed. Not `npm ci`: the
# registry lacks some other platforms' optional packages, so `npm ci` refuses our lock
# (BUILD-NOTES §2); `npm install` keeps the locked versions.
ensure_ui_deps() {
    local stamp="$ROOT/ui/node_modules/.lango-installed"
    if [ ! -f "$stamp" ] || [ "$ROOT/ui/package.json" -nt "$stamp" ] || [ "$ROOT/ui/package-lock.json" -nt "$stamp" ]; then
        step "npm install (ui)"
        (cd "$ROOT/ui" && npm install --no-audit --no-fund --loglevel=error)
        touch "$stamp"
    fi
}

# Builds the UI into ui/dist. The app embeds every file there, and cargo rebuilds it when any
# of their times changes (a fat-LTO relink of the release app: ~4 min here). So the build goes
# to a staging folder first, and only files whose bytes changed are written into dist.
build_ui() {
    step "vite build (ui)"
    local staged="$ROOT/ui/dist.staged"
    (cd "$ROOT/ui" && npx vite build --logLevel warn --outDir dist.staged)
    replace_changed_files "$staged" "$ROOT/ui/dist"
    rm -rf "$staged"
}

# Makes folder $2 hold what $1 holds, rewriting only the files that differ (the others keep
# their modification times) and removing those $1 does not have.
replace_changed_files() {
    local from="$1" to="$2" rel
    mkdir -p "$to"
    while IFS= read -r -d '' rel; do
        if ! cmp -s "$from/$rel" "$to/$rel"; then
            mkdir -p "$(dirname "$to/$rel")"
            cp "$from/$rel" "$to/$rel"
        fi
    done < <(cd "$from" && find . -type f -print0)
    while IFS= read -r -d '' rel; do
        [ -e "$from/$rel" ] || rm -f "$to/$rel"
    done < <(cd "$to" && find . -type f -print0)
    find "$to" -mindepth 1 -type d -empty -delete
}

# The packages every build of the app's tools selects: cargo unifies features over what one
# invocation selects, so a tool built with fewer (`-p lango-core --example …`) would compile
# its own copy of every dependency. The app built alone (`tauri build`) gets the same
# features as with these (src-tauri/Cargo.toml; scripts/check-feature-sets.sh checks it).
APP_AND_TOOLS=(-p lango-desktop -p lango-cli -p lango-core -p lango-testkit)

# Builds the given targets with APP_AND_TOOLS selected, one invocation; the arguments are
# cargo's, e.g. `--release --bin lango-desktop --example seed_session`. Only what the targets
# need is compiled: the CLI's or a seeder's build compiles nothing of GTK.
cargo_build_with_tools() {
    (cd "$ROOT" && cargo build --locked "${APP_AND_TOOLS[@]}" --features tauri/custom-protocol "$@")
}

# The release desktop app (UI embedded) and the fake provider, for the desktop benches
# (`make soak`, `make bench-scale`): target/release/{lango-desktop,lango-fake-provider}, and
# any further targets given (as `cargo_build_with_tools` takes them).
build_release_desktop_with_fake_provider() {
    apt_install_missing "${BUILD_PACKAGES[@]}" "${TEST_PACKAGES[@]}"
    ensure_ui_deps
    build_ui
    step "cargo build (release desktop app, fake provider)"
    cargo_build_with_tools --release --bin lango-desktop --bin lango-fake-provider "$@"
}

# A debug binary with the UI embedded (custom-protocol), sharing target/ with the tests.
build_app() {
    step "cargo build (desktop app + CLI)"
    (cd "$ROOT" && cargo build --locked -p lango-desktop -p lango-cli --features tauri/custom-protocol)
}

# The app's version (tauri.conf.json; the packages are named after it).
app_version() {
    node -p "require('$ROOT/tauri.conf.json').version"
}

# Linux packages (.deb, .rpm) of the desktop app in target/<profile>/bundle/. Release: a
# full `tauri build`. Debug: bundles the debug binary build_app made (no second compile).
build_packages() {
    local profile="$1"
    if [ "$profile" = release ]; then
        step "tauri build (release): .deb, .rpm"
        (cd "$ROOT/ui" && npm run --silent tauri -- build --bundles deb,rpm)
    else
        step "tauri bundle (debug): .deb, .rpm"
        (cd "$ROOT/ui" && npm run --silent tauri -- bundle --debug --bundles deb,rpm)
    fi
}

# The real MCP servers the tests run (tests/mcp-servers): npm packages run with node, and a
# PyPI server in a virtualenv. Reinstalled when their lock or requirements change.
ensure_mcp_test_servers() {
    local dir="$ROOT/tests/mcp-servers"
    local npm_stamp="$dir/node_modules/.lango-installed"
    if [ ! -f "$npm_stamp" ] || [ "$dir/package-lock.json" -nt "$npm_stamp" ]; then
        step "npm ci (MCP test servers)"
        (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
        touch "$npm_stamp"
    fi
    local py_stamp="$dir/.venv/.lango-installed"
    if [ ! -f "$py_stamp" ] || [ "$dir/requirements.txt" -nt "$py_stamp" ]; then
        step "pip install (MCP test servers)"
        rm -rf "$dir/.venv"
        # Windows (CI's engine job, Git Bash): `python`, and the venv keeps programs in Scripts/.
        local python=python3 bin=bin
        case "$(uname -s)" in MINGW* | MSYS* | CYGWIN*) python=python bin=Scripts ;; esac
        "$python" -m venv "$dir/.venv"
        "$dir/.venv/$bin/python" -m pip install --quiet --disable-pip-version-check -r "$dir/requirements.txt"
        touch "$py_stamp"
    fi
}

# Sets up the data folder $1 as a user has it, for make perf and make startup-order: a
# provider ("cloud") whose API key the caller stores in the OS keychain, and the memory on.
# The address answers nothing; nothing measured sends a message.
write_set_up_settings() {
    cat > "$1/settings.json" <<'JSON'
{
  "providers": {"cloud": {"type": "openai-compatible", "baseUrl": "http://127.0.0.1:9/v1", "defaultModel": "chat-model"}},
  "agent": {"provider": "cloud"},
  "observationalMemory": {"enabled": true}
}
JSON
}
