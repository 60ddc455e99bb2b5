#!/usr/bin/env bash
# Takes screenshots of the desktop app's screens under Xvfb and writes them
# to docs/screenshots/: reading.png, item.png, correction.png, picture.png,
# subscriptions.png, compose.png, published.png, posts.png, seeds.png,
# categories.png, network.png, netmap.png (the map of the tree on a
# company of 2,000 computers) and netmap-inside.png (inside one of its
# partitions), invite.png (a new invitation's code and QR
# code), invitations.png, limits.png (Admin → Limits), settings.png, wizard.png (joining with an
# invitation code the demo network's admin made), wizard-joined.png (the
# main window once that code is redeemed and the new member subscribed:
# the news arriving),
# wizard-refused.png (a revoked invitation's refusal, in full), mustread.png
# (a must-read item's banner), urgent.png (the urgent window of an
# urgent must-read item) and reach.png (My posts: the readers who have not
# confirmed a must-read post; posts.png shows the reach bars) and
# compose-picture.png (Compose with a photo in its text, scaled, and a
# PDF attached, both chosen in the file dialog). The Windows
# build, run under wine 10 (scripts/wine-chroot.sh), gives
# windows-wizard.png and windows-main.png.
#
# The app runs in its demo mode (NEWSDESK_DEMO=1, app/demo: the real
# application over a small simulated network, with a data set of a few
# hundred items in several categories, one urgent item, one correction, one
# must-read item, and colleagues' servants that read the reader's posts;
# NEWSDESK_DEMO=urgent adds an urgent must-read item; NEWSDESK_DEMO=wizard
# is a new installation that joins that network with an invitation its
# admin made (see the first run below); the data directory is
# a temporary one, removed at the end) and is driven with xdotool: keyboard shortcuts for the screens,
# clicks at fixed positions in the 1200×760 window for the rest.
#
# Needs the packages of `make deps-x`; `make screenshots` installs them and
# builds bin/newsdesk and the Windows build (WIN_EXE) first.
#
# LANG=de or LANG=ja (`make screenshots LANG=ja`) shoots the interface in
# that language instead, into docs/screenshots/<lang>/: reading.png,
# item.png, compose.png (an item typed in the language), search.png (that
# item, published and found by a word from the middle of its text) and
# settings.png. Nothing else is shot then, and the Windows
# build is not needed.
#
# ONLY=compose-picture shoots compose-picture.png alone (a quick look
# after a change to Compose's pictures).
set -euo pipefail
cd "$(dirname "$0")/.."

BIN=${BIN:-bin/newsdesk}
WIN_EXE=${WIN_EXE:-build/windows/newsdesk.exe}
DISPLAY_NUM=${DISPLAY_NUM:-99}
OUT=${OUT:-docs/screenshots}
WAIT=${WAIT:-30} # seconds to wait for the window
# The interface's language: de or ja from LANG (de, de_DE.UTF-8, ja...);
# anything else is the English set.
SHOT_LANG=${LANG:-}
SHOT_LANG=${SHOT_LANG%%[_.@-]*}
case "$SHOT_LANG" in
de | ja) OUT=${OUT_LANG:-docs/screenshots/$SHOT_LANG} ;;
*) SHOT_LANG="" ;;
esac
APP_LANG=en_US.UTF-8
case "$SHOT_LANG" in
de) APP_LANG=de_DE.UTF-8 ;;
ja) APP_LANG=ja_JP.UTF-8 ;;
esac
PAUSE=${PAUSE:-0.8} # seconds for the window to settle after an action

export DISPLAY=":$DISPLAY_NUM"
[ -x "$BIN" ] || go build -o "$BIN" .
mkdir -p "$OUT"

