import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Finds what holds Swift's cooperative threads during a test run: set `AURAL_STALL_DIR` to a folder, and a thread
/// sends a task to the pool every 100 ms and times how long it waits to run.
///
/// Each wait over 0.2 s is one line of `stalls.log` in that folder (when it began and how long it lasted). With
/// `AURAL_STALL_GDB` set too, a wait past 3 s also writes every thread's backtrace (`gdb -p`) to `stall-N.txt`: the
/// cooperative threads' frames in the tests name the work that held them. gdb stops the process while it writes,
/// so timing tests may fail in such a run. `HeavyWorkTrait` starts the watch; nothing runs without the variable.
///
/// ```sh
/// mkdir -p /tmp/stalls
/// AURAL_STALL_DIR=/tmp/stalls scripts/with-pulse swift test -c release … --skip LiveMicrophone
/// cat /tmp/stalls/stalls.log
/// ```
public enum PoolStallWatch {
    /// Starts the watch once, if `AURAL_STALL_DIR` is set; true when it runs.
    public static let started: Bool = {
        let environment = ProcessInfo.processInfo.environment
        guard let folder = environment["AURAL_STALL_DIR"] else { return false }
        let dumpsBacktraces = environment["AURAL_STALL_GDB"] != nil
        let thread = Thread { watch(folder: URL(fileURLWithPath: folder), dumpsBacktraces: dumpsBacktraces) }
        thread.name = "pool stall watch"
        thread.start()
        return true
    }()

    private static func watch(folder: URL, dumpsBacktraces: Bool) {
        var stalls = 0
        while true {
            Thread.sleep(forTimeInterval: 0.1)
            let ran = DispatchSemaphore(value: 0)
            let sent = Date()
            Task.detached { ran.signal() }
            guard ran.wait(timeout: .now() + 0.2) == .timedOut else { continue }
            stalls += 1
            if ran.wait(timeout: .now() + 2.8) == .timedOut {
                if dumpsBacktraces && stalls <= 40 {
                    dumpBacktraces(to: folder.appendingPathComponent("stall-\(stalls).txt"))
                }
                ran.wait()
            }
            append("stall \(stalls) at \(sent): \(Date().timeIntervalSince(sent)) s\n", to: folder.appendingPathComponent("stalls.log"))
        }
    }

    private static func dumpBacktraces(to file: URL) {
        guard FileManager.default.createFile(atPath: file.path, contents: nil),
              let output = try? FileHandle(forWritingTo: file) else { return }
        defer { try? output.close() }
        let gdb = Process()
        gdb.executableURL = URL(fileURLWithPath: "/usr/bin/gdb")
        gdb.arguments = ["-p", "\(getpid())", "-batch", "-ex", "set pagination off", "-ex", "thread apply all bt 60"]
        gdb.standardOutput = output
        gdb.standardError = output
        guard (try? gdb.run()) != nil else { return }
        gdb.waitUntilExit()
    }

    private static func append(_ line: String, to file: URL) {
        if let handle = try? FileHandle(forWritingTo: file) {
            defer { try? handle.close() }
            _ = try? handle.seekToEnd()
            try? handle.write(contentsOf: Data(line.utf8))
        } else {
            try? Data(line.utf8).write(to: file)
        }
    }
}
