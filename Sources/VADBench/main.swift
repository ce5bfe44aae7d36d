// aural-vad-bench: the speed of SileroVAD on one thread, as a real-time factor (seconds of audio per second of the
// thread's CPU time, and per second of wall-clock time, which other processes' load lowers). `scripts/vad-bench` builds and runs it; not a test, since its numbers depend on the machine.
import AuralAudio
import AuralVAD
import Foundation

let usage = "usage: aural-vad-bench [--weights FILE] [--repeats N] FILE..."
var weights: URL?
var repeats = 5
var files: [String] = []
var arguments = Array(CommandLine.arguments.dropFirst())
while let argument = arguments.first {
    arguments.removeFirst()
    switch argument {
    case "--weights" where !arguments.isEmpty: weights = URL(fileURLWithPath: arguments.removeFirst())
    case "--repeats" where !arguments.isEmpty: repeats = Int(arguments.removeFirst()) ?? repeats
    case "-h", "--help":
        print(usage)
        exit(0)
    default: files.append(argument)
    }
}
guard !files.isEmpty, let weights, repeats > 0 else {
    FileHandle.standardError.write(Data((usage + "\n(--weights is required: scripts/vad-bench passes the installed file)\n").utf8))
    exit(2)
}

/// The CPU time this thread has used, in seconds: what the detector costs, apart from other processes' load.
func threadCPUSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

do {
    let vad = try SileroVAD(contentsOf: weights)
    var audioSeconds = 0.0, computeSeconds = 0.0, wallSeconds = 0.0
    for file in files {
        let samples = try AudioFileLoader.loadMono16k(url: URL(fileURLWithPath: file))
        let seconds = Double(samples.count) / Double(SileroVAD.sampleRate)
        _ = vad.probabilities(for: Array(samples.prefix(SileroVAD.sampleRate)))  // warm up caches
        var best = Double.infinity, bestWall = Double.infinity
        for _ in 0..<repeats {
            let start = threadCPUSeconds(), startWall = DispatchTime.now().uptimeNanoseconds
            let probabilities = vad.probabilities(for: samples)
            let elapsed = threadCPUSeconds() - start
            bestWall = min(bestWall, Double(DispatchTime.now().uptimeNanoseconds - startWall) / 1e9)
            precondition(probabilities.count == (samples.count + 511) / 512)
            best = min(best, elapsed)
        }
        audioSeconds += seconds
        computeSeconds += best
        wallSeconds += bestWall
        let chunks = (samples.count + 511) / 512
        print(String(format: "%@: %.1f s of audio in %.1f ms of CPU time (best of %d): %.0f× real time, %.1f µs per chunk; wall clock %.0f×",
                     (file as NSString).lastPathComponent, seconds, best * 1000, repeats, seconds / best, best * 1e6 / Double(chunks), seconds / bestWall))
    }
    print(String(format: "all: %.0f× real time on one thread (CPU time; wall clock %.0f×)", audioSeconds / computeSeconds, audioSeconds / wallSeconds))
} catch {
    FileHandle.standardError.write(Data("aural-vad-bench: \(error.localizedDescription)\n".utf8))
    exit(1)
}