xvfb_pid=""
session_pid=""
tmp=$(mktemp -d)
stop() { # stop pid: SIGTERM, and wait for it to go
	kill "$1" 2>/dev/null || return 0
	wait "$1" 2>/dev/null || true
}
stop_app() {
	if [ -s "$tmp/app.pid" ]; then kill "$(cat "$tmp/app.pid")" 2>/dev/null || true; fi
	rm -f "$tmp/app.pid"
	if [ -n "$session_pid" ]; then # it ends with the app; give it 5s
		for _ in $(seq 50); do kill -0 "$session_pid" 2>/dev/null || break; sleep 0.1; done
		stop "$session_pid"
		session_pid=""
	fi
}
cleanup() {
	stop_app
	if [ -n "$xvfb_pid" ]; then stop "$xvfb_pid"; fi
	rm -rf "$tmp"
}
trap cleanup EXIT

# The app's D-Bus session starts no services. Fyne asks the desktop portal
# for the colour scheme, and the portal, started on that request, answers
# "no preference" (light) or not in time (dark) depending on the
# machine's load: without it, every shot has Fyne's default, dark.
cat >"$tmp/bus.conf" <<'EOF_BUS'
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:tmpdir=/tmp</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
EOF_BUS

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

win=""
# start_app MODE: the app in demo mode MODE (1, or wizard for the first
# run; "" for the real application core over a fresh data directory), in a
# private D-Bus session, so nothing of the user's setup shows. LANG keeps
# Fyne from complaining about "C". The app writes its pid so that it, not
# dbus-run-session, gets the SIGTERM. APP_HOME, if set, is the app's home
# (where Fyne's file dialog opens).
start_app() {
	HOME=${APP_HOME:-$HOME} LANG=$APP_LANG LANGUAGE="" LC_ALL="" LC_MESSAGES="" NEWSDESK_DEMO="$1" \
		dbus-run-session --config-file="$tmp/bus.conf" -- sh -c 'echo $$ >"$1/app.pid"; exec "$2" --data "$1/data"' \
		sh "$tmp" "$BIN" 2>>"$tmp/app.log" &
	session_pid=$!
	if ! win=$(timeout "$WAIT" xdotool search --sync --onlyvisible --name '^Newsdesk$' | head -n1) || [ -z "$win" ]; then
		echo "no Newsdesk window after ${WAIT}s" >&2
		cat "$tmp/app.log" >&2
		exit 1
	fi
	sleep 2 # let the first frames render
}

settle() { sleep "$PAUSE"; }
key() { xdotool key --window "$win" "$@"; settle; }
click() { xdotool mousemove --window "$win" "$1" "$2" click 1; settle; }
# typetext TEXT types TEXT into the focused field. xdotool types
# characters beyond the keyboard (Japanese) by remapping a spare key for
# each, which the app must read before the next one comes: on a busy
# machine letters repeat or go missing. Such text goes through the
# clipboard instead (xclip serves it; Ctrl+V pastes), which is what an
# input method's result amounts to for the field.
typetext() {
	if LC_ALL=C.UTF-8 grep -q '[^ -~]' <<<"$1"; then
		printf '%s' "$1" | xclip -selection clipboard -display "$DISPLAY" 2>/dev/null # it serves until the display ends
		xdotool key --window "$win" ctrl+v
		return
	fi
	LC_ALL=C.UTF-8 xdotool type --delay 4 -- "$1"
}
typeline() { typetext "$1"; xdotool key Return; }

# shot NAME: grab the screen, cropped to the window (there is no window
# manager, so no decorations to keep).
shot() {
	local X Y WIDTH HEIGHT SCREEN WINDOW
	eval "$(xdotool getwindowgeometry --shell "$win")"
	xwd -root -display "$DISPLAY" |
		convert xwd:- -crop "${WIDTH}x${HEIGHT}+${X}+${Y}" +repage "$OUT/$1.png"
	echo "wrote $OUT/$1.png (${WIDTH}x${HEIGHT})"
}

