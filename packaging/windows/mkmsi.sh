#!/usr/bin/env bash
# mkmsi.sh DIR OUT.msi VERSION: builds the Windows installer from DIR, which
# holds newsdesk.exe and newsdesk.ico, with wixl (Debian package wixl) and
# msibuild (msitools). Prints OUT.msi.
#
# wixl takes no <Condition> under a Feature or a Component, so the two
# optional features get theirs afterwards with msibuild: NetworkPreset (the
# registry value recording NETWORK=…) and Autostart (AUTOSTART=1) are at
# level 1000, not installed by default, and raised to 1 by their property.
# Both properties are made secure (SecureCustomProperties) so that they
# reach the elevated part of a per-machine install.
set -euo pipefail

dir=${1:?usage: mkmsi.sh DIR OUT.msi VERSION}
out=${2:?usage: mkmsi.sh DIR OUT.msi VERSION}
version=${3:?usage: mkmsi.sh DIR OUT.msi VERSION}
wxs=$(cd "$(dirname "$0")" && pwd)/newsdesk.wxs
mkdir -p "$(dirname "$out")"
out=$(cd "$(dirname "$out")" && pwd)/$(basename "$out")

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# wixl finds the files named in newsdesk.wxs in its working directory.
(cd "$dir" && wixl -a x64 -D Version="$version" -o "$tmp/newsdesk.msi" "$wxs")
printf 'Feature_\tLevel\tCondition\ns38\ti2\tS255\nCondition\tFeature_\tLevel\nNetworkPreset\t1\tNETWORK\nAutostart\t1\tAUTOSTART\n' \
	>"$tmp/Condition.idt"
msibuild "$tmp/newsdesk.msi" -i "$tmp/Condition.idt"
msibuild "$tmp/newsdesk.msi" -q "UPDATE \`Property\` SET \`Value\` = 'WIX_DOWNGRADE_DETECTED;WIX_UPGRADE_DETECTED;NETWORK;AUTOSTART' WHERE \`Property\` = 'SecureCustomProperties'"
mv "$tmp/newsdesk.msi" "$out"
echo "$out"
