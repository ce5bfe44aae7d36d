import AVFoundation
import Testing

@Suite("AVAudioPCMBuffer")
struct AVAudioPCMBufferTests {
    @Test("a deinterleaved float buffer has one zeroed block per channel and stride 1")
    func deinterleaved() throws {
        let format = try #require(AVAudioFormat(standardFormatWithSampleRate: 16_000, channels: 2))
        let buffer = try #require(AVAudioPCMBuffer(pcmFormat: format, frameCapacity: 480))
        #expect(buffer.frameCapacity == 480)
        #expect(buffer.frameLength == 0)
        #expect(buffer.stride == 1)
        #expect(buffer.format == format)
        let data = try #require(buffer.floatChannelData)
        #expect(buffer.int16ChannelData == nil)
        #expect(buffer.int32ChannelData == nil)
        #expect((0..<480).allSatisfy { data[0][$0] == 0 && data[1][$0] == 0 })
        #expect(data[1] - data[0] >= 480)  // separate blocks, room for every frame
        data[1][479] = 0.5
        buffer.frameLength = 480
        #expect(TestAudio.samples(buffer, channel: 1).last == 0.5)
        #expect(TestAudio.samples(buffer, channel: 0).last == 0)
    }

    @Test("an interleaved buffer has one block of frames and stride equal to the channel count")
    func interleaved() throws {
        let format = try #require(AVAudioFormat(commonFormat: .pcmFormatInt16, sampleRate: 48_000, channels: 2, interleaved: true))
        let buffer = TestAudio.buffer(format, channels: [[0.25, -0.5], [0.5, 1]])
        #expect(buffer.stride == 2)
        let data = try #require(buffer.int16ChannelData)
        #expect(buffer.floatChannelData == nil)
        // Frame by frame: left, right, left, right; 1.0 is clipped to 32767.
        #expect(Array(UnsafeBufferPointer(start: data[0], count: 4)) == [8_192, 16_384, -16_384, 32_767])
    }

    @Test("32-bit integer buffers expose int32ChannelData")
    func int32() throws {
        let format = try #require(AVAudioFormat(commonFormat: .pcmFormatInt32, sampleRate: 8_000, channels: 1, interleaved: false))
        let buffer = TestAudio.buffer(format, channels: [[-1, 0.5]])
        let data = try #require(buffer.int32ChannelData)
        #expect(data[0][0] == Int32.min)
        #expect(data[0][1] == 1 << 30)
    }

    @Test("frameLength may be set up to the capacity")
    func frameLength() throws {
        let format = try #require(AVAudioFormat(standardFormatWithSampleRate: 16_000, channels: 1))
        let buffer = try #require(AVAudioPCMBuffer(pcmFormat: format, frameCapacity: 100))
        buffer.frameLength = 100
        #expect(buffer.frameLength == 100)
        buffer.frameLength = 3
        #expect(buffer.frameLength == 3)
    }

    @Test("a buffer of a format that is not a common PCM format cannot be made")
    func otherFormat() throws {
        let packed24 = try #require(AVAudioFormat(settings: [AVSampleRateKey: 48_000, AVNumberOfChannelsKey: 1, AVLinearPCMBitDepthKey: 24]))
        #expect(AVAudioPCMBuffer(pcmFormat: packed24, frameCapacity: 10) == nil)
    }

    @Test("a buffer crosses tasks: AnalyzerInput-style hand-off compiles and keeps the samples")
    func sendable() async throws {
        let format = try #require(AVAudioFormat(standardFormatWithSampleRate: 16_000, channels: 1))
        let buffer = TestAudio.buffer(format, channels: [[0.125, 0.25]])
        let received = await Task.detached { TestAudio.samples(buffer) }.value
        #expect(received == [0.125, 0.25])
    }
}

@Suite("AVAudioTime")
struct AVAudioTimeTests {
    @Test("a sample time has no host time, and the other way round")
    func validity() {
        let sample = AVAudioTime(sampleTime: 16_000, atRate: 16_000)
        #expect(sample.isSampleTimeValid && !sample.isHostTimeValid)
        #expect(sample.sampleTime == 16_000 && sample.sampleRate == 16_000)
        let host = AVAudioTime(hostTime: 42)
        #expect(host.isHostTimeValid && !host.isSampleTimeValid)
        #expect(host.hostTime == 42)
        let both = AVAudioTime(hostTime: 7, sampleTime: 8, atRate: 48_000)
        #expect(both.isHostTimeValid && both.isSampleTimeValid)
    }

    @Test("host time converts to and from seconds")
    func hostSeconds() {
        #expect(AVAudioTime.hostTime(forSeconds: 1.5) == 1_500_000_000)
        #expect(AVAudioTime.seconds(forHostTime: 250_000_000) == 0.25)
    }
}
