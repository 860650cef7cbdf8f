extension Scenario {
    /// The session's microphone (scenario key `microphone`, Docs/DESIGN.md "Audio"), shared
    /// by every camera:
    /// `{"sampleRate": 48000, "channels": 1, "bufferFrames": 1024, "clock": {"timescale": 48000, "offsetSeconds": -3.5, "driftPPM": 120}}`.
    package struct Microphone: Sendable, Hashable {
        /// Nominal sample frames per second, one of ``AudioTrackSettings/supportedSampleRates`` (default 48 000).
        package var sampleRate: Int
        /// Channels, 1 or 2 (default 1).
        package var channels: Int
        /// Sample frames per delivered buffer, 1...65536 (default 1024).
        package var bufferFrames: Int
        /// The microphone's device clock (default: timescale = `sampleRate`, no offset, no drift).
        package var clock: Clock

        /// A microphone; see the properties.
        package init(sampleRate: Int = 48_000, channels: Int = 1, bufferFrames: Int = 1024, clock: Clock? = nil) {
            self.sampleRate = sampleRate
            self.channels = channels
            self.bufferFrames = bufferFrames
            self.clock = clock ?? Clock(timescale: Int32(clamping: sampleRate))
        }
    }

    /// Keys allowed in `microphone`.
    package static let microphoneKeys = ["sampleRate", "channels", "bufferFrames", "clock"]

    /// The microphone device the session captures from, or nil without `microphone`.
    /// - Throws: ``CaptureError`` for parameters the model rejects (run ``validate(file:)`` first).
    package func makeMicrophone() throws(CaptureError) -> AudioCaptureDevice? {
        guard let microphone else { return nil }
        let clock: MediaClock
        do {
            clock = try MediaClock(
                identifier: AudioCaptureDevice.defaultID, timescale: microphone.clock.timescale, offsetSeconds: microphone.clock.offsetSeconds,
                driftPPM: microphone.clock.driftPPM)
        } catch { throw .time(error) }
        return try AudioCaptureDevice(clock: clock, sampleRate: microphone.sampleRate, channelCount: microphone.channels, bufferFrames: microphone.bufferFrames)
    }

    /// Checks `microphone`: rate, channels, buffer size and clock.
    /// - Throws: ``ScenarioError`` naming `file`, the key and what is allowed.
    func validateMicrophone(file: String) throws(ScenarioError) {
        guard let microphone else { return }
        guard AudioTrackSettings.supportedSampleRates.contains(microphone.sampleRate) else {
            throw ScenarioError(
                file: file, key: "microphone.sampleRate", problem: "\(microphone.sampleRate) is not an AAC sampling rate",
                allowed: ScenarioLimits.microphoneRateAllowed)
        }
        guard (1...2).contains(microphone.channels) else {
            throw ScenarioError(
                file: file, key: "microphone.channels", problem: "\(microphone.channels) is out of range", allowed: ScenarioLimits.channelsAllowed)
        }
        guard (1...65536).contains(microphone.bufferFrames) else {
            throw ScenarioError(
                file: file, key: "microphone.bufferFrames", problem: "\(microphone.bufferFrames) is out of range", allowed: ScenarioLimits.bufferFramesAllowed)
        }
        try Self.checkClock(microphone.clock, at: "microphone.clock", file: file)
    }
}

extension ScenarioLimits {
    static let microphoneRateAllowed = "one of " + AudioTrackSettings.supportedSampleRates.map(String.init).joined(separator: ", ") + " (samples per second)"
    static let channelsAllowed = "1 (mono) or 2 (stereo)"
    static let bufferFramesAllowed = "an integer number of sample frames per buffer, 1...65536"
}

extension ScenarioReader {
    /// `microphone`: keys and types (ranges are checked by `validate`).
    func microphone(_ value: JSONValue, at path: String) throws(ScenarioError) -> Scenario.Microphone {
        let fields = try object(value, at: path, allowed: Scenario.microphoneKeys)
        var microphone = Scenario.Microphone()
        func int(_ key: String, _ allowed: String) throws(ScenarioError) -> Int? {
            guard let v = fields[key] else { return nil }
            let n = try integer(v, at: "\(path).\(key)", allowed: allowed)
            guard let value = Int(exactly: n), value > 0, value <= Int(Int32.max) else { throw error("\(path).\(key)", "\(n) is out of range", allowed) }
            return value
        }
        if let n = try int("sampleRate", ScenarioLimits.microphoneRateAllowed) { microphone.sampleRate = n }
        if let n = try int("channels", ScenarioLimits.channelsAllowed) { microphone.channels = n }
        if let n = try int("bufferFrames", ScenarioLimits.bufferFramesAllowed) { microphone.bufferFrames = n }
        if let v = fields["clock"] {
            microphone.clock = try clock(v, at: "\(path).clock")
            // Without its own timescale the microphone's clock ticks once per sample.
            if case .object(let clockFields) = v, clockFields["timescale"] == nil { microphone.clock.timescale = Int32(clamping: microphone.sampleRate) }
        } else {
            microphone.clock = Scenario.Clock(timescale: Int32(clamping: microphone.sampleRate))
        }
        return microphone
    }
}
