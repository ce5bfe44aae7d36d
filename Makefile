# The two commands a new machine needs (see README.md). Both run scripts/setup first, which is idempotent.
SWIFT ?= swift
TEST_BUILD := .build/test

.PHONY: setup demo test test-pipewire bench

setup:
	scripts/setup

# Transcribe a bundled real recording (A Tale of Two Cities, 44 s) with the default model, then show `aural listen`
# live on the same recording played into a private virtual microphone (scripts/listen-demo).
demo: setup
	$(SWIFT) build -c release --product aural
	.build/release/aural transcribe fixtures/audio/two_cities.wav
	scripts/listen-demo

# Every test, in an optimized build (the engine's tests run real models on real audio), against a private
# PulseAudio daemon with virtual devices that scripts/with-pulse starts and stops. First the bench's unit tests
# (scripts/benchkit: pure Python, no model, well under a second), which end with unittest's "OK"; then every Swift
# suite but the live-microphone ones; then an app's package that depends on a tagged clone of this repository
# (scripts/consumer-check); then the suites that play recordings into the virtual microphone, on their own, since
# the audio layer's tests share the daemon's devices; last the live-audio suites again (the audio layer's and the
# live microphone's), against a private PipeWire (test-pipewire), but for one test that PipeWire still fails:
# excludesAProcess, where an application starting mid-capture is heard about 220 ms late (issue 13, open).
test: setup
	python3 -m unittest discover -s scripts/benchkit -t scripts
	$(SWIFT) build -c release --build-tests -Xswiftc -enable-testing --scratch-path $(TEST_BUILD)
	scripts/with-pulse $(SWIFT) test -c release -Xswiftc -enable-testing --scratch-path $(TEST_BUILD) --skip-build --skip LiveMicrophone
	scripts/consumer-check
	scripts/with-pulse $(SWIFT) test -c release -Xswiftc -enable-testing --scratch-path $(TEST_BUILD) --skip-build --filter LiveMicrophone
	scripts/with-pipewire $(SWIFT) test -c release -Xswiftc -enable-testing --scratch-path $(TEST_BUILD) --skip-build --filter 'PulseAudioTests|LiveMicrophone' --skip excludesAProcess

# Only the live-audio suites (the audio layer's and the live microphone's) against a private PipeWire (pipewire,
# wireplumber, pipewire-pulse) that scripts/with-pipewire starts and stops: the last phase of `make test`.
test-pipewire: setup
	$(SWIFT) build -c release --build-tests -Xswiftc -enable-testing --scratch-path $(TEST_BUILD)
	scripts/with-pipewire $(SWIFT) test -c release -Xswiftc -enable-testing --scratch-path $(TEST_BUILD) --skip-build --filter 'PulseAudioTests|LiveMicrophone' --skip excludesAProcess

bench: setup
	scripts/bench
