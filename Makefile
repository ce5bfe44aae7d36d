# The two commands a new machine needs (see README.md). Both run scripts/setup first, which is idempotent.
SWIFT ?= swift
TEST_BUILD := .build/test

.PHONY: setup demo test bench

setup:
	scripts/setup

# Transcribe a bundled real recording (A Tale of Two Cities, 44 s) with the default model.
demo: setup
	$(SWIFT) build -c release --product aural
	.build/release/aural transcribe fixtures/audio/two_cities.wav

# Every test, in an optimized build (the engine's tests run real models on real audio), against a private
# PulseAudio daemon with virtual devices that scripts/with-pulse starts and stops; then an app's package depends on a
# tagged clone of this repository and transcribes with it (scripts/consumer-check).
test: setup
	$(SWIFT) build -c release --build-tests -Xswiftc -enable-testing --scratch-path $(TEST_BUILD)
	scripts/with-pulse $(SWIFT) test -c release -Xswiftc -enable-testing --scratch-path $(TEST_BUILD) --skip-build
	scripts/consumer-check

bench: setup
	scripts/bench