# language_shots: the daily screens in $SHOT_LANG, driven by keyboard
# shortcuts only (the translated tabs and labels move what is where), but
# for a click into Compose's text, which stays in the same place.
language_shots() {
	local title body query
	case "$SHOT_LANG" in
	ja)
		title="新しい勤怠システムの説明会"
		# Bold in the middle of a sentence, which runs on after it to the
		# end of the line (issue 31 part 3), and an emoji.
		body="新しい勤怠システムの**説明会**を開催します。📅 説明会は午後三時から会議室Aで行います。参加できない方は、後日配布する資料をご確認ください。"
		query="会議室" # in the middle of the text: found since issue 31 part 1
		;;
	de)
		title="Betriebsversammlung am Donnerstag"
		body="Die Betriebsversammlung beginnt um 14 Uhr in der Kantine. Bitte bringen Sie Ihre Fragen mit."
		query="Kantine"
		;;
	esac
	start_app 1
	shot reading
	key Return # the urgent item under the cursor
	shot item
	key ctrl+n # Compose: the title has the focus
	typetext "$title"
	click 600 133 # the category picker (its left edge moves with the labels' language)
	click 300 284 # IT, fourth in the list
	click 300 400 # the text
	typetext "$body"
	settle
	shot compose
	click 40 688 # Publish
	key ctrl+1
	key ctrl+f
	typetext "$query"
	key Return # search at once; the list takes the focus
	key Return # open the first result: the item just published
	shot search
	key ctrl+5
	shot settings
	stop_app
}
if [ -n "$SHOT_LANG" ]; then
	language_shots
	exit 0
fi

# compose_picture_shot: Compose with a photo in its text and a PDF
# attached, both chosen in Fyne's file dialog as a person would. The app
# has a home of its own, where the dialog opens, holding the two files:
# a photo of 3,600 × 1,200 pixels with a grain that makes it a few MB,
# which Compose scales to 1,600 px on its long side, and a one-page PDF.
compose_picture_shot() {
	local home=$tmp/home windows="" x y
	rm -rf "$home"
	mkdir -p "$home"
	for y in 360 525 690 855; do
		for x in 1380 1510 1640 1770 1900 2030 2160; do
			[ "$y$x" = 8551770 ] && continue # the door
			windows="$windows rectangle $x,$y $((x + 80)),$((y + 100))"
		done
	done
	convert -size 3600x1200 gradient:'#2a5aa8'-'#f0b080' \
		-fill '#ffd070' -draw 'circle 3050,760 3050,900' \
		-fill '#cdbfa6' -draw 'rectangle 250,620 1150,1080 rectangle 2450,700 3400,1080' \
		-fill '#e1d7c3' -draw 'rectangle 1300,300 2330,1080' \
		-fill '#963c2d' -draw 'rectangle 1300,250 2330,300' \
		-fill '#fadc78' -draw "$windows" \
		-fill '#5a3c28' -draw 'rectangle 1760,900 1880,1080' \
		-fill '#465046' -draw 'rectangle 0,1080 3600,1200' \
		-attenuate 0.6 +noise Gaussian -quality 92 "$home/leeds-office.jpg"
	cat >"$home/floor-plan.pdf" <<'EOF_PDF'
%PDF-1.4
1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj
2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj
3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >> endobj
4 0 obj << /Length 55 >> stream
BT /F1 18 Tf 60 760 Td (Leeds office: floor plan) Tj ET
endstream endobj
5 0 obj << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> endobj
trailer << /Root 1 0 R >>
%%EOF
EOF_PDF
	APP_HOME=$home start_app 1
	key ctrl+n # Compose: the title has the focus
	typetext "Our Leeds office opens on Monday"
	click 500 133 # the category picker
	click 106 284 # IT
	click 300 400 # the text
	typeline "Two minutes from the station, with room for 80 desks:"
	xdotool key Return
	click 75 606   # Add picture…: the dialog opens in the home
	click 455 220  # leeds-office, after (Parent): the dialog lists pictures only
	click 1004 647 # Open: listed as being added while it is scaled
	sleep 6        # then in the text at the cursor, which has the focus again
	xdotool key Return Return
	typetext "The floor plan is attached."
	click 207 608  # Attach file… (the list of one moved it down)
	click 455 220  # floor-plan, between (Parent) and leeds-office
	click 1004 647 # Open
	sleep 1
	shot compose-picture
	stop_app
}
if [ "${ONLY:-}" = compose-picture ]; then
	compose_picture_shot
	exit 0
