/// How a recorder puts an ``AudioSampleBuffer`` on the session clock (Docs/DESIGN.md "Audio").
package enum AudioBufferPlacement: Sendable, Hashable {
    /// A microphone on its own device clock: the buffers' timestamps are followed with
    /// libswresample's compensation (the rate trimmed a little at a time), never by dropping
    /// or repeating samples; a drifting clock stays in sync.
    case compensated
    /// Footage: the buffer's timestamp is already on the session clock (the file's video
    /// frames get the same mapping) and its samples are at the nominal rate. Each buffer
    /// follows the one before, unless its timestamp lies more than `tolerance` away from
    /// where it would follow: a gap is filled with silence, an overlap trimmed off the
    /// buffer's start, so every sample sits at its own timestamp within `tolerance`.
    case timestamped(tolerance: MediaTime)
}
