#!/usr/bin/env bash
# The Linux packages as a user gets them: installs the .deb on this machine with apt, checks
# what the desktop sees (the desktop entry, the icons, the declared dependencies), starts the
# *installed* app under Xvfb as its launcher would (installed-app.test.mjs: window, screenshot,
# first-run screen, platform data folders), then purges the package and checks nothing of it
# is left. Also checks the .rpm's declared requirements when one was built next to the .deb.
#
#   tests/package/test-deb.sh [path/to/Lango_*.deb]
#
# Default: the newest .deb under target/release/bundle/deb, else target/debug/bundle/deb
# (`make package` / `make test` build them). Needs root (or sudo) for apt-get.
source "$(dirname "$0")/../../scripts/lib.sh"

apt_install_missing "${BUILD_PACKAGES[@]}" "${TEST_PACKAGES[@]}" "${PACKAGE_TEST_PACKAGES[@]}"

DEB="${1:-}"
if [ -z "$DEB" ]; then
    DEB="$(ls -t "$ROOT"/target/release/bundle/deb/*.deb "$ROOT"/target/debug/bundle/deb/*.deb 2>/dev/null | head -n1 || true)"
fi
[ -n "$DEB" ] && [ -f "$DEB" ] || die "no .deb found: run \`make package\` first (or pass its path)"
DEB="$(cd "$(dirname "$DEB")" && pwd)/$(basename "$DEB")"
RPM="$(ls "$(dirname "$(dirname "$DEB")")"/rpm/*.rpm 2>/dev/null | head -n1 || true)"
PKG="$(dpkg-deb -f "$DEB" Package)"
WORK="$(mktemp -d)"
PASSED=0

ok() { PASSED=$((PASSED + 1)); echo "ok $PASSED - $*"; }
fail() { echo "not ok - $*" >&2; echo "package: $PASSED passed, 1 failed"; exit 1; }
installed() { dpkg-query -W -f='${Status}' "$PKG" 2>/dev/null | grep -q "install ok installed"; }
purge() { as_root env DEBIAN_FRONTEND=noninteractive apt-get purge -y -q "$PKG" >/dev/null; }
cleanup() {
    if [ -f "${MARKER:-/nonexistent}" ]; then
        installed && purge
        as_root rm -f "$MARKER"
    fi
    rm -rf "$WORK"
}
trap cleanup EXIT

step "package test: $DEB"

# --- What the package declares -------------------------------------------------------------
depends="$(dpkg-deb -f "$DEB" Depends)"
recommends="$(dpkg-deb -f "$DEB" Recommends)"
echo "Depends: $depends"
echo "Recommends: $recommends"
names() { tr ',|' '\n\n' | sed -E 's/\(.*\)//; s/^ +//; s/ +$//' | grep -v '^$' | sort -u; }
for lib in libwebkit2gtk-4.1-0 libgtk-3-0 libdbus-1-3; do
    names <<<"$depends" | grep -qx "$lib" || fail "Depends does not name $lib"
done
ok "Depends names WebKitGTK 4.1, GTK 3 and the D-Bus client library the keychain talks through"
names <<<"$recommends" | grep -qx gnome-keyring || fail "Recommends names no Secret Service provider"
ok "Recommends a Secret Service provider (gnome-keyring | …)"

# Every library the binary links must come with the declared Depends: Debian's own tool says
# which packages the binary needs, and each must be in the dependency closure of Depends.
dpkg-deb -x "$DEB" "$WORK/root"
BIN_IN_DEB="$(find "$WORK/root/usr/bin" -type f -perm -u+x | head -n1)"
mkdir -p "$WORK/shlibs/debian"
printf 'Source: probe\n\nPackage: probe\nArchitecture: any\n' >"$WORK/shlibs/debian/control"
needed="$(cd "$WORK/shlibs" && dpkg-shlibdeps -O -e"$BIN_IN_DEB" 2>/dev/null | sed 's/^shlibs:Depends=//' | names)"
# shellcheck disable=SC2046  # one word per package name
closure="$(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
    --no-replaces --no-enhances $(names <<<"$depends") | grep -v '^ ' | sort -u)"
missing="$(comm -23 <(echo "$needed") <(echo "$closure"))"
[ -z "$missing" ] || fail "the binary needs $(echo "$missing" | tr '\n' ' ')but Depends does not bring it"
ok "the $(echo "$needed" | wc -l) packages dpkg-shlibdeps finds for the binary all come with Depends"

if [ -n "$RPM" ] && command -v rpm >/dev/null; then
    requires="$(rpm -qpR "$RPM")"
    echo "rpm Requires: $(echo "$requires" | grep -v '^rpmlib' | sort -u | tr '\n' ' ')"
    for soname in libwebkit2gtk-4.1.so.0 libgtk-3.so.0 libsoup-3.0.so.0 libdbus-1.so.3; do
        grep -qxF "${soname}()(64bit)" <<<"$requires" || fail "the .rpm does not require ${soname}()(64bit)"
    done
    # Read whole, then searched: `rpm … | grep -q` fails under pipefail when grep exits at
    # its first match and rpm, still writing, gets SIGPIPE.
    recommends="$(rpm -qp --recommends "$RPM")"
    files="$(rpm -qpl "$RPM")"
    grep -qx gnome-keyring <<<"$recommends" || fail "the .rpm recommends no Secret Service provider"
    grep -q '^/usr/share/applications/.*\.desktop$' <<<"$files" || fail "the .rpm has no desktop entry"
    ok "the .rpm requires WebKitGTK, GTK, libsoup and D-Bus by soname, recommends gnome-keyring, has a desktop entry"
