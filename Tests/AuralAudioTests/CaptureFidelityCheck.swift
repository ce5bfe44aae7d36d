@testable import AuralAudio
import Foundation
import Testing
import TestSupport

/// The capture-fidelity check behind `scripts/capture-check`: a measurement, not a timed test, so it runs only when
/// that script sets `AURALKIT_CAPTURE_CHECK` (the path of a 16 kHz mono 16-bit WAV file, minutes long).
///
/// It plays the file in real time into the virtual microphone (`mic_feed`) of the private server it runs under,
/// records the default input with `PulseMicrophoneSource` (the library's own capture path, as a session uses it),
/// aligns the recording with the file and prints one line: NCC over the whole file at one lag, the worst 1-second
/// window, and every break in the alignment (samples inserted: a gap of silence or a duplicate; samples lost).
/// `AURALKIT_CAPTURE_CHECK_SAVE`, when set, names a file for the recording (raw float32, 16 kHz mono).
@Suite("CaptureFidelity", .enabled(if: ProcessInfo.processInfo.environment["AURALKIT_CAPTURE_CHECK"] != nil))
struct CaptureFidelityCheck {
    @Test("a recording played into the virtual microphone comes back unaltered: NCC ≥ 0.999, no gaps, duplicates or losses")
    func playedEqualsCaptured() async throws {
        try PulseHarness.requirePrivateDaemon()
        let environment = ProcessInfo.processInfo.environment
        let file = URL(fileURLWithPath: try #require(environment["AURALKIT_CAPTURE_CHECK"]))
        let reference = try ReferenceWAV.read(file)
        try #require(reference.sampleRate == 16_000, "the check plays a 16 kHz file (scripts/capture-check converts)")
        let duration = Double(reference.samples.count) / 16_000

        let microphone = PulseMicrophoneSource()
        let recording = Recording(try microphone.start())
        try #require(await recording.waitForFrames(1, timeout: 5), "no buffer within 5 s")
        let player = try PulseHarness.play(file, device: "mic_feed")
        let played = await PulseHarness.wait(for: player, timeout: duration + 30)
        if !played { PulseHarness.kill(player) }
        try #require(played, "paplay did not finish")
        try await Task.sleep(for: .milliseconds(500))
        microphone.stop()
        try #require(await recording.waitForEnd(timeout: 5), "the stream did not finish after stop()")
        #expect(recording.error == nil)

        let buffers = recording.buffers
        var timeBreaks = 0
        var expected = 0.0
        for buffer in buffers {
            if abs(buffer.startTime - expected) > 1e-6 { timeBreaks += 1 }
            expected = buffer.startTime + buffer.duration
        }
        let captured = recording.samples
        if let save = environment["AURALKIT_CAPTURE_CHECK_SAVE"] {
            try captured.withUnsafeBytes { Data($0) }.write(to: URL(fileURLWithPath: save))
        }
        let report = try await offPool { CaptureFidelity.measure(captured: captured, reference: reference.samples, rate: 16_000) }
        let server = environment["AURALKIT_TEST_SOUND_SERVER"] ?? "pulseaudio"
        print(
            "capture-check: server \(server), \(String(format: "%.1f", duration)) s played, \(buffers.count) buffers; "
                + report.summary + "; startTime breaks \(timeBreaks), overrun frames \(microphone.overrunFrameCount)")
        #expect(report.overallNCC >= 0.999)
        #expect(report.worstWindow >= 0.999)
        #expect(report.breaks.isEmpty, "breaks in the alignment: \(report.breaks.map(\.description).joined(separator: ", "))")
        #expect(report.coveredSamples == reference.samples.count, "the recording does not hold the whole file")
        #expect(timeBreaks == 0)
        #expect(microphone.overrunFrameCount == 0)
    }
}

/// Aligns a long recording with what was played, window by window, so that a single gap or duplicate shows as a
/// break (and not as a low NCC for everything after it).
enum CaptureFidelity {
    /// One change of the lag between two consecutive windows.
    struct Break: CustomStringConvertible {
        /// Seconds into the played file.
        var at: Double
        /// Samples the recording gained (positive: silence or repeated audio inserted) or lost (negative).
        var samples: Int
        /// Whether the inserted samples are silence (a gap) rather than audio (a duplicate); nil for a loss.
        var isSilence: Bool?
        var description: String {
            let kind = samples < 0 ? "lost" : isSilence == true ? "gap" : "duplicate"
            return "\(kind) of \(abs(samples)) samples at \(String(format: "%.2f", at)) s"
        }
    }

