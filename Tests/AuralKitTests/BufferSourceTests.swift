import AuralKit
import Foundation
import Synchronization
import TestSupport
import Testing

/// The test source that session tests play recordings through; this file imports only AuralKit of the library, so
/// it also shows that `AudioSource` and `AudioBuffer` need nothing else.
@Suite("BufferSource")
struct BufferSourceTests {
    /// Every buffer of a source's stream, with the seconds since `start()` at which each arrived.
    static func collect(_ source: any AudioSource) async throws -> [(buffer: AudioBuffer, at: TimeInterval)] {
        let started = ContinuousClock.now
        var buffers: [(AudioBuffer, TimeInterval)] = []
        for try await buffer in try source.start() { buffers.append((buffer, started.secondsAgo)) }
        return buffers
    }

    @Test("plays a recording in 100 ms buffers of 16 kHz mono, with start times, then finishes",
          .requiresFixtures(audio: ["beckett.wav"]))
    func playsRecording() async throws {
        let samples = try Fixtures.samples("beckett.wav")
        let buffers = try await Self.collect(BufferSource(samples: samples)).map(\.buffer)
        #expect(buffers.count == (samples.count + 1_599) / 1_600)
        #expect(buffers.allSatisfy { $0.format == AudioFormat(sampleRate: 16_000, channelCount: 1) })
        #expect(buffers.dropLast().allSatisfy { $0.frameCount == 1_600 })
        #expect(buffers.enumerated().allSatisfy { abs($0.element.startTime - Double($0.offset) * 0.1) < 1e-9 })
        #expect(buffers.flatMap(\.samples) == samples)
    }

    @Test("in real time a buffer arrives when its audio would have been recorded")
    func pacesLikeALiveInput() async throws {
        let source = BufferSource(samples: [Float](repeating: 0.25, count: 8_000), chunkDuration: 0.1, realTime: true)
        let arrivals = try await Self.collect(source)
        #expect(arrivals.count == 5)
        for (index, arrival) in arrivals.enumerated() {
            let due = Double(index + 1) * 0.1
            #expect(arrival.at >= due - 0.01, "buffer \(index) came at \(arrival.at) s, due at \(due) s")
        }
    }

    @Test("stop() ends the stream early, the failure is thrown after the last buffer, and start() plays again")
    func stopsAndFails() async throws {
        // 10 s of audio in real time, stopped from a task of its own after a quarter of a second: buffers already
        // made still arrive, but none holds audio from after the stop. The stop keeps time at high priority, which
        // Swift on Linux runs on threads of its own, apart from the default-priority jobs of the other suites.
        let live = BufferSource(samples: [Float](repeating: 0, count: 160_000), realTime: true)
        let started = ContinuousClock.now
        let stoppedAt = Mutex<TimeInterval?>(nil)
        let stream = try live.start()
        Task(priority: .high) {
            try? await Task.sleep(for: .milliseconds(250))
            stoppedAt.withLock { $0 = started.secondsAgo }
            live.stop()
        }
        var buffers: [AudioBuffer] = []
        for try await buffer in stream { buffers.append(buffer) }
        let stop = try #require(stoppedAt.withLock { $0 })
        let end = try #require(buffers.last.map { $0.startTime + $0.duration })
        #expect(end <= stop + 0.1 + 0.05, "the last buffer ends at \(end) s of audio; stop() came at \(stop) s")
        #expect(buffers.count < 100)

        struct Unplugged: Error {}
        let failing = BufferSource(samples: [Float](repeating: 0, count: 4_000), failure: Unplugged())
        var received = 0
        do {
            for try await _ in try failing.start() { received += 1 }
            Issue.record("the stream finished without the failure")
        } catch {
            #expect(error is Unplugged)
        }
        #expect(received == 3)
        #expect(try await Self.collect(BufferSource(samples: [1, 2, 3])).flatMap(\.buffer.samples) == [1, 2, 3])
    }
}