fi

# --- Install -----------------------------------------------------------------------------
# The test installs and purges a system package: never one it did not install itself. A
# marker says "installed by this test" (a run killed before its cleanup leaves both).
MARKER=/var/tmp/lango-package-test.installed
if installed; then
    [ -f "$MARKER" ] || die "$PKG is installed on this machine (not by this test): remove it first, this test would"
    purge
fi
as_root touch "$MARKER"
step "apt-get install ./$(basename "$DEB")"
as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$DEB" >"$WORK/apt.log" 2>&1 ||
    { cat "$WORK/apt.log"; fail "apt-get install failed"; }
installed || fail "$PKG is not installed after apt-get install"
mapfile -t FILES < <(dpkg -L "$PKG" | while read -r f; do [ -f "$f" ] && echo "$f"; done)
ok "apt-get install ./$(basename "$DEB") installed ${#FILES[@]} files"

BIN="$(printf '%s\n' "${FILES[@]}" | grep '^/usr/bin/' | head -n1)"
[ -x "$BIN" ] || fail "no program in /usr/bin"
if ldd "$BIN" | grep -q 'not found'; then ldd "$BIN" | grep 'not found'; fail "libraries missing"; fi
ok "$BIN is installed and all its libraries resolve"

DESKTOP="$(printf '%s\n' "${FILES[@]}" | grep '^/usr/share/applications/.*\.desktop$' | head -n1)"
[ -n "$DESKTOP" ] || fail "no desktop entry in /usr/share/applications"
desktop-file-validate "$DESKTOP" || fail "desktop-file-validate $DESKTOP"
grep -qx "Exec=$(basename "$BIN")" "$DESKTOP" || fail "the desktop entry does not start $(basename "$BIN")"
grep -q '^Categories=.*Office;' "$DESKTOP" || fail "the desktop entry has no menu category"
ok "$DESKTOP passes desktop-file-validate, starts $(basename "$BIN"), is in a menu category"

# The entry's Icon, in every size menus, docks and app grids ask for, at the size its folder says.
ICON="$(sed -n 's/^Icon=//p' "$DESKTOP")"
for size in 16 24 32 48 64 128 256 512; do
    png="/usr/share/icons/hicolor/${size}x${size}/apps/$ICON.png"
    [ -f "$png" ] || fail "icon $png is missing"
    [ "$(identify -format '%wx%h' "$png")" = "${size}x${size}" ] || fail "$png is not ${size}x${size}"
done
stray="$(printf '%s\n' "${FILES[@]}" | grep '^/usr/share/icons/' | grep -v '/hicolor/[0-9]*x[0-9]*/apps/' || true)"
[ -z "$stray" ] || fail "icons outside hicolor's <size>/apps folders: $stray"
ok "icon '$ICON' is installed in hicolor at 16–512 px, each the size of its folder"

# --- First start of the installed app --------------------------------------------------------
step "first start of the installed app (Xvfb, fresh HOME)"
"$ROOT/scripts/with-desktop-session.sh" env DESKTOP_FILE="$DESKTOP" \
    node --test --test-reporter=spec "$ROOT/tests/package/installed-app.test.mjs" ||
    fail "the installed app's first start (screenshots in tests/e2e/screenshots/package-*.png)"
ok "the installed app starts from its launcher command, shows its first-run screen, uses the platform folders"

# --- Remove ------------------------------------------------------------------------------
step "apt-get remove $PKG, then purge"
as_root env DEBIAN_FRONTEND=noninteractive apt-get remove -y -q "$PKG" >/dev/null
installed && fail "$PKG is still installed after apt-get remove"
# What remove keeps (its state, config files) goes with purge; apt no longer knows a package
# installed from a file once it is removed, so this is dpkg's purge.
as_root dpkg --purge "$PKG" >/dev/null
dpkg-query -W "$PKG" >/dev/null 2>&1 && fail "dpkg still knows $PKG after purge"
left=()
for f in "${FILES[@]}"; do [ -e "$f" ] && left+=("$f"); done
[ ${#left[@]} -eq 0 ] || fail "left after purge: ${left[*]}"
stray="$(find /usr -iname "*$PKG*" -not -path '/usr/local/*' 2>/dev/null | head -n5)"
[ -z "$stray" ] || fail "left in /usr after purge: $stray"
ok "apt-get remove + purge leave none of its ${#FILES[@]} files and nothing named *$PKG* in /usr"

echo "package: $PASSED passed, 0 failed"
