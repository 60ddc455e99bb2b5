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
#
# The inbound firewall rule for the servant's port is added and removed by
# netsh, run by custom actions that are added here too: wixl has no
# firewall extension, its CustomAction knows no Directory attribute (type
# 34, an exe in a directory: it drops the row with only a warning), and
# it sequences After="InstallFiles" after InstallFinalize, where a deferred
# action cannot run. See the comment above the rows.
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

# The firewall rule: inbound TCP on the servant's default port
# (app.DefaultListen), domain and private profiles only, for this program
# only. The actions run deferred (in the install script, where the files
# are) and without impersonation (as LocalSystem: adding a rule needs an
# administrator). netsh comes from System64Folder, the 64-bit System32:
# SystemFolder is SysWOW64 on 64-bit Windows. System64Folder is also the
# working directory (newsdesk.wxs declares it): it always exists.
#
# Install, repair, upgrade (NOT REMOVE): the rule is deleted, then added, so
# that a repair or a second install leaves one rule, not two (netsh adds a
# duplicate under the same name); that delete fails when there is no rule,
# hence it ignores its exit code. The add does not: an install without its
# rule is what this is here to prevent, so a failed netsh fails the install
# (error 1722) and rolls it back. Each change has a rollback action undoing
# it: a failed install leaves no rule, a failed uninstall leaves the rule.
# (A failed repair leaves the product without it; the next repair adds it.)
#
# Uninstall (REMOVE="ALL"): the rule is deleted before the files. Its exit
# code is ignored, so that a rule already gone (deleted by hand, say) does
# not make Newsdesk impossible to remove. A major upgrade runs the old
# product's uninstall with UPGRADINGPRODUCTCODE set, and it deletes the rule
# too (no NOT UPGRADINGPRODUCTCODE in the condition): RemoveExistingProducts
# comes before InstallInitialize (wixl puts it right after InstallValidate),
# so the old product is gone before the new one's script runs and adds the
# rule again, and the rule of an install directory that moved does not stay
# behind. packaging_test.go checks that order.
port=7400
netsh='"[System64Folder]netsh.exe" advfirewall firewall'
add="$netsh add rule name=\"Newsdesk\" dir=in action=allow protocol=TCP localport=$port program=\"[INSTALLDIR]newsdesk.exe\" profile=domain,private"
del="$netsh delete rule name=\"Newsdesk\" program=\"[INSTALLDIR]newsdesk.exe\""
# Types: 34 an exe run in a directory, +64 exit code ignored, +256 rollback,
# +1024 deferred, +2048 no impersonation.
while IFS='|' read -r action type cmd condition seq; do
	msibuild "$tmp/newsdesk.msi" -q "INSERT INTO \`CustomAction\` (\`Action\`, \`Type\`, \`Source\`, \`Target\`) VALUES ('$action', $type, 'System64Folder', '$cmd')"
	msibuild "$tmp/newsdesk.msi" -q "INSERT INTO \`InstallExecuteSequence\` (\`Action\`, \`Condition\`, \`Sequence\`) VALUES ('$action', '$condition', $seq)"
done <<ROWS
FirewallRuleRemoveRollback|3426|$add|REMOVE="ALL"|3401
FirewallRuleRemove|3170|$del|REMOVE="ALL"|3402
FirewallRuleAddRollback|3426|$del|NOT REMOVE|4001
FirewallRuleClear|3170|$del|NOT REMOVE|4002
FirewallRuleAdd|3106|$add|NOT REMOVE|4003
ROWS
mv "$tmp/newsdesk.msi" "$out"
echo "$out"
