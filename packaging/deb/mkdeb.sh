#!/usr/bin/env bash
# mkdeb.sh BINARY OUTDIR VERSION [ARCH]: builds OUTDIR/newsdesk_VERSION_ARCH.deb
# from the desktop binary (make deb passes bin/newsdesk, built with cgo) with
# dpkg-deb alone: no debhelper, no tool beyond dpkg. Prints the .deb's path.
#
# Contents (packaging/packaging_test.go checks them, with their modes):
#   /usr/bin/newsdesk                                    the app, and `newsdesk serve`
#   /usr/share/applications/newsdesk.desktop             the menu entry
#   /usr/share/icons/hicolor/256x256/apps/newsdesk.png   its icon
#   /lib/systemd/system/newsdesk-seed.service            the seed service, not enabled
#   /etc/default/newsdesk-seed                           the seed's extra flags (conffile)
#   /etc/newsdesk/                                       where a preset network.json goes
#   /usr/share/doc/newsdesk/README.md, docs/*.md  the README and the documents it links to
set -euo pipefail

bin=${1:?usage: mkdeb.sh BINARY OUTDIR VERSION [ARCH]}
out=${2:?usage: mkdeb.sh BINARY OUTDIR VERSION [ARCH]}
version=${3:?usage: mkdeb.sh BINARY OUTDIR VERSION [ARCH]}
arch=${4:-$(dpkg --print-architecture)}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
root=$stage/root
umask 022

install -D -m 0755 "$bin" "$root/usr/bin/newsdesk"
install -D -m 0644 "$top/packaging/newsdesk.desktop" "$root/usr/share/applications/newsdesk.desktop"
install -D -m 0644 "$top/assets/icon.png" "$root/usr/share/icons/hicolor/256x256/apps/newsdesk.png"
install -D -m 0644 "$top/packaging/newsdesk-seed.service" "$root/lib/systemd/system/newsdesk-seed.service"
install -D -m 0644 "$here/newsdesk-seed.default" "$root/etc/default/newsdesk-seed"
install -d -m 0755 "$root/etc/newsdesk"
install -D -m 0644 "$top/README.md" "$root/usr/share/doc/newsdesk/README.md"
install -d -m 0755 "$root/usr/share/doc/newsdesk/docs"
install -m 0644 "$top"/docs/*.md "$root/usr/share/doc/newsdesk/docs/"

install -d -m 0755 "$root/DEBIAN"
size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
# Depends: what dpkg-shlibdeps finds the binary linked to on Debian 12
# (libc6, libgl1, libx11-6), and the X11 libraries GLFW loads with dlopen
# at start (Xcursor, Xi, Xinerama, Xrandr, Xxf86vm), which it cannot see;
# xdg-utils opens links.
cat > "$root/DEBIAN/control" <<CONTROL
Package: newsdesk
Version: $version
Architecture: $arch
Maintainer: Newsdesk <newsdesk@localhost>
Installed-Size: $size
Section: net
Priority: optional
Depends: libc6 (>= 2.34), libgl1, libx11-6 (>= 2:1.2.99.901), libxcursor1, libxi6, libxinerama1, libxrandr2, libxxf86vm1
Recommends: xdg-utils
Description: company news over a peer-to-peer overlay
 Newsdesk is a desktop app to subscribe to news categories, read and
 publish items, with no central server: every running app is a peer of a
 tree-shaped overlay built from a seed list.
 .
 "newsdesk serve" runs a peer without a window; the newsdesk-seed systemd
 service runs one as a seed (installed disabled).
CONTROL
echo /etc/default/newsdesk-seed > "$root/DEBIAN/conffiles"
install -m 0755 "$here/postinst" "$here/prerm" "$here/postrm" "$root/DEBIAN/"

mkdir -p "$out"
deb=$out/newsdesk_${version}_${arch}.deb
dpkg-deb --root-owner-group -Zgzip --build "$root" "$deb" >/dev/null
echo "$deb"
