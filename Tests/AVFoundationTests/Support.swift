import AVFoundation
import Foundation
import TestSupport

/// The shared fixtures (`TestSupport.Fixtures`), named in this target so that its files need no import.
typealias Fixtures = TestSupport.Fixtures

/// Small helpers the AVFoundation tests share.
enum TestAudio {
    /// A path in the temporary directory that does not exist yet, ending in `.extension`.
    static func temporaryURL(extension: String = "wav") -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("AVFoundationTests-\(UUID().uuidString).\(`extension`)")
    }

    /// A buffer of `format` holding `channels` (one array per channel, all of one length).
    static func buffer(_ format: AVAudioFormat, channels: [[Float]]) -> AVAudioPCMBuffer {
        let frames = channels.first?.count ?? 0
        let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: AVAudioFrameCount(frames))!
        buffer.frameLength = AVAudioFrameCount(frames)
        for (channel, samples) in channels.enumerated() {
            for (frame, sample) in samples.enumerated() {
                set(buffer, channel: channel, frame: frame, to: sample)
            }
        }
        return buffer
    }

    /// One sample through the public channel data, as an app writes it (integers rounded and clipped).
    static func set(_ buffer: AVAudioPCMBuffer, channel: Int, frame: Int, to value: Float) {
        let index = frame * buffer.stride
        let plane = buffer.format.isInterleaved ? 0 : channel
        let offset = buffer.format.isInterleaved ? channel : 0
        if let data = buffer.floatChannelData {
            data[plane][index + offset] = value
        } else if let data = buffer.int16ChannelData {
            data[plane][index + offset] = Int16(min(max((value * 32_768).rounded(), -32_768), 32_767))
        } else if let data = buffer.int32ChannelData {
            data[plane][index + offset] = Int32(min(max((Double(value) * 2_147_483_648).rounded(), -2_147_483_648), 2_147_483_647))
        }
    }

    /// The buffer's valid frames of `channel`, through the public channel data, scaled to -1...1.
    static func samples(_ buffer: AVAudioPCMBuffer, channel: Int = 0) -> [Float] {
        let plane = buffer.format.isInterleaved ? 0 : channel
        let offset = buffer.format.isInterleaved ? channel : 0
        return (0..<Int(buffer.frameLength)).map { frame in
            let index = frame * buffer.stride + offset
            if let data = buffer.floatChannelData { return data[plane][index] }
            if let data = buffer.int16ChannelData { return Float(data[plane][index]) / 32_768 }
            if let data = buffer.int32ChannelData { return Float(Double(data[plane][index]) / 2_147_483_648) }
            return .nan
        }
    }
}

/// Runs a program to its end and returns its exit status and what it wrote. The output goes through a file, not a
/// pipe: a pipe's write end can leak into a process another test spawns meanwhile, and then its end never comes.
enum TestProcess {
    static func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil, grace: TimeInterval = 1)
        throws -> (status: Int32, output: String) {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("AVFoundationTests-\(UUID().uuidString).log")
        guard FileManager.default.createFile(atPath: log.path, contents: nil) else { throw CocoaError(.fileWriteUnknown) }
        defer { try? FileManager.default.removeItem(at: log) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        let output = try FileHandle(forWritingTo: log)
        process.standardOutput = output
        process.standardError = output
        try process.runWithDefaultSignals()
        // Foundation may miss the exit of a child while other tests spawn processes; after `grace`, reap it directly.
        let status = process.waitForExit(grace: grace)
        try output.close()
        return (status, String(decoding: try Data(contentsOf: log), as: UTF8.self))
    }

    /// A failure of a program a test runs.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }
}
