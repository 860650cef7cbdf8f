extension Scenario {
    /// The design contract's example (Docs/cameras.md, "Scenario files"), which needs no file: the 1920 format at 30 fps, 9x16, device
    /// clock 24 MHz with offset 12.5 s and drift +50 ppm, session start 1.0 s, 10 s long;
    /// tap to rotate to 16x9 at 2 s, zoom 1.5 at 4 s, 1x1 at 6 s; a microphone at 48 kHz mono
    /// (buffers of 1024, its clock offset −3.5 s and drift +120 ppm), as in `SampleStreams/`.
    public static let tapToRotate: Scenario = {
        var scenario = tapToRotateVideo
        scenario.microphone = Microphone(
            sampleRate: 48_000, channels: 1, bufferFrames: 1024, clock: Clock(timescale: 48_000, offsetSeconds: -3.5, driftPPM: 120))
        return scenario
    }()

    private static let tapToRotateVideo = Scenario(
        name: "tap-to-rotate", summary: "Tap to Rotate: 9x16 → 16x9 at 2 s, zoom 1.5 at 4 s, 1x1 at 6 s (DESIGN.md example)",
        device: Device(
            format: 1920, fps: defaultFrameRate, initialAspectRatio: .ratio9x16, clock: Clock(timescale: 24_000_000, offsetSeconds: 12.5, driftPPM: 50),
            changeLatencyFrames: 2, completionDelayFrames: 0), sessionStartSeconds: 1.0, durationSeconds: 10.0,
        events: [
            Event(atSeconds: 2.0, action: .setDynamicAspectRatio(.ratio16x9)), Event(atSeconds: 4.0, action: .videoZoomFactor(1.5)),
            Event(atSeconds: 6.0, action: .setDynamicAspectRatio(.ratio1x1))
        ])

    /// Built-in scenarios by name.
    package static let builtIns: [String: Scenario] = [tapToRotate.name: tapToRotate]

    /// The built-in scenario called `name` (e.g. `"tap-to-rotate"`), or `nil`.
    package static func builtIn(named name: String) -> Scenario? { builtIns[name] }
}
