import CKernels

/// One build of the engine's C kernels (the `CKernels` target): the build for the CPU's level, chosen once per
/// process, or, in tests, the build for a lower level.
struct KernelSet: @unchecked Sendable {  // a pointer to a C constant that nothing writes
    /// The table of kernel functions.
    let table: UnsafePointer<ck_kernels>

    /// The build for `level`; the caller makes sure the CPU has that level's instructions.
    init(level: CPUFeatures.Level) {
        table = ck_select(Int32(level.rawValue))
    }

    /// The build for `CPUFeatures.current.level`, which every kernel call uses unless told otherwise.
    static let active = KernelSet(level: CPUFeatures.current.level)

    /// The level the table was built for (the baseline where the architecture has no other build).
    var level: CPUFeatures.Level { CPUFeatures.Level(rawValue: Int(table.pointee.level)) ?? .baseline }
}
