# Newsdesk build entry points. `make run` and `make test` install the Debian
# packages Fyne's cgo build needs when any is missing (nothing to do, no apt).

SHELL := /bin/bash
GO    ?= go
ARGS  ?=

# Debian packages for Fyne's cgo (OpenGL + X11) build.
GUI_PKGS := gcc libgl1-mesa-dev libx11-dev libxcursor-dev libxrandr-dev \
            libxinerama-dev libxi-dev libxxf86vm-dev pkg-config
# Extra packages for headless screenshots (xwd comes from x11-apps).
# xclip pastes the Japanese text the screenshots type. Japanese needs no
# system font: the app bundles its CJK fonts (ui/fonts.go).
X_PKGS   := xvfb xauth dbus imagemagick xdotool x11-apps xclip

# The app follows Fyne's threading rule (widgets only on the main goroutine,
# everything else through fyne.Do), so Fyne may drop its internal locking.
TAGS := migrated_fynedo

SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

# The version packages carry, from FyneApp.toml (Version, Build).
VERSION := $(shell sed -n 's/^ *Version *= *"\(.*\)"/\1/p' FyneApp.toml)
BUILDNO := $(shell sed -n 's/^ *Build *= *\([0-9]*\)/\1/p' FyneApp.toml)

# Windows cross-builds: mingw-w64 compiles Fyne's cgo (GLFW, OpenGL) and
# the resources; wixl builds the MSI, msitools' msibuild and msiinfo finish
# and check it.
WIN_CC   := x86_64-w64-mingw32-gcc
WIN_PKGS := gcc-mingw-w64-x86-64 wixl msitools

# apt_install: install the packages in $(1) that dpkg does not list as
# installed; runs apt-get update only when something is missing.
define apt_install
	@missing=""; \
	for p in $(1); do \
	  dpkg -s "$$p" 2>/dev/null | grep -q '^Status: install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -q && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $$missing; \
	fi
endef

.PHONY: deps deps-x run test build build-headless bench screenshots package fmt clean \
        cross deb package-windows test-windows cjk-font

deps:
	$(call apt_install,$(GUI_PKGS))

deps-x: deps
	$(call apt_install,$(X_PKGS))

run: deps
	$(GO) run -tags $(TAGS) . $(ARGS)

# Everything runs in full once; then the packages with goroutines and locks
# of their own (the protocol runtime, the simulator's servant seam for the
# application, storage, the application, its CLI and network business, the
# UI) run their short tests again under the race detector, in one
# invocation so the two cores share the work. The protocol core and the
# simulator are single-goroutine by design (a deterministic state machine
# stepped in virtual time): the race detector has nothing to find there,
# and the simulator's property runs are the slowest tests we have.
RACE_PKGS := ./newsnet/node/... ./newsnet/sim/simnode/... ./storage/... ./app/... ./cli/... ./network/... ./ui/...

# The TCP runtime's stress tests (200 servants on loopback) run on their
# own: beside the simulator's CPU-bound tests a starved burst can take
# minutes, and one servant has been seen stuck (issue 10, open). Meanwhile
# the wine chroot of test-windows is built in the background when the
# machine has none yet (mostly downloads; test-windows waits for it).
test: deps
	@mkdir -p build; scripts/wine-chroot.sh --check >build/wine-chroot.log 2>&1 & # test-windows waits for it
	@unformatted=$$(gofmt -l .); if [ -n "$$unformatted" ]; then echo "gofmt would change: $$unformatted"; exit 1; fi
	$(GO) vet -tags $(TAGS) ./...
	$(GO) test -tags $(TAGS) -timeout 15m $$($(GO) list -tags $(TAGS) ./... | grep -v '/newsnet/node$$')
	$(GO) test -tags $(TAGS) -timeout 15m ./newsnet/node/
	cd clocale && $(GO) vet ./... && $(GO) test ./...
	$(GO) test -race -short -tags $(TAGS) -timeout 15m $(RACE_PKGS)
	$(MAKE) --no-print-directory cross deb test-windows

build: deps
	$(GO) build -tags $(TAGS) -o bin/newsdesk .

build-headless:
	CGO_ENABLED=0 $(GO) build -tags headless -o bin/newsdesk-headless .

bench:
	$(GO) run ./cmd/newsbench $(ARGS)

# LANG=de or LANG=ja (make screenshots LANG=ja) shoots the daily screens in
# that language into docs/screenshots/<lang>/, without the Windows build.
SHOT_LANG := $(filter de ja,$(firstword $(subst _, ,$(subst ., ,$(LANG)))))

screenshots: deps-x build $(if $(SHOT_LANG),,package-windows)
	LANG=$(LANG) scripts/screenshots.sh

# cjk-font makes the bundled CJK fonts (ui/fonts/) again: subsets of
# Debian's fonts-noto-cjk, cut with Debian's python3-fonttools by
# scripts/cjkfont.py, which says what they hold. The fonts are committed;
# building the app does not need this.
cjk-font:
	$(call apt_install,fonts-noto-cjk python3-fonttools)
	/usr/bin/python3 scripts/cjkfont.py "$$($(GO) list -m -f '{{.Dir}}' fyne.io/fyne/v2)/theme/font/NotoSans-Regular.ttf"

# package builds the Linux desktop package (a tarball with the binary, a
# .desktop entry and the icon) with Fyne's packager, pinned and run from the
# module proxy so that it never enters the app's go.mod.
package: deps
	mkdir -p dist
	$(GO) run fyne.io/tools/cmd/fyne@v1.7.4 package -os linux -release -tags $(TAGS) -icon assets/icon.png
	mv -f Newsdesk.tar.xz dist/ 2>/dev/null || true