fi

start_app 1

# Reading: the list has the keyboard focus, its first row the cursor.
shot reading
key Down # the must-read policy, second in the list
key Return
shot mustread
key Up
key Return # open the urgent item under the cursor
shot item
cp "$OUT/item.png" "$OUT/main.png" # the README's picture
click 930 89 # Retract… (the actions row above the title): the dialog asks for a reason
typetext "Resolved at 10:40"
shot retract
click 552 437 # Cancel: nothing is retracted
# Search, and open the correction found.
key ctrl+f
typetext "October"
key Return # search at once; the list takes the focus
key Return # open the first result
shot correction
# A picture in the news: the new office, with its photo and floor plan.
key ctrl+f
key ctrl+a
typetext "Lisbon"
key Return
key Return
shot picture

key ctrl+2
shot subscriptions

# Compose an item: Ctrl+N focuses the title.
key ctrl+n
typetext "Network maintenance on Saturday night"
click 500 133 # the category picker
click 106 284 # IT
click 300 400 # the text
typeline "The core network switches are replaced on **Saturday** between 22:00 and 02:00."
xdotool key Return
typeline "- VPN and e-mail are unavailable for about *20 minutes*"
typeline "- Phones keep working"
typeline "- Details on [the IT portal](https://it.example.com/maintenance)"
xdotool key Return
typetext "Questions: reply to the IT Service Desk."
settle
shot compose
click 55 690 # Publish
shot published
click 165 90 # My posts: each post's reach as bars
shot posts
click 815 205 # Not confirmed (42)… of the must-read fire drill
shot reach
click 600 601 # Close

key ctrl+4 # Admin
click 45 90 # Seeds (Admin opens on the tab last shown): the seeds are tested
sleep 1
shot seeds
click 150 90 # Categories
click 100 445 # Sales EMEA
shot categories
click 375 90 # Network (after Seeds, Categories, Publishers)
shot network
click 490 90 # Invitations (after Network): the demo's earlier invitations
click 1145 133 # Invite…
click 645 551 # Create: one use, valid 7 days
sleep 1
shot invite
click 600 551 # Done: the new invitation heads the list
shot invitations
click 745 90 # Reports (after Named ranges): the must-read posts of every publisher
shot reports
click 840 90 # Limits (after Reports): the demo network's publishing limits
shot limits

key ctrl+5
shot settings
stop_app

compose_picture_shot

# The map of the tree on a company of 2,000 computers (demo mode
# "network"): the census reaches the reader once the vertex has counted
# the crowd and sent it down (a minute or two). A red box: lost items.
start_app network
key ctrl+4 # Admin
click 375 90 # Network
sleep 100
xdotool mousemove --window "$win" 300 500
for _ in 1 2 3 4; do xdotool click 5; done # scroll to the map (a wheel step is 50 px)
settle
click 100 620 # a partition with lost items, below the seed of its site
for _ in 1 2 3 4; do xdotool click 5; done # and to its figures below the map
settle
shot netmap
click 545 242 # Look inside: its servant's census maps two levels below it
sleep 2
shot netmap-inside
stop_app

# An urgent must-read item that came while the app was off: its window
# opens in front of the main window at the start.
start_app urgent
if ! urgent=$(timeout "$WAIT" xdotool search --sync --onlyvisible --name '^Urgent' | head -n1) || [ -z "$urgent" ]; then
	echo "no urgent window after ${WAIT}s" >&2
	exit 1
