#!/usr/bin/env bash
# Measures the CPU an idle desktop app uses, under Xvfb: the real app after
# its first run joined a headless seed (main window, the reader shown,
# nothing arriving); the demo mode, which runs eight simulated servants in
# the same process; for comparison cmd/idlewindow, a Fyne window with one
# label; and a headless servant with one link (what runs inside a desktop
# besides its window). Each runs in a private D-Bus session, settles for
# SETTLE seconds, then its CPU time (user + system, from /proc) is read
# over IDLE_SECONDS. PERF=1 then records the real app with perf for as
# long, and prints where its time went.
#
# Usage: scripts/idle-cpu.sh   (IDLE_SECONDS=120 SETTLE=20 PERF=1 to change)
# Needs the packages of `make deps-x` (Xvfb, dbus, xdotool) and, for
# PERF=1, perf.
set -euo pipefail
cd "$(dirname "$0")/.."

SECONDS_IDLE=${IDLE_SECONDS:-120}
SETTLE=${SETTLE:-20}
tmp=$(mktemp -d)
xvfb_pid=""
seed_pid=""
cleanup() {
	if [ -s "$tmp/pid" ]; then kill "$(cat "$tmp/pid")" 2>/dev/null || true; fi
	if [ -n "$seed_pid" ]; then kill "$seed_pid" 2>/dev/null || true; fi
	if [ -n "$xvfb_pid" ]; then kill "$xvfb_pid" 2>/dev/null || true; fi
	rm -rf "$tmp"
}
trap cleanup EXIT

go build -tags migrated_fynedo -o "$tmp/newsdesk" .
go build -tags migrated_fynedo -o "$tmp/idlewindow" ./cmd/idlewindow

# An X server of its own, on a display it picks.
Xvfb -displayfd 3 -screen 0 1280x800x24 -nolisten tcp 3>"$tmp/display" >/dev/null 2>&1 &
xvfb_pid=$!
for _ in $(seq 100); do [ -s "$tmp/display" ] && break; sleep 0.1; done
[ -s "$tmp/display" ] || { echo "Xvfb did not start" >&2; exit 1; }
export DISPLAY=":$(cat "$tmp/display")"

hz=$(getconf CLK_TCK)
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

# measure NAME CMD...: prints one table row.
measure() {
	local name=$1 pid session a b t0 t1
	shift
	rm -f "$tmp/pid"
	LANG=en_US.UTF-8 NEWSDESK_NO_TRAY=1 dbus-run-session -- sh -c 'echo $$ >"$0"; exec "$@"' "$tmp/pid" "$@" \
		>>"$tmp/log" 2>&1 &
	session=$!
	if [ -n "${PREPARE:-}" ]; then "$PREPARE"; fi
	sleep "$SETTLE"
	pid=$(cat "$tmp/pid")
	a=$(cpu_ticks "$pid")
	t0=$(date +%s.%N)
	sleep "$SECONDS_IDLE"
	b=$(cpu_ticks "$pid")
	t1=$(date +%s.%N)
	# After the measurement: perf's sampling costs the process too.
	if [ "${PERF:-}" = 1 ] && [ "$name" = "Newsdesk, joined to a seed" ]; then
		perf record -F 499 -g -o "$tmp/perf.data" -p "$pid" -- sleep "$SECONDS_IDLE" >/dev/null 2>&1
	fi
	if [ -n "${CHECK:-}" ] && ! "$CHECK"; then
		echo "($name: $CHECK failed, the row below is not what it says)" >&2
	fi
	kill "$pid"
	wait "$session" 2>/dev/null || true
	rm -f "$tmp/pid"
	awk -v n="$name" -v a="$a" -v b="$b" -v hz="$hz" -v t0="$t0" -v t1="$t1" \
		'BEGIN { printf "| %s | %.2f %% |\n", n, (b - a) * 100 / hz / (t1 - t0) }'
}

free_port() { # a loopback port nothing answers on
	local p
	for p in $(seq "$1" $(($1 + 200))); do
		(exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return; }
	done
	return 1
}

# The real app: its first run imports a network definition in the wizard
# (as a new employee's does) and joins a headless seed; then it sits on the
# reader with nothing arriving.
desk_seed_port=$(free_port 27300)
"$tmp/newsdesk" network init --name "Idle" --out "$tmp/idle.json" --seeds "127.0.0.1:$desk_seed_port" --open-publishing >/dev/null
"$tmp/newsdesk" serve --network "$tmp/idle.json" --listen "127.0.0.1:$desk_seed_port" --data "$tmp/deskseed" \
	--control 127.0.0.1:0 >>"$tmp/log" 2>&1 &
seed_pid=$!
first_run() {
	local win
	win=$(timeout 30 xdotool search --sync --onlyvisible --name '^Newsdesk$' | head -n1)
	sleep 2
	xdotool mousemove --window "$win" 600 180 click 1 # the display name
	sleep 0.5
	xdotool type --delay 4 -- "Idle Reader"
	xdotool mousemove --window "$win" 279 328 click 1 # Import a network definition file
	sleep 1
	xdotool mousemove --window "$win" 505 407 click 1 # its path
	sleep 0.5
	xdotool type --delay 4 -- "$tmp/idle.json"
	xdotool mousemove --window "$win" 898 407 click 1 # Load
	sleep 1.5
	xdotool mousemove --window "$win" 860 568 click 1 # Start Newsdesk
}
# joined: whether the seed has a link to the app.
joined() {
	curl -fsS "http://$(cat "$tmp/deskseed/control-address")/v1/status" 2>/dev/null | grep -q '"peer"'
}

echo "| idle for ${SECONDS_IDLE} s | CPU, of one core |"
echo "| --- | --- |"
PREPARE=first_run CHECK=joined measure "Newsdesk, joined to a seed" "$tmp/newsdesk" --data "$tmp/desk"
kill "$seed_pid"
wait "$seed_pid" 2>/dev/null || true
seed_pid=""
measure "Newsdesk, demo mode (8 simulated servants inside)" env NEWSDESK_DEMO=1 "$tmp/newsdesk" --data "$tmp/data"
measure "one Fyne label (cmd/idlewindow)" "$tmp/idlewindow"

# A desktop also runs a servant: a headless one, joined to a first seed,
# costs what the servant inside a desktop does.
seed_port=$(free_port 27400)
member_port=$(free_port $((seed_port + 1)))
"$tmp/newsdesk" serve --listen "127.0.0.1:$seed_port" --data "$tmp/seed" --control 127.0.0.1:0 >>"$tmp/log" 2>&1 &
seed_pid=$!
for _ in $(seq 100); do [ -s "$tmp/seed/control-address" ] && break; sleep 0.1; done
code=$("$tmp/newsdesk" invite create --data "$tmp/seed" 2>>"$tmp/log")
"$tmp/newsdesk" join "$code" --data "$tmp/member" >>"$tmp/log" 2>&1
measure "a headless servant with one link (newsdesk serve)" "$tmp/newsdesk" serve --data "$tmp/member" --listen "127.0.0.1:$member_port"
kill "$seed_pid"
wait "$seed_pid" 2>/dev/null || true
seed_pid=""

if [ "${PERF:-}" = 1 ]; then
	echo
	echo "Where the app's time went (perf, inclusive, functions over 5 %):"
	perf report -i "$tmp/perf.data" --children --sort sym --stdio -g none 2>/dev/null |
		awk '/^ +[0-9.]+%/ && $1 + 0 >= 5 && $0 !~ /\[k\]/' | head -30
fi
