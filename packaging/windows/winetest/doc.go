// Package winetest holds `make test-windows`: the Windows build of Newsdesk
// run for real under wine 10 (scripts/wine-chroot.sh), in one network with
// servants on Linux. It has no code of its own outside its test; see
// winetest_test.go for what is covered, and docs/windows.md for what it
// found.
package winetest