fi
win=$urgent
settle
shot urgent
stop_app

# The first run: the wizard mode's new installation on the demo network,
# where Dana Whitfield's servant made an invitation and revoked another
# (app/demo); the app writes their codes to NEWSDESK_DEMO_INVITE_FILE, a
# line "invitation CODE" and a line "revoked CODE", before its window
# shows. The invitation is redeemed over the simulated network: the
# wizard closes, the new member subscribes, and the main window fills with
# the last week's news of those categories. A second start types the
# revoked code: its refusal.
export NEWSDESK_DEMO_INVITE_FILE="$tmp/invitations"
# invite_code NAME: the code of the line NAME of that file.
invite_code() {
	local code
	code=$(awk -v name="$1" '$1 == name { print $2 }' "$NEWSDESK_DEMO_INVITE_FILE")
	[ -n "$code" ] || { echo "no $1 invitation code in $NEWSDESK_DEMO_INVITE_FILE" >&2; exit 1; }
	printf '%s' "$code"
}
# wizard_code NAME: the wizard, filled in to join with the code NAME.
wizard_code() {
	rm -f "$NEWSDESK_DEMO_INVITE_FILE"
	local code
	start_app wizard
	code=$(invite_code "$1")
	typetext "Sam Carter"
	click 342 294 # Join a network: it takes an invitation code
	click 600 420 # the code
	typetext "$code"
	settle
}
wizard_code invitation
shot wizard
click 860 611 # Start Newsdesk (below the port): redeemed at the newsroom's seed, which asks Dana's servant
sleep 3       # joined: the main window opens, subscribed to nothing yet
key ctrl+2
click 22 128 # subscribe to Company
click 22 206 # HR
click 22 245 # and IT: their last week comes from the newsroom's archive
sleep 2
key ctrl+1
shot wizard-joined
stop_app
wizard_code revoked
click 860 611 # Start Newsdesk: Dana's servant refuses the revoked invitation
sleep 2
shot wizard-refused
stop_app
unset NEWSDESK_DEMO_INVITE_FILE

