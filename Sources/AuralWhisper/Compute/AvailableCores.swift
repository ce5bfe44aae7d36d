import CKernels
import Foundation

/// The cores this process may run on: the CPUs its affinity mask allows (`taskset`, `systemd`'s `CPUAffinity=`,
/// `docker --cpuset-cpus`), at most its cgroup's CPU quota rounded up (`cpu.max`: a Kubernetes CPU limit, systemd's
/// `CPUQuota=`). `ProcessInfo.activeProcessorCount` counts every online CPU, so two replicas pinned to one core each
/// would each start a thread per CPU of the machine and take turns on their core.
public enum AvailableCores {
    /// The count, read once (at least 1).
    public static let count: Int = {
        var cores = affinityCount() ?? ProcessInfo.processInfo.activeProcessorCount
        if let quota = cgroupQuota() { cores = min(cores, Int(quota.rounded(.up))) }
        return max(1, cores)
    }()

    /// CPUs in the calling thread's affinity mask, or nil when it cannot be read.
    static func affinityCount() -> Int? {
        let count = Int(ck_affinity_cpu_count())
        return count > 0 ? count : nil
    }

    /// The cgroup v2 quota in cores (`cpu.max` is "QUOTA PERIOD" or "max PERIOD"), or nil without one.
    static func cgroupQuota(file: String = "/sys/fs/cgroup/cpu.max") -> Double? {
        guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { return nil }
        return quota(cpuMax: text)
    }

    /// The cores a `cpu.max` line allows, or nil for no limit.
    static func quota(cpuMax text: String) -> Double? {
        let fields = text.split(whereSeparator: \.isWhitespace)
        guard fields.count == 2, let quota = Double(fields[0]), let period = Double(fields[1]), quota > 0, period > 0
        else { return nil }
        return quota / period
    }
}