    struct Report {
        /// `captured[i]` lines up with `reference[i - lag]` at the start of the file.
        var lag: Int
        /// NCC of the whole file against the recording at `lag`.
        var overallNCC: Double
        /// The lowest NCC of a 1-second window that holds sound, each at the lag tracked up to it.
        var worstWindow: Double
        var worstWindowAt: Double
        var windows: Int
        var windowsBelow: Int
        var breaks: [Break]
        /// Reference samples the recording holds at the tracked lag.
        var coveredSamples: Int

        var summary: String {
            "lag \(lag), NCC \(String(format: "%.5f", overallNCC)), worst 1-s window \(String(format: "%.5f", worstWindow)) at "
                + "\(String(format: "%.0f", worstWindowAt)) s, \(windowsBelow) of \(windows) windows below 0.999, "
                + "breaks \(breaks.isEmpty ? "none" : breaks.map(\.description).joined(separator: ", "))"
        }
    }

    static func measure(captured: [Float], reference: [Float], rate: Int) -> Report {
        let lag = initialLag(captured: captured, reference: reference, rate: rate)
        var current = lag
        var worst = (ncc: 1.0, at: 0.0)
        var windows = 0, below = 0
        var breaks: [Break] = []
        var start = 0
        while start + rate <= reference.count {
            let range = start..<(start + rate)
            if rms(reference, range) > 0.005 {
                var score = ncc(captured, reference, range: range, lag: current)
                if score < 0.999 {
                    // A gap, duplicate or loss moves the lag: find where this window is now.
                    let (moved, movedScore) = bestLag(captured, reference, range: range, around: current, radius: rate / 2)
                    if movedScore >= 0.99, moved != current {
                        var isSilence: Bool?
                        if moved > current {
                            let inserted = (start + current)..<min(start + moved, captured.count)
                            isSilence = inserted.isEmpty || rms(captured, inserted) < 1e-4
                        }
                        breaks.append(Break(at: Double(start) / Double(rate), samples: moved - current, isSilence: isSilence))
                        current = moved
                        score = movedScore
                    }
                }
                windows += 1
                if score < 0.999 { below += 1 }
                if score < worst.ncc { worst = (score, Double(start) / Double(rate)) }
            }
            start += rate
        }
        let covered = max(0, min(reference.count, captured.count - current) - max(0, -lag))
        return Report(
            lag: lag, overallNCC: ncc(captured, reference, range: 0..<reference.count, lag: lag), worstWindow: worst.ncc,
            worstWindowAt: worst.at, windows: windows, windowsBelow: below, breaks: breaks, coveredSamples: covered)
    }

    /// The lag of the first 30 s: on 16× block means over the recording's first 20 s of lag, then sample by sample.
    private static func initialLag(captured: [Float], reference: [Float], rate: Int) -> Int {
        let factor = 16
        func decimate(_ x: ArraySlice<Float>) -> [Float] {
            stride(from: x.startIndex, to: x.endIndex - factor + 1, by: factor).map { i in
                x[i..<(i + factor)].reduce(0, +) / Float(factor)
            }
        }
        let head = min(reference.count, 30 * rate)
        let r = decimate(reference[0..<head])
        let c = decimate(captured[0..<min(captured.count, head + 20 * rate)])
        var best = (lag: 0, score: -Double.infinity)
        for lag in 0...max(0, c.count - r.count / 2) {
            let score = ncc(c, r, range: 0..<min(r.count, c.count - lag), lag: lag)
            if score > best.score { best = (lag, score) }
        }
        return bestLag(captured, reference, range: 0..<head, around: best.lag * factor, radius: 2 * factor).lag
    }

    private static func bestLag(_ captured: [Float], _ reference: [Float], range: Range<Int>, around: Int, radius: Int) -> (lag: Int, score: Double) {
        var best = (lag: around, score: -Double.infinity)
        for lag in (around - radius)...(around + radius) {
            let score = ncc(captured, reference, range: range, lag: lag)
            if score > best.score { best = (lag, score) }
        }
        return best
    }

    /// NCC of `reference[range]` against `captured[i + lag]`; the part of `range` outside the recording counts as
    /// silence there.
    static func ncc(_ captured: [Float], _ reference: [Float], range: Range<Int>, lag: Int) -> Double {
        var ab = 0.0, aa = 0.0, bb = 0.0
        captured.withUnsafeBufferPointer { a in
            reference.withUnsafeBufferPointer { b in
                for i in range {
                    let y = Double(b[i])
                    bb += y * y
                    let j = i + lag
                    guard j >= 0, j < a.count else { continue }
                    let x = Double(a[j])
                    ab += x * y
                    aa += x * x
                }
            }
        }
        return aa > 0 && bb > 0 ? ab / (aa * bb).squareRoot() : 0
    }

    private static func rms(_ x: [Float], _ range: Range<Int>) -> Double {
        guard !range.isEmpty else { return 0 }
        return (range.reduce(0.0) { $0 + Double(x[$1] * x[$1]) } / Double(range.count)).squareRoot()
    }
}
