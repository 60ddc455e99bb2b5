#!/usr/bin/env bash
# ime-check.sh: types Japanese through an input method (fcitx5 with Mozc,
# over XIM) into Compose of the demo app under Xvfb, and screenshots each
# step, so that what the README says about input methods can be checked
# again after a Fyne or GLFW upgrade. Look at the PNGs it writes:
#   1-composing  "nihongo" typed: nothing in the Title yet; the input
#                method's own window (at the window's lower left) shows it
#   2-converted  Space: the window shows 日本語
#   3-committed  Enter: "abc 日本語" in the Title
#   4-backspace  in the Text: 会議室 committed with Enter, Enter, "nihon"
#                and two Backspaces while composing
#   5-body       Enter again: what the Text holds then
#
# Needs: apt-get install fcitx5 fcitx5-mozc xvfb xdotool x11-apps
# imagemagick dbus, and `make build`. Run it as a user other than root:
# mozc_server refuses to run as root and exits at once, and the input
# method then passes every key through unconverted.
set -euo pipefail
cd "$(dirname "$0")/.."

BIN=$(pwd)/${BIN:-bin/newsdesk}
OUT=${OUT:-$(mktemp -d)}
DISPLAY_NUM=${DISPLAY_NUM:-95}

if [ "$(id -u)" = 0 ]; then
	echo "run this as a user other than root: mozc_server will not run as root" >&2
	exit 1
fi
[ -x "$BIN" ] || { echo "no $BIN: make build first" >&2; exit 1; }

tmp=$(mktemp -d)
mkdir -p "$tmp/config/fcitx5" "$tmp/run" && chmod 700 "$tmp/run"
# One input method group: the US keyboard and Mozc; Ctrl+Space switches.
cat >"$tmp/config/fcitx5/profile" <<'EOF'
[Groups/0]
Name=Default
Default Layout=us
DefaultIM=mozc

[Groups/0/Items/0]
Name=keyboard-us
Layout=

[Groups/0/Items/1]
Name=mozc
Layout=

[GroupOrder]
0=Default
EOF

export DISPLAY=":$DISPLAY_NUM"
Xvfb "$DISPLAY" -screen 0 1280x800x24 -nolisten tcp >/dev/null 2>&1 &
xvfb=$!
trap 'kill $xvfb 2>/dev/null; rm -rf "$tmp"' EXIT
for _ in $(seq 50); do xdotool getdisplaygeometry >/dev/null 2>&1 && break; sleep 0.1; done

# Everything below runs in one D-Bus session, which fcitx5 and
# fcitx5-remote talk through. The app needs XMODIFIERS (XIM is all GLFW
# 3.3 speaks) and a UTF-8 locale.
HOME=$tmp XDG_CONFIG_HOME=$tmp/config XDG_RUNTIME_DIR=$tmp/run \
	XMODIFIERS=@im=fcitx LANG=C.UTF-8 LC_ALL= LANGUAGE= \
	dbus-run-session -- bash -s "$BIN" "$OUT" "$tmp" <<'EOF'
set -u
BIN=$1 OUT=$2 tmp=$3
fcitx5 --disable=wayland,waylandim >"$tmp/fcitx5.log" 2>&1 &
for _ in $(seq 60); do fcitx5-remote >/dev/null 2>&1 && break; sleep 1; done
NEWSDESK_DEMO=1 "$BIN" --data "$tmp/data" >"$tmp/app.log" 2>&1 &
app=$!
win=$(timeout 240 xdotool search --sync --onlyvisible --name '^Newsdesk$' | head -n1)
sleep 3
shot() { xwd -root | convert xwd:- "$OUT/$1.png"; }
xdotool key --window "$win" ctrl+n; sleep 1 # Compose, the Title focused
xdotool type --delay 50 "abc "; sleep 1
xdotool key ctrl+space # the input method on
for _ in $(seq 90); do [ "$(fcitx5-remote 2>/dev/null)" = 2 ] && break; sleep 1; done
echo "input method state $(fcitx5-remote) (2: on)"
sleep 3 # Mozc's server starts
xdotool type --delay 80 "nihongo"; sleep 1; shot 1-composing
xdotool key space; sleep 1; shot 2-converted
xdotool key Return; sleep 1; shot 3-committed
xdotool mousemove 300 450 click 1; sleep 1 # the Text
xdotool type --delay 80 "kaigishitsu"; sleep 0.5; xdotool key space; sleep 0.5; xdotool key Return; sleep 1
xdotool key Return; sleep 0.5
xdotool type --delay 80 "nihon"; sleep 0.5; xdotool key BackSpace BackSpace; sleep 0.5; shot 4-backspace
xdotool key Return; sleep 1; shot 5-body
kill $app; wait $app
EOF
echo "screenshots in $OUT"
