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
    /// Footage at a splice: the first buffer of a new encoder session in a container whose
    /// timestamps may jump (MPEG-TS, HLS), placed at its timestamp (the pictures' offset
    /// applied). The sound before ends at `splicePoint` (the session time of the new
    /// session's first picture): what of it lies after that point, and not yet handed to a
    /// segment, is cut; this buffer's samples before it are not recorded; a gap before it is
    /// silence. Then each buffer follows as ``timestamped(tolerance:)``. A buffer without
    /// samples announces the splice point before the new session's sound comes (its
    /// pictures came first): no sound from there on is handed to a segment until the next
    /// buffer, spliced (the sound before is cut there) or timestamped (it goes on).
    case spliced(at: MediaTime, tolerance: MediaTime)
}