# cross keeps the other platforms compiling (make test runs it): go vet
# for Windows on every package, the GUI ones with cgo through mingw-w64 as
# the real Windows build compiles them, and the headless servant built for
# Windows and macOS. With a warm build cache it takes seconds; the first
# run on a fresh machine compiles Fyne for Windows once (10 minutes here).
cross:
	$(call apt_install,gcc-mingw-w64-x86-64)
	CGO_ENABLED=1 GOOS=windows GOARCH=amd64 CC=$(WIN_CC) $(GO) vet -tags $(TAGS) ./...
	CGO_ENABLED=0 GOOS=windows GOARCH=amd64 $(GO) vet -tags headless .
	CGO_ENABLED=0 GOOS=windows GOARCH=amd64 $(GO) build -tags headless -o /dev/null .
	CGO_ENABLED=0 GOOS=darwin GOARCH=arm64 $(GO) build -tags headless -o /dev/null .

# deb builds dist/newsdesk_VERSION-BUILD_ARCH.deb with dpkg-deb (see
# packaging/deb/mkdeb.sh) and checks its contents and modes.
deb: deps
	mkdir -p build/deb dist
	$(GO) build -tags $(TAGS) -ldflags "-s -w" -o build/deb/newsdesk .
	deb=$$(packaging/deb/mkdeb.sh build/deb/newsdesk dist $(VERSION)-$(BUILDNO)) && \
	  NEWSDESK_DEB=$$PWD/$$deb $(GO) test -count=1 -run 'Deb|SeedUnit' ./packaging/ && \
	  echo "built $$deb"

# package-windows cross-compiles the desktop app for Windows (cgo through
# mingw-w64: 11 minutes from an empty build cache on this 2-core machine,
# seconds with a warm one) with its icon, manifest and version information
# (compiled by windres into a .syso the linker takes), builds
# dist/Newsdesk-VERSION.msi with wixl and checks it, and builds the headless
# servant as dist/newsdesk-headless.exe.
package-windows:
	$(call apt_install,$(WIN_PKGS))
	rm -rf build/windows && mkdir -p build/windows dist
	$(GO) run ./packaging/windows/winres -icon assets/icon.png -version $(VERSION) -build $(BUILDNO) -out build/windows
	cd build/windows && x86_64-w64-mingw32-windres -O coff -i newsdesk.rc -o ../../newsdesk_windows_amd64.syso
	CGO_ENABLED=1 GOOS=windows GOARCH=amd64 CC=$(WIN_CC) $(GO) build -tags $(TAGS) -ldflags "-H=windowsgui -s -w" \
	  -o build/windows/newsdesk.exe . && \
	CGO_ENABLED=0 GOOS=windows GOARCH=amd64 $(GO) build -tags headless -ldflags "-s -w" \
	  -o dist/newsdesk-headless.exe .; status=$$?; rm -f newsdesk_windows_amd64.syso; exit $$status
	packaging/windows/mkmsi.sh build/windows dist/Newsdesk-$(VERSION).msi $(VERSION)
	NEWSDESK_MSI=$$PWD/dist/Newsdesk-$(VERSION).msi $(GO) test -count=1 -run MSI ./packaging/
	ls -l dist/Newsdesk-$(VERSION).msi dist/newsdesk-headless.exe build/windows/newsdesk.exe

# test-windows runs the Windows build for real under wine 10, in a Debian 13
# chroot (scripts/wine-chroot.sh builds it once per machine: a few minutes,
# about 3 GB; Debian 12's wine 8 cannot start Go programs): it installs the
# MSI silently, runs the headless servant in a network with Linux servants,
# starts the desktop app under Xvfb from the Run key with a preset network,
# drives it with xdotool, and uninstalls (packaging/windows/winetest). The
# test runs in a network namespace of its own (unshare --net), so the
# desktop app's port 7400 and the test's ports meet nothing else on the
# machine. Screenshots and logs: build/wine/. A chroot or prefix that
# cannot be set up fails the target. On a failure the test's own messages
# are printed once more at the end, below the servant logs.
WINE_OUT := $(CURDIR)/build/wine
test-windows: package-windows
	scripts/wine-chroot.sh --check
	CGO_ENABLED=0 GOOS=windows GOARCH=amd64 $(GO) build -o build/windows/wintool.exe ./packaging/windows/wintool
	$(GO) test -c -o build/winetest.test ./packaging/windows/winetest
	rm -rf $(WINE_OUT) && mkdir -p $(WINE_OUT)
	NEWSDESK_WINE_MSI=$(CURDIR)/dist/Newsdesk-$(VERSION).msi \
	NEWSDESK_WINE_HEADLESS=$(CURDIR)/dist/newsdesk-headless.exe \
	NEWSDESK_WINE_TOOL=$(CURDIR)/build/windows/wintool.exe \
	NEWSDESK_WINE_CHROOT=$(CURDIR)/scripts/wine-chroot.sh \
	NEWSDESK_WINE_OUT=$(WINE_OUT) \
	  $(if $(SUDO),$(SUDO) -E )unshare --net sh -c 'ip link set lo up && exec "$$0" "$$@"' \
	  build/winetest.test -test.v -test.count=1 -test.timeout 20m -test.run 'TestWindows$$' \
	  >$(WINE_OUT)/test.log 2>&1; rc=$$?; cat $(WINE_OUT)/test.log; \
	if [ $$rc -ne 0 ]; then echo '--- test-windows failed; its messages (the servant logs above them are in $(WINE_OUT)):'; \
	  grep -E '^ +[a-z_]+_test\.go:[0-9]+: |^ *--- FAIL' $(WINE_OUT)/test.log | tail -25; fi; exit $$rc

fmt:
	$(GO) fmt ./...

clean:
	rm -rf bin/ build/ docs/screenshots/*.tmp newsdesk_windows_amd64.syso
