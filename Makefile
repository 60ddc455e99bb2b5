# Newsdesk build entry points. `make run` and `make test` install the Debian
# packages Fyne's cgo build needs when any is missing (nothing to do, no apt).

SHELL := /bin/bash
GO    ?= go
ARGS  ?=

# Debian packages for Fyne's cgo (OpenGL + X11) build.
GUI_PKGS := gcc libgl1-mesa-dev libx11-dev libxcursor-dev libxrandr-dev \
            libxinerama-dev libxi-dev libxxf86vm-dev pkg-config
# Extra packages for headless screenshots (xwd comes from x11-apps).
X_PKGS   := xvfb xauth dbus imagemagick xdotool x11-apps

# The app follows Fyne's threading rule (widgets only on the main goroutine,
# everything else through fyne.Do), so Fyne may drop its internal locking.
TAGS := migrated_fynedo

SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

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

.PHONY: deps deps-x run test build build-headless bench screenshots package fmt clean

deps:
	$(call apt_install,$(GUI_PKGS))

deps-x: deps
	$(call apt_install,$(X_PKGS))

run: deps
	$(GO) run -tags $(TAGS) . $(ARGS)

# Everything runs in full once; then the packages with goroutines and locks
# of their own (the protocol runtime, storage, the application, its CLI and
# network business, the UI) run their short tests again under the race
# detector, in one invocation so the two cores share the work.
RACE_PKGS := ./newsnet/... ./storage/... ./app/... ./cli/... ./network/... ./ui/...

# The TCP runtime's stress tests (200 servants on loopback) run on their
# own: beside the simulator's CPU-bound tests a starved burst can take
# minutes, and one servant has been seen stuck (issue 10, open).
test: deps
	$(GO) vet -tags $(TAGS) ./...
	$(GO) test -tags $(TAGS) -timeout 15m $$($(GO) list -tags $(TAGS) ./... | grep -v '/newsnet/node$$')
	$(GO) test -tags $(TAGS) -timeout 15m ./newsnet/node/
	$(GO) test -race -short -tags $(TAGS) -timeout 15m $(RACE_PKGS)

build: deps
	$(GO) build -tags $(TAGS) -o bin/newsdesk .

build-headless:
	CGO_ENABLED=0 $(GO) build -tags headless -o bin/newsdesk-headless .

bench:
	$(GO) run ./cmd/newsbench $(ARGS)

screenshots: deps-x build
	scripts/screenshots.sh

# package builds the Linux desktop package (a tarball with the binary, a
# .desktop entry and the icon) with Fyne's packager, pinned and run from the
# module proxy so that it never enters the app's go.mod.
package: deps
	mkdir -p dist
	$(GO) run fyne.io/tools/cmd/fyne@v1.7.4 package -os linux -release -tags $(TAGS) -icon assets/icon.png
	mv -f Newsdesk.tar.xz dist/ 2>/dev/null || true

fmt:
	$(GO) fmt ./...

clean:
	rm -rf bin/ docs/screenshots/*.tmp