# The Windows build under wine, in a prefix and on an X server of its own
# (the display number Xvfb picks): the first run's wizard and the main
# window, in demo mode. wine shows no window frame here either (there is no
# window manager), so the pictures are the window's content, as above.
windows_shots() {
	local wtmp chroot=scripts/wine-chroot.sh
	[ -f "$WIN_EXE" ] || { echo "no $WIN_EXE (make package-windows builds it)" >&2; exit 1; }
	wtmp=$(mktemp -d /tmp/newsdesk-shots-XXXXXX) # wine sees /tmp as Z:\tmp
	cp "$WIN_EXE" "$wtmp/newsdesk.exe"
	local saved_display=$DISPLAY
	export WINEPREFIX=$wtmp/prefix
	w() { DISPLAY=$DISPLAY "$chroot" "$@"; }
	windows_cleanup() {
		"$chroot" wineserver -k 2>/dev/null || true
		if [ -s "$wtmp/xvfb.pid" ]; then kill "$(cat "$wtmp/xvfb.pid")" 2>/dev/null || true; fi
		rm -rf "$wtmp"
	}
	trap 'windows_cleanup; cleanup' EXIT
	"$chroot" wineboot -i >"$tmp/wine.log" 2>&1 || { echo "wine cannot make a prefix:" >&2; tail -20 "$tmp/wine.log" >&2; exit 1; }
	"$chroot" sh -c 'echo $$ >"$0"; exec Xvfb -displayfd 3 -screen 0 1280x800x24 -nolisten tcp 3>"$1"' \
		"$wtmp/xvfb.pid" "$wtmp/display" >/dev/null 2>&1 &
	for _ in $(seq 100); do [ -s "$wtmp/display" ] && break; sleep 0.1; done
	[ -s "$wtmp/display" ] || { echo "Xvfb for wine did not start" >&2; exit 1; }
	DISPLAY=":$(cat "$wtmp/display")"
	win_app() { # MODE: the demo mode, as start_app
		w env LANG=en_US.UTF-8 NEWSDESK_DEMO="$1" wine "Z:${wtmp//\//\\}\\newsdesk.exe" --data 'C:\demo' >>"$tmp/wine.log" 2>&1 &
		if ! win=$(timeout "$WAIT" "$chroot" env DISPLAY="$DISPLAY" xdotool search --sync --onlyvisible --name '^Newsdesk$' | head -n1) || [ -z "$win" ]; then
			echo "no Newsdesk window under wine after ${WAIT}s" >&2
			tail -20 "$tmp/wine.log" >&2
			exit 1
		fi
		sleep 3 # let the first frames render
	}
	wkey() { w xdotool key "$@"; settle; } # XTEST: wine takes no synthetic key events
	wshot() {
		local X Y WIDTH HEIGHT SCREEN WINDOW
		eval "$(w xdotool getwindowgeometry --shell "$win")"
		w sh -c 'xwd -root | convert xwd:- -crop "$0" +repage "$1"' "${WIDTH}x${HEIGHT}+${X}+${Y}" "$wtmp/$1.png"
		cp "$wtmp/$1.png" "$OUT/$1.png"
		echo "wrote $OUT/$1.png (${WIDTH}x${HEIGHT}, under wine)"
	}
	win_app wizard
	w xdotool type --delay 4 -- "Sam Carter"
	settle
	wshot windows-wizard
	"$chroot" wineserver -k || true # ends the wizard
	win_app 1
	wkey Return # open the urgent item under the cursor
	wshot windows-main
	windows_cleanup
	trap cleanup EXIT
	DISPLAY=$saved_display
	unset WINEPREFIX
}
windows_shots

# The real application core: a network created with `newsdesk network init`,
# a headless archive seed (newsdesk serve --network) as its first seed, and a
# first run of the app that imports the definition file in the wizard; items
# published through the seed's control API arrive in the window.
if ! command -v curl >/dev/null; then
	echo "no curl: skipping the real-network screenshots" >&2
	exit 0
fi
"$BIN" network init --name "Acme news" --out "$tmp/acme.json" --seeds 127.0.0.1:17401 --open-publishing >/dev/null
"$BIN" serve --network "$tmp/acme.json" --listen 127.0.0.1:17401 --data "$tmp/seed" --subscribe it,company \
	--archive --control 127.0.0.1:17402 2>>"$tmp/seed.log" &
seed_pid=$!
start_app ""
click 600 180 # the display name
typetext "Riley Reader"
click 279 328 # Import a network definition file
click 505 407 # its path
typetext "$tmp/acme.json"
click 898 407 # Load: the definition's name, version and seeds appear
sleep 1
click 860 568 # Start Newsdesk (below the port)
sleep 3 # joins the seed
key ctrl+2
click 22 128 # subscribe to Company
click 22 245 # and IT
sleep 2
publish() {
	curl -fsS -X POST 127.0.0.1:17402/v1/publish -H 'Content-Type: application/json' \
		-d "{\"category\":\"$1\",\"title\":\"$2\",\"body\":\"$3\"}" >/dev/null
}
publish company "Welcome to Newsdesk" "This item came from the **seed**, through the overlay."
publish it "Backup window moved to Sunday" "The weekly backup now runs on *Sunday* at 03:00."
publish it "New printers on floor 3" "Two new printers, see [the IT portal](https://it.example.com)."
sleep 2
key ctrl+1
key Return # open the newest item
shot real-reading
click 1157 737 # Details… on the status line: a member has no Admin tab
sleep 1
shot real-network
stop_app
stop "$seed_pid"