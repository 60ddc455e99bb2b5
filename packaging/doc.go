// Package packaging holds the files that install Newsdesk: the desktop
// entry, the seed's systemd unit, the Debian package (deb/) and the Windows
// installer (windows/). It has no code; its tests check what `make deb` and
// `make package-windows` build (issue 16).
package packaging
