import Foundation

/// Writes to standard output without buffering, and reads the terminal's size.
enum TerminalOutput {
    /// Writes all of `text` to standard output now (retrying short writes and interruptions).
    static func write(_ text: String) {
        write(text, to: STDOUT_FILENO)
    }

    /// Writes all of `text` to `descriptor` now.
    static func write(_ text: String, to descriptor: Int32) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { buffer in
                Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
            }
            if written < 0 {
                if errno == EINTR { continue }
                return
            }
            offset += written
        }
    }

    /// The terminal's columns and rows, or nil when standard output is not a terminal.
    static func size() -> (width: Int, height: Int)? {
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 else { return nil }
        return (Int(size.ws_col), Int(size.ws_row))
    }
}
