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
# the audio layer's tests share the daemon's devices. PipeWire is `make test-pipewire`, not part of this yet.
test: setup
	python3 -m unittest discover -s scripts/benchkit -t scripts
	$(SWIFT) build -c release --build-tests -Xswiftc -enable-testing --scratch-path $(TEST_BUILD)
	scripts/with-pulse $(SWIFT) test -c release -Xswiftc -enable-testing --scratch-path $(TEST_BUILD) --skip-build --skip LiveMicrophone
	scripts/consumer-check
	scripts/with-pulse $(SWIFT) test -c release -Xswiftc -enable-testing --scratch-path $(TEST_BUILD) --skip-build --filter LiveMicrophone

# The live-audio suites (the audio layer's and the live microphone's) against a private PipeWire (pipewire,
# wireplumber, pipewire-pulse) that scripts/with-pipewire starts and stops, but for excludesAProcess (PipeWire hears
# an application that starts mid-capture about 220 ms late). Not part of `make test` yet: in a fresh-clone run on
# 2026-12-01 (8bb4e50, with the 1024-frame period) this phase failed 3 tests: the default input's NCC (0.87 in one
# case), an output chosen by name, and `aural listen` in tmux (WER 41 %): the private PipeWire on 2 loaded cores is
# not yet reliable (issue 13).
test-pipewire: setup
	$(SWIFT) build -c release --build-tests -Xswiftc -enable-testing --scratch-path $(TEST_BUILD)
	scripts/with-pipewire $(SWIFT) test -c release -Xswiftc -enable-testing --scratch-path $(TEST_BUILD) --skip-build --filter 'PulseAudioTests|LiveMicrophone' --skip excludesAProcess

bench: setup
	scripts/bench
