/// The session's microphone (an `AVCaptureDevice` of type `.microphone` feeding an
/// `AVCaptureAudioDataOutput`): one per session, shared by every camera, running on its own
/// device clock (Docs/DESIGN.md "Audio").
///
/// ## Timing
/// It captures sample *n* at device time `A(n) = A0 + round(n · ts / sampleRate)` (ts = its
/// clock's timescale, `round` half away from zero), with `A0 = convertTime(sessionStart,
/// host → mic)`: the cameras' formula (``FrameTiming`` at a "frame rate" of `sampleRate`).
/// With drift its samples run fast or slow against the session clock, as real audio
/// hardware does. It delivers buffers of ``bufferFrames`` samples; a buffer's timestamp is
/// `convertTime(A(first sample), mic → host)`. Every sample whose session time is before
/// `sessionStart + duration` is delivered (the last buffer may be short).
///
/// ## Signal
/// ``SyntheticAudioSignal``: the clicks start at the first sample whose session time is at
/// or after `sessionStart + k` seconds, k = 1, 2, … (found exactly with
/// ``FrameTiming/firstFrame(capturedAtOrAfter:sessionClock:minimumIndex:)``).
///
/// Concurrency: a non-`Sendable` class owned by its ``CaptureSession``.
package final class AudioCaptureDevice {
    /// The clock id and the manifest's `devices` entry id.
    package static let defaultID = "microphone"

    /// Its id (`"microphone"`).
    package let uniqueID: String
    /// Its device clock (`microphone.clock`).
    package let clock: MediaClock
    /// Nominal sample frames per second of its own clock.
    package let sampleRate: Int
    /// Channels per sample frame.
    package let channelCount: Int
    /// Sample frames per delivered buffer.
    package let bufferFrames: Int
    /// The signal it records.
    package let signal: SyntheticAudioSignal

    private var timing: FrameTiming?
    private var sessionStart = MediaTime.zero
    /// The first sample not delivered yet.
    private var nextSample: Int64 = 0
    /// Samples before the session's end (known once capturing).
    private var sampleCount: Int64 = 0
    /// Click onsets not yet behind the delivered samples, with the next second to find.
    private var clickOnsets: [Int64] = []
    private var nextClickSecond: Int64 = 1

    /// A microphone.
    /// - Parameters:
    ///   - uniqueID: its id (default `"microphone"`: the clock's and the manifest's).
    ///   - clock: its device clock.
    ///   - sampleRate: > 0 (the scenario allows the AAC rates, ``AudioTrackSettings/supportedSampleRates``).
    ///   - channelCount: ≥ 1.
    ///   - bufferFrames: ≥ 1.
    /// - Throws: ``CaptureError/invalidParameter(name:value:allowed:)`` for a value out of range.
    package init(uniqueID: String = AudioCaptureDevice.defaultID, clock: MediaClock, sampleRate: Int, channelCount: Int, bufferFrames: Int) throws(CaptureError)
    {
        guard sampleRate > 0, sampleRate <= Int(Int32.max) else { throw .invalidParameter(name: "sampleRate", value: "\(sampleRate)", allowed: "> 0") }
        guard channelCount >= 1 else { throw .invalidParameter(name: "channels", value: "\(channelCount)", allowed: "≥ 1") }
        guard bufferFrames >= 1 else { throw .invalidParameter(name: "bufferFrames", value: "\(bufferFrames)", allowed: "≥ 1") }
        self.uniqueID = uniqueID
        self.clock = clock
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.bufferFrames = bufferFrames
        self.signal = SyntheticAudioSignal(sampleRate: sampleRate, channelCount: channelCount)
    }

    /// Starts capturing: sample 0 at `sessionStart` (host clock); samples before `sessionEnd` are delivered.
    /// - Throws: ``CaptureError/time(_:)``.
    func startCapture(sessionStart: MediaTime, sessionEnd: MediaTime) throws(CaptureError) {
        let rate: FrameRate
        do { rate = try FrameRate(Int64(sampleRate)) } catch { throw .invalidParameter(name: "sampleRate", value: "\(sampleRate)", allowed: "> 0") }
        do {
            let timing = try FrameTiming(deviceClock: clock, frameRate: rate, sessionStart: sessionStart)
            self.timing = timing
            self.sessionStart = sessionStart
            sampleCount = try timing.firstFrame(capturedAtOrAfter: sessionEnd)
        } catch { throw .time(error) }
    }

    /// The timestamp of the next buffer, or nil when every sample was delivered.
    /// - Throws: ``CaptureError/time(_:)``.
    func nextBufferSessionTime() throws(CaptureError) -> MediaTime? {
        guard let timing, nextSample < sampleCount else { return nil }
        do { return try timing.sessionTime(ofFrame: nextSample) } catch { throw .time(error) }
    }

    /// The next buffer (nil when every sample was delivered).
    /// - Throws: ``CaptureError/time(_:)``.
    func captureBuffer() throws(CaptureError) -> AudioSampleBuffer? {
        guard let timing, nextSample < sampleCount else { return nil }
        let first = nextSample
        let count = Int(min(Int64(bufferFrames), sampleCount - first))
        do {
            let end = first + Int64(count)
            // Onsets of every click that can touch this buffer.
            clickOnsets.removeAll { $0 + signal.clickLength <= first }
            while clickOnsets.last.map({ $0 < end }) ?? true {
                let second = try sessionStart.adding(MediaTime(value: nextClickSecond, timescale: 1))
                let onset = try timing.firstFrame(capturedAtOrAfter: second, minimumIndex: clickOnsets.last ?? 0)
                clickOnsets.append(onset)
                nextClickSecond += 1
            }
            let buffer = AudioSampleBuffer(
                firstSampleIndex: first, deviceTime: try timing.deviceTime(ofFrame: first), sessionTime: try timing.sessionTime(ofFrame: first),
                nextSessionTime: try timing.sessionTime(ofFrame: end), sampleRate: sampleRate,
                pcm: signal.samples(from: first, count: count, clickOnsets: clickOnsets), isSynthetic: true)
            nextSample = end
            return buffer
        } catch { throw .time(error) }
    }
}
