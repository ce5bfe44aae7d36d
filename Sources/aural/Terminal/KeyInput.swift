import Foundation

/// Key presses from standard input, one byte at a time, read on a thread of their own (reading blocks).
enum KeyInput {
    /// Space: pause or resume.
    static let space: UInt8 = 0x20
    /// Ctrl-C in raw mode.
    static let controlC: UInt8 = 0x03
    /// Ctrl-D in raw mode.
    static let controlD: UInt8 = 0x04

    /// The bytes typed from now on; the stream ends when standard input ends. The reading thread lives until then
    /// (or until the process exits), since a blocking read cannot be cancelled.
    static func bytes() -> AsyncStream<UInt8> {
        AsyncStream { continuation in
            let thread = Thread {
                var byte: UInt8 = 0
                while true {
                    let count = read(STDIN_FILENO, &byte, 1)
                    if count == 1 {
                        continuation.yield(byte)
                    } else if count < 0 && errno == EINTR {
                        continue
                    } else {
                        break
                    }
                }
                continuation.finish()
            }
            thread.name = "aural keys"
            thread.start()
        }
    }
}
