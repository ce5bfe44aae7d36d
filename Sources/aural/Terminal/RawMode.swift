import Foundation
import Synchronization

/// Standard input in raw mode while `aural listen` reads keys: no echo, no line editing, and Ctrl-C arrives as a
/// key (byte 3) instead of a signal, so it can stop the session with the flush.
///
/// ```swift
/// guard RawMode.enable() else { return }    // false when standard input is not a terminal
/// defer { RawMode.restore() }
/// ```
///
/// The terminal's settings are restored on every way out: `restore()` (normal end and errors), `exit()` (an
/// `atexit` handler), and fatal signals (a handler restores, then lets the signal kill the process as before).
/// `SIGINT`, `SIGTERM` and `SIGHUP` sent from outside are the caller's to handle (`SignalEvents`), since they
/// should stop the session cleanly.
enum RawMode {
    /// The settings before `enable()`, while raw mode is on.
    private static let saved = Mutex<termios?>(nil)
    /// The same settings for the fatal-signal handler, which may not take a lock.
    private nonisolated(unsafe) static var savedForSignal = termios()
    private nonisolated(unsafe) static var savedForSignalIsSet = false
    private static let handlersInstalled = Mutex(false)

    /// Shows the cursor again and resets colours.
    private static let resetSequence = "\u{1B}[0m\u{1B}[?25h"
    private static let hideCursor = "\u{1B}[?25l"

    /// Puts standard input into raw mode and hides the cursor on standard output; false (nothing changed) when
    /// standard input is not a terminal.
    static func enable() -> Bool {
        var original = termios()
        guard isatty(STDIN_FILENO) == 1, tcgetattr(STDIN_FILENO, &original) == 0 else { return false }
        var raw = original
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO | ISIG | IEXTEN)
        raw.c_iflag &= ~tcflag_t(IXON | ICRNL)
        withUnsafeMutableBytes(of: &raw.c_cc) { bytes in
            bytes[Int(VMIN)] = 1
            bytes[Int(VTIME)] = 0
        }
        saved.withLock { if $0 == nil { $0 = original } }
        savedForSignal = original
        savedForSignalIsSet = true
        installHandlers()
        guard tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0 else {
            restore()
            return false
        }
        TerminalOutput.write(hideCursor)
        return true
    }

    /// Restores the settings `enable()` changed and shows the cursor. Safe to call more than once, or without
    /// `enable()`.
    static func restore() {
        guard var original = saved.withLock({ state -> termios? in
            defer { state = nil }
            return state
        }) else { return }
        savedForSignalIsSet = false
        tcsetattr(STDIN_FILENO, TCSANOW, &original)
        TerminalOutput.write(resetSequence)
    }

    private static func installHandlers() {
        let first = handlersInstalled.withLock { installed in
            defer { installed = true }
            return !installed
        }
        guard first else { return }
        atexit { RawMode.restore() }
        for fatal in [SIGSEGV, SIGBUS, SIGILL, SIGABRT, SIGFPE, SIGTRAP, SIGQUIT] {
            signal(fatal) { number in
                // Only async-signal-safe calls: tcsetattr and write.
                if RawMode.savedForSignalIsSet {
                    tcsetattr(STDIN_FILENO, TCSANOW, &RawMode.savedForSignal)
                    let reset: StaticString = "\u{1B}[0m\u{1B}[?25h\r\n"
                    _ = Glibc.write(STDOUT_FILENO, reset.utf8Start, reset.utf8CodeUnitCount)
                }
                signal(number, SIG_DFL)
                raise(number)
            }
        }
    }
}
