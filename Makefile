# The two commands a new machine needs (see README.md). Both run scripts/setup first, which is idempotent.
SWIFT ?= swift
TEST_BUILD := .build/test

.PHONY: setup demo test test-live test-pipewire pipewire-phases bench

setup:
	scripts/setup

# Transcribe a bundled real recording (A Tale of Two Cities, 44 s) with the default model, then show `aural listen`
# live on the same recording played into a private virtual microphone (scripts/listen-demo).
demo: setup
	$(SWIFT) build -c release --product aural
	.build/release/aural transcribe fixtures/audio/two_cities.wav
	scripts/listen-demo

# Every test, in an optimized build (the engine's tests run real models on real audio), against a private
# PulseAudio daemon with virtual devices that scripts/with-pulse starts and stops. First the benches' unit tests
# (scripts/benchkit and scripts/servekit/servebench: pure Python, no model, well under a second), which end with
# unittest's "OK"; then every Swift
# suite but the live-microphone ones; then an app's package that depends on a tagged clone of this repository
# (scripts/consumer-check); then `aural serve` through OpenAI's Python client (scripts/serve-check) and its web page
# in headless Chromium (scripts/web-check); then the deployment files: nginx in front of two replicas, the systemd unit
# and the Kubernetes manifest (scripts/deploy-check); then the suites that play recordings into the virtual
# microphone, on their own, since the audio layer's tests share the daemon's devices. Last, the same live-audio suites (the audio layer's, then the live microphone's) against a private
# PipeWire (pipewire, wireplumber, pipewire-pulse) that scripts/with-pipewire starts and stops: `make test-pipewire`
# alone.
test: setup
	python3 -m unittest discover -s scripts/benchkit -t scripts
	python3 -m unittest discover -s scripts/servekit/servebench -t scripts/servekit
	$(SWIFT) build -c release --build-tests -Xswiftc -enable-testing --scratch-path $(TEST_BUILD)
	scripts/with-pulse $(SWIFT) test -c release -Xswiftc -enable-testing --scratch-path $(TEST_BUILD) --skip-build --skip LiveMicrophone
	scripts/consumer-check
	$(SWIFT) build -c release --product aural
	scripts/serve-check
	scripts/web-check
	scripts/deploy-check
	scripts/with-pulse $(SWIFT) test -c release -Xswiftc -enable-testing --scratch-path $(TEST_BUILD) --skip-build --filter LiveMicrophone
	$(MAKE) --no-print-directory pipewire-phases

# The live-audio suites alone, on both servers: the audio layer's and the live microphone's against a private
# PulseAudio (each on a fresh daemon), then against a private PipeWire. To repeat them:
# `for i in $(seq 10); do make test-live || break; done`.
test-live: setup
	$(SWIFT) build -c release --build-tests -Xswiftc -enable-testing --scratch-path $(TEST_BUILD)
	scripts/with-pulse $(SWIFT) test -c release -Xswiftc -enable-testing --scratch-path $(TEST_BUILD) --skip-build --filter PulseAudioTests
	scripts/with-pulse $(SWIFT) test -c release -Xswiftc -enable-testing --scratch-path $(TEST_BUILD) --skip-build --filter LiveMicrophone
	$(MAKE) --no-print-directory pipewire-phases

# The live-audio suites against a private PipeWire, the audio layer's first and then the live microphone's, each on
# a fresh server (they change the devices' defaults).
test-pipewire: setup
	$(SWIFT) build -c release --build-tests -Xswiftc -enable-testing --scratch-path $(TEST_BUILD)
	$(MAKE) --no-print-directory pipewire-phases

pipewire-phases:
	scripts/with-pipewire $(SWIFT) test -c release -Xswiftc -enable-testing --scratch-path $(TEST_BUILD) --skip-build --filter PulseAudioTests
	scripts/with-pipewire $(SWIFT) test -c release -Xswiftc -enable-testing --scratch-path $(TEST_BUILD) --skip-build --filter LiveMicrophone

bench: setup
	scripts/bench
