/// One buffer of microphone samples as the audio data output delivers it
/// (`AVCaptureAudioDataOutputSampleBufferDelegate.captureOutput(_:didOutput:from:)`), in the
/// same ordered stream as the frames (``CaptureOutputEvent/audioSampleBuffer(_:)``).
///
/// Sample `firstSampleIndex + j` of the buffer was captured at device time
/// `A(firstSampleIndex + j)` on the microphone's clock; ``sessionTime`` is the first one's
/// `convertTime(A(n), mic → host)` (the buffer's presentation timestamp) and
/// ``nextSessionTime`` the same for the sample after the last, so a recorder places every
/// sample on the session clock without Double arithmetic.
package struct AudioSampleBuffer: Sendable, Hashable {
    /// The microphone's sample index `n` of the first sample (0 at session start).
    package let firstSampleIndex: Int64
    /// `A(n)` of the first sample, on the microphone's clock (its timescale).
    package let deviceTime: MediaTime
    /// The first sample's session time (host clock, nanoseconds): the buffer's timestamp.
    package let sessionTime: MediaTime
    /// The session time of the sample after the last (the next buffer's timestamp).
    package let nextSessionTime: MediaTime
    /// The microphone's nominal rate, sample frames per second of its own clock.
    package let sampleRate: Int
    /// The samples, interleaved float.
    package let pcm: AudioPCMBuffer
    /// Whether the samples are the synthetic signal (1 kHz sine with a click at every whole
    /// session second, Docs/DESIGN.md "Audio"), which `verify` can measure.
    package let isSynthetic: Bool
    /// How the recorder places the samples: ``AudioBufferPlacement/compensated`` (a
    /// microphone, the default) or ``AudioBufferPlacement/timestamped(tolerance:)`` (footage).
    package let placement: AudioBufferPlacement

    /// A buffer; see the properties.
    package init(
        firstSampleIndex: Int64, deviceTime: MediaTime, sessionTime: MediaTime, nextSessionTime: MediaTime, sampleRate: Int, pcm: AudioPCMBuffer,
        isSynthetic: Bool = false, placement: AudioBufferPlacement = .compensated
    ) {
        self.firstSampleIndex = firstSampleIndex
        self.deviceTime = deviceTime
        self.sessionTime = sessionTime
        self.nextSessionTime = nextSessionTime
        self.sampleRate = sampleRate
        self.pcm = pcm
        self.isSynthetic = isSynthetic
        self.placement = placement
    }

    /// Sample frames in the buffer.
    package var frameCount: Int { pcm.frameCount }
}
