#!/usr/bin/env bash
# wine-chroot.sh CMD [ARG...]: runs CMD in a Debian 13 chroot that has wine 10,
# Xvfb, xdotool, xwd and ImageMagick, building the chroot first when it is
# missing. make test-windows and make screenshots run the Windows build with it.
#
# Why a chroot: Debian 12's wine (8.0) cannot start programs built by Go 1.22
# or later (they call ProcessPrng in bcryptprimitives.dll, which wine 8 lacks);
# Debian 13's wine 10 can, the GUI included.
#
# The chroot lives at $WINE_ROOT (default /var/tmp/wine10). Building it takes a
# few minutes and about 3 GB, once per machine: debootstrap (installed from
# Debian's packages when missing), then wine and the X tools from Debian's
# archive. A chroot that is there but lacks one of those tools gets it. Every
# failure to set it up ends this script with an error, never silently.
#
# The chroot shares the machine's network and, bound at the same path, /tmp:
# a file under /tmp is Z:\tmp\… to a Windows program, and servants inside and
# outside the chroot link up over the same addresses. WINEPREFIX, DISPLAY and
# WINEDEBUG (default -all), WINEPATH and WINEDLLOVERRIDES pass through; keep a
# WINEPREFIX under /tmp (wine creates a missing prefix at its first call).
#
#   scripts/wine-chroot.sh --check   # build or complete the chroot, print wine's version
#   WINEPREFIX=/tmp/p scripts/wine-chroot.sh wine 'Z:\tmp\x\newsdesk-headless.exe' serve …
#   WINEPREFIX=/tmp/p scripts/wine-chroot.sh wineserver -k
#
# Needs root (chroot, mount, debootstrap), as CI and the development machines
# have. The bind mounts stay after it returns, so later calls are fast; to
# remove the chroot, first unmount $WINE_ROOT/{tmp,dev/pts,dev,proc} (rm -rf
# through a bound /tmp or /dev would reach the machine's own).
set -euo pipefail

R=${WINE_ROOT:-/var/tmp/wine10}
# The packages installed into the chroot, and a command each must provide.
PKGS="wine wine64 libwine xvfb xauth xdotool x11-apps imagemagick fonts-dejavu-core fonts-noto-cjk libgl1-mesa-dri procps"
TOOLS="wine wineserver Xvfb xdotool xwd convert"

die() {
	echo "wine-chroot: $*" >&2
	exit 1
}

[ "$(id -u)" = 0 ] || die "needs root (chroot, mount); run it as root"
[ $# -gt 0 ] || die "usage: wine-chroot.sh --check | CMD [ARG...]"

mounted() { mountpoint -q "$R/$1"; }

# mounts binds what the chroot needs from the machine.
mounts() {
	mounted proc || mount -t proc proc "$R/proc" || die "cannot mount proc in $R"
	mounted dev || mount --bind /dev "$R/dev" || die "cannot bind /dev into $R"
	mounted dev/pts || mount --bind /dev/pts "$R/dev/pts" || die "cannot bind /dev/pts into $R"
	mkdir -p "$R/tmp"
	mounted tmp || mount --bind /tmp "$R/tmp" || die "cannot bind /tmp into $R"
}

# missing prints the tools of TOOLS the chroot lacks.
missing() {
	local t out=""
	for t in $TOOLS; do
		chroot "$R" sh -c "command -v $t" >/dev/null 2>&1 || out="$out $t"
	done
	echo "${out# }"
}

# setup builds the chroot or completes it, under the exclusive lock: two
# builds at once would trip over each other's dpkg.
setup() {
	if [ ! -x "$R/usr/bin/env" ]; then
		if ! command -v debootstrap >/dev/null; then
			echo "wine-chroot: installing debootstrap" >&2
			DEBIAN_FRONTEND=noninteractive apt-get install -y -q debootstrap >&2 ||
				{ apt-get update -q >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q debootstrap >&2; } ||
				die "cannot install debootstrap"
		fi
		echo "wine-chroot: building a Debian 13 chroot with wine 10 at $R (once per machine, a few minutes)" >&2
		mkdir -p "$R"
		debootstrap --variant=minbase trixie "$R" >&2 || die "debootstrap into $R failed"
	fi
	mounts
	local lack
	lack=$(missing)
	[ -z "$lack" ] && return
	echo "wine-chroot: installing $PKGS into $R (missing: $lack)" >&2
	cp /etc/resolv.conf "$R/etc/resolv.conf"
	chroot "$R" env DEBIAN_FRONTEND=noninteractive sh -c "apt-get update -q && apt-get install -y -q --no-install-recommends $PKGS" >&2 ||
		die "installing wine into $R failed"
	lack=$(missing)
	[ -z "$lack" ] || die "$R still lacks: $lack"
}

# A call that builds or completes the chroot holds $R.lock exclusively;
# every other call takes it shared first, so it waits for a build under way
# (make test starts one in the background) rather than use a half-built
# chroot. The lock is let go before the command runs.
mkdir -p "$(dirname "$R")"
exec 9>"$R.lock"
flock -s 9
if ! { [ -x "$R/usr/bin/env" ] && mounts && [ -z "$(missing)" ]; }; then
	flock -x 9
	setup
fi
exec 9>&-

export WINEDEBUG=${WINEDEBUG:--all}
if [ "$1" = --check ]; then
	v=$(chroot "$R" env WINEPREFIX="${WINEPREFIX:-/root/.wine}" WINEDEBUG=-all wine --version 2>/dev/null) ||
		die "wine in $R does not run"
	case $v in
	wine-1[0-9]* | wine-[2-9][0-9]*) echo "$v" ;;
	*) die "wine in $R is $v; Go programs need wine 10 or later" ;;
	esac
	exit 0
fi

# The command runs in the caller's directory when the chroot has it (any
# directory under /tmp), else in /root.
vars=(WINEDEBUG="$WINEDEBUG" HOME=/root PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin LANG=C.UTF-8)
for v in WINEPREFIX DISPLAY WINEPATH WINEDLLOVERRIDES; do
	[ -n "${!v:-}" ] && vars+=("$v=${!v}")
done
exec chroot "$R" env -i "${vars[@]}" sh -c 'cd "$0" 2>/dev/null || cd /root; exec "$@"' "$(pwd)" "$@"
