import AuralAudio
import Foundation
import Testing

@Suite("AudioDeviceError")
struct AudioDeviceErrorTests {
    static let allCases: [AudioDeviceError] = [
        .noSoundServer(server: "unix:/run/user/1000/pulse/native", reason: "Connection refused"),
        .deviceNotFound(name: "alsa_input.usb-mic"),
        .deviceDisappeared(name: "alsa_input.usb-mic"),
        .connectionLost(reason: "The server closed the connection: Connection terminated."),
        .streamFailed(device: "alsa_input.usb-mic", reason: "Invalid argument"),
        .serverNotResponding(seconds: 2),
    ]

    @Test("every case has a description, a failure reason and a recovery suggestion", arguments: allCases)
    func everyCaseIsExplained(_ error: AudioDeviceError) {
        #expect(error.errorDescription?.isEmpty == false)
        #expect(error.failureReason?.isEmpty == false)
        #expect(error.recoverySuggestion?.isEmpty == false)
    }

    @Test("device errors name the device, and the server error says where it looked and how to start one")
    func evidenceIsShown() {
        for error in Self.allCases {
            switch error {
            case .deviceNotFound(let name):
                #expect(error.errorDescription?.contains(name) == true)
                #expect(error.recoverySuggestion?.contains("AudioDevices.list()") == true, "names the API that lists devices")
            case .deviceDisappeared(let name), .streamFailed(let name, _):
                #expect(error.errorDescription?.contains(name) == true)
            case .noSoundServer(let server, let reason):
                #expect(error.failureReason?.contains(server) == true && error.failureReason?.contains(reason) == true)
                #expect(error.recoverySuggestion?.contains("pipewire-pulse") == true)
            case .connectionLost(let reason):
                #expect(error.failureReason == reason)
            case .serverNotResponding(let seconds):
                #expect(error.failureReason?.contains("\(Int(seconds)) s") == true)
                #expect(error.recoverySuggestion?.contains("reconnects") == true)
            }
        }
    }
}
