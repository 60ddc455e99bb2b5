#!/usr/bin/env bash
# Takes screenshots of the desktop app under Xvfb: docs/screenshots/main.png.
# Needs the packages of `make deps-x`; `make screenshots` installs them and
# builds bin/newsdesk first.
set -euo pipefail
cd "$(dirname "$0")/.."

BIN=${BIN:-bin/newsdesk}
DISPLAY_NUM=${DISPLAY_NUM:-99}
OUT=${OUT:-docs/screenshots}
WAIT=${WAIT:-30} # seconds to wait for the window

export DISPLAY=":$DISPLAY_NUM"
[ -x "$BIN" ] || go build -o "$BIN" .
mkdir -p "$OUT"

xvfb_pid=""
session_pid=""
data=$(mktemp -d)
stop() { # stop pid: SIGTERM, and wait for it to go
	kill "$1" 2>/dev/null || return 0
	wait "$1" 2>/dev/null || true
}
cleanup() {
	if [ -s "$data/app.pid" ]; then kill "$(cat "$data/app.pid")" 2>/dev/null || true; fi
	if [ -n "$session_pid" ]; then # it ends with the app; give it 5s
		for _ in $(seq 50); do kill -0 "$session_pid" 2>/dev/null || break; sleep 0.1; done
		stop "$session_pid"
	fi
	if [ -n "$xvfb_pid" ]; then stop "$xvfb_pid"; fi
	rm -rf "$data"
}
trap cleanup EXIT

# Start Xvfb unless something already serves the display.
if ! xdotool getdisplaygeometry >/dev/null 2>&1; then
	Xvfb "$DISPLAY" -screen 0 1280x800x24 -nolisten tcp >/dev/null 2>&1 &
	xvfb_pid=$!
	for _ in $(seq 50); do
		xdotool getdisplaygeometry >/dev/null 2>&1 && break
		sleep 0.1
	done
	xdotool getdisplaygeometry >/dev/null || { echo "Xvfb $DISPLAY did not start" >&2; exit 1; }
fi

# A private D-Bus session and a fresh data directory, so nothing of the
# user's own setup shows up. LANG keeps Fyne from complaining about "C".
# The app writes its pid so that it, not dbus-run-session, gets the SIGTERM.
LANG=en_US.UTF-8 dbus-run-session -- sh -c 'echo $$ >"$1/app.pid"; exec "$2" --data "$1/data"' \
	sh "$data" "$BIN" &
session_pid=$!

if ! win=$(timeout "$WAIT" xdotool search --sync --onlyvisible --name '^Newsdesk$' | head -n1) || [ -z "$win" ]; then
	echo "no Newsdesk window after ${WAIT}s" >&2
	exit 1
fi
sleep 2 # let the first frames render

# Grab the screen, cropped to the window (there is no window manager, so no
# decorations to keep).
eval "$(xdotool getwindowgeometry --shell "$win")"
xwd -root -display "$DISPLAY" |
	convert xwd:- -crop "${WIDTH}x${HEIGHT}+${X}+${Y}" +repage "$OUT/main.png"
echo "wrote $OUT/main.png"
