import Foundation

extension Process {
    /// Starts the process with no signal blocked, as a shell would start it.
    ///
    /// A child inherits the signal mask of the thread that spawns it, and Foundation's `run()` keeps it. Tests run
    /// on Swift's cooperative threads, which block nearly every signal (SIGCHLD, SIGHUP and SIGTERM among them).
    /// A tmux server started that way never reaped its window's shell, so `kill-server` left it running, one per
    /// terminal test; a child could not be stopped with SIGTERM. This unblocks the signals on the calling thread
    /// for the spawn only.
    public func runWithDefaultSignals() throws {
        var none = sigset_t()
        var previous = sigset_t()
        sigemptyset(&none)
        pthread_sigmask(SIG_SETMASK, &none, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        try run()
    }

    /// Waits for the process to end and returns its status: the exit code, or 128 + the signal that killed it.
    ///
    /// Foundation's `waitUntilExit` on Linux can miss a child's exit (seen with a server killed by SIGKILL while
    /// many tests spawn processes: the child stays a zombie and the wait spins forever). This polls `isRunning` for
    /// `grace` seconds and then reaps the child itself.
    @discardableResult
    public func waitForExit(grace: TimeInterval = 10) -> Int32 {
        if !Poll.blockingUntil(timeout: grace, { !isRunning }) {
            var status: Int32 = 0
            var result: Int32
            repeat { result = waitpid(processIdentifier, &status, 0) } while result == -1 && errno == EINTR
            if result == processIdentifier {
                return status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
            }
            while isRunning { usleep(5_000) }  // Foundation reaped it first
        }
        return terminationReason == .uncaughtSignal ? 128 + terminationStatus : terminationStatus
    }

    /// Waits at most `timeout` seconds for the process to end and returns its status (as `waitForExit` does), or nil
    /// while it still runs. An exit that Foundation missed (the child a zombie, `isRunning` still true) is noticed
    /// with `waitpid(WNOHANG)`, which then reaps the child: read the status from here, not from `terminationStatus`.
    public func exitStatus(within timeout: TimeInterval) -> Int32? {
        var reaped: Int32?
        let ended = Poll.blockingUntil(timeout: timeout, every: .milliseconds(2)) {
            if !isRunning { return true }
            var status: Int32 = 0
            guard waitpid(processIdentifier, &status, WNOHANG) == processIdentifier else { return false }
            reaped = status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
            return true
        }
        guard ended else { return nil }
        if let reaped { return reaped }
        return terminationReason == .uncaughtSignal ? 128 + terminationStatus : terminationStatus
    }
}
