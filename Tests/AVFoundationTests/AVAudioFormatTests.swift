import AVFoundation
import Testing

@Suite("AVAudioFormat")
struct AVAudioFormatTests {
    @Test("the standard format is 32-bit float, deinterleaved, at the given rate and channel count")
    func standardFormat() throws {
        let format = try #require(AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2))
        #expect(format.sampleRate == 48_000)
        #expect(format.channelCount == 2)
        #expect(format.commonFormat == .pcmFormatFloat32)
        #expect(!format.isInterleaved)
        #expect(format.isStandard)
        #expect(format.description == "<AVAudioFormat: 2 ch, 48000 Hz, Float32, deinterleaved>")
    }

    @Test("a common format keeps its sample type and layout; only the standard one is standard")
    func commonFormats() throws {
        let int16 = try #require(AVAudioFormat(commonFormat: .pcmFormatInt16, sampleRate: 16_000, channels: 2, interleaved: true))
        #expect(int16.commonFormat == .pcmFormatInt16)
        #expect(int16.isInterleaved)
        #expect(!int16.isStandard)
        #expect(int16.description == "<AVAudioFormat: 2 ch, 16000 Hz, Int16, interleaved>")
        let interleavedFloat = try #require(
            AVAudioFormat(commonFormat: .pcmFormatFloat32, sampleRate: 16_000, channels: 2, interleaved: true))
        #expect(!interleavedFloat.isStandard)
    }

    @Test("formats that cannot exist are nil", arguments: [
        (AVAudioCommonFormat.otherFormat, 16_000.0, AVAudioChannelCount(1)),
        (.pcmFormatFloat32, 16_000, 0),
        (.pcmFormatFloat32, 0, 1),
        (.pcmFormatInt16, -8_000, 1),
        (.pcmFormatInt16, .nan, 1),
    ])
    func impossibleFormats(format: AVAudioCommonFormat, rate: Double, channels: AVAudioChannelCount) {
        #expect(AVAudioFormat(commonFormat: format, sampleRate: rate, channels: channels, interleaved: false) == nil)
    }

    @Test("more than two channels need no channel layout on Linux")
    func manyChannels() throws {
        let format = try #require(AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 6))
        #expect(format.channelCount == 6)
    }

    @Test("equality compares every field")
    func equality() throws {
        let a = try #require(AVAudioFormat(standardFormatWithSampleRate: 16_000, channels: 1))
        let b = try #require(AVAudioFormat(commonFormat: .pcmFormatFloat32, sampleRate: 16_000, channels: 1, interleaved: false))
        #expect(a == b)
        #expect(a.isEqual(b))
        #expect(a.hash == b.hash)
        #expect(a != AVAudioFormat(standardFormatWithSampleRate: 16_000, channels: 2))
        #expect(a != AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 1))
        #expect(a != AVAudioFormat(commonFormat: .pcmFormatInt16, sampleRate: 16_000, channels: 1, interleaved: false))
        #expect(!a.isEqual("16 kHz"))
        #expect(Set([a, b]).count == 1)
    }

    @Test("settings describe the format, with values readable as Double, Int and Bool")
    func settingsOut() throws {
        let format = try #require(AVAudioFormat(commonFormat: .pcmFormatInt16, sampleRate: 44_100, channels: 2, interleaved: true))
        let settings = format.settings
        #expect(settings[AVFormatIDKey] as? UInt32 == kAudioFormatLinearPCM)
        #expect(settings[AVSampleRateKey] as? Double == 44_100)
        #expect(settings[AVSampleRateKey] as? Int == 44_100)
        #expect(settings[AVNumberOfChannelsKey] as? Int == 2)
        #expect(settings[AVLinearPCMBitDepthKey] as? Int == 16)
        #expect(settings[AVLinearPCMIsFloatKey] as? Bool == false)
        #expect(settings[AVLinearPCMIsBigEndianKey] as? Bool == false)
        #expect(settings[AVLinearPCMIsNonInterleaved] as? Bool == false)
        #expect(kAudioFormatLinearPCM == 0x6C70_636D)  // 'lpcm'
    }

    @Test("a format made from its own settings equals it", arguments: [
        (AVAudioCommonFormat.pcmFormatFloat32, false), (.pcmFormatFloat64, true), (.pcmFormatInt16, true), (.pcmFormatInt32, false),
    ])
    func settingsRoundTrip(common: AVAudioCommonFormat, interleaved: Bool) throws {
        let format = try #require(AVAudioFormat(commonFormat: common, sampleRate: 22_050, channels: 3, interleaved: interleaved))
        #expect(AVAudioFormat(settings: format.settings) == format)
    }

    @Test("settings as apps write them: Swift numbers, defaults for what is left out")
    func settingsIn() throws {
        let wav = try #require(AVAudioFormat(settings: [
            AVFormatIDKey: Int(kAudioFormatLinearPCM), AVSampleRateKey: 16_000, AVNumberOfChannelsKey: 1,
            AVLinearPCMBitDepthKey: 16, AVLinearPCMIsFloatKey: false,
        ]))
        #expect(wav.commonFormat == .pcmFormatInt16)
        #expect(wav.sampleRate == 16_000)
        #expect(wav.isInterleaved)
        let float = try #require(AVAudioFormat(settings: [AVSampleRateKey: 48_000.0, AVNumberOfChannelsKey: 2, AVLinearPCMIsFloatKey: true]))
        #expect(float.commonFormat == .pcmFormatFloat32)
        let planar = try #require(AVAudioFormat(settings: [
            AVSampleRateKey: 8_000, AVNumberOfChannelsKey: 2, AVLinearPCMIsNonInterleaved: true,
        ]))
        #expect(!planar.isInterleaved)
        #expect(planar.commonFormat == .pcmFormatInt16)
        let packed24 = try #require(AVAudioFormat(settings: [AVSampleRateKey: 48_000, AVNumberOfChannelsKey: 1, AVLinearPCMBitDepthKey: 24]))
        #expect(packed24.commonFormat == .otherFormat)
        #expect(packed24.settings[AVLinearPCMBitDepthKey] as? Int == 24)
    }

    @Test("settings that describe no linear PCM format give nil")
    func unsupportedSettings() {
        let aac: UInt32 = 0x6161_6320  // 'aac '
        #expect(AVAudioFormat(settings: [AVFormatIDKey: aac, AVSampleRateKey: 44_100, AVNumberOfChannelsKey: 2]) == nil)
        #expect(AVAudioFormat(settings: [AVNumberOfChannelsKey: 2]) == nil)
        #expect(AVAudioFormat(settings: [AVSampleRateKey: 44_100]) == nil)
        #expect(AVAudioFormat(settings: [AVSampleRateKey: 44_100, AVNumberOfChannelsKey: 1, AVLinearPCMIsBigEndianKey: true]) == nil)
        #expect(AVAudioFormat(settings: [AVSampleRateKey: 44_100, AVNumberOfChannelsKey: 1, AVLinearPCMBitDepthKey: 12]) == nil)
    }
}
