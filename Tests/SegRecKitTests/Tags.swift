import Testing

/// Tags for running part of the suite: `swift test --filter` takes names; Xcode and
/// `swift test --skip` / tag-aware runners take these. Each suite carries its area's tag, and
/// `.crashSafety` or `.slow` where they apply.
extension Tag {
    /// The camera models: Center Stage, iPhone Duo cameras, orientation, formats.
    @Tag static var cameras: Self
    /// The capture session, devices, output and sensors.
    @Tag static var capture: Self
    /// Failure cases from real-world reports (`../shared/cases`, skipped when absent).
    @Tag static var cases: Self
    /// The `segrec` binary and its argument parsing, messages and exit codes.
    @Tag static var commandLine: Self
    /// Kill, power loss, full disks, interrupted recordings and their recovery, folder safety.
    @Tag static var crashSafety: Self
    /// `segrec export` and `segrec report`.
    @Tag static var export: Self
    /// Footage passed through: decoding, damage, real samples.
    @Tag static var footage: Self
    /// FFmpeg-backed writing, reading, decoding and scaling.
    @Tag static var media: Self
    /// The recorder: segments, completions, the manifest, the session and push API.
    @Tag static var recording: Self
    /// Scenario files: decoding and validation.
    @Tag static var scenario: Self
    /// Suites that take more than about 30 s on a 2-core machine.
    @Tag static var slow: Self
    /// Exact time arithmetic and clock conversion.
    @Tag static var time: Self
}
