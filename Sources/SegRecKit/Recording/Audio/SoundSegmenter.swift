/// The session's sound cut into the segments: the microphone's (or footage's, or an app's)
/// buffers resampled onto the session clock as one stream (``SessionAudioTimeline``), and
/// each segment's writer handed the samples of its `[sessionStart, sessionEnd)`, to the
/// sample (Docs/DESIGN.md "Audio"). Owned by the ``SegmentMuxer``, which tells it when
/// segments open and close.
///
/// The open segment gets the samples before its last frame as they come (a later cut
/// cannot move those); a closed segment waits for the few samples the resampler still
/// holds up to its end, and is finished as soon as they come, at the latest when the next
/// segment closes or the recording ends (then silence stands in for sound that never
/// came). Sound between segments, or after a stop, is not recorded.
final class SoundSegmenter {
    /// A closed segment whose writer still waits for the sound up to its end.
    private struct ClosedSegment {
        let file: String
        let writer: SegmentWriterActor.Handle
        /// Timeline index of the segment's first sample.
        let start: Int64
        /// Timeline index of the first sample after the segment.
        let end: Int64
        /// The segment's end in file time, for the writer's finish.
        let fileEnd: MediaTime
        var written: Int64
    }

    /// The segments' audio track.
    let settings: AudioTrackSettings
    /// Where this segmenter's events go (the muxer's announcements).
    var announce: (SegmentMuxerEvent) -> Void = { _ in }
    /// The session's sound as one stream from the first segment's start.
    private var timeline: SessionAudioTimeline?
    /// Buffers that came before the first segment opened.
    private var pending: [AudioSampleBuffer] = []
    private var closed: ClosedSegment?
    /// True once the input's sound has ended (the resampler drained).
    private var flushed = false

    /// A segmenter for a track of `settings`.
    init(settings: AudioTrackSettings) { self.settings = settings }

    /// A buffer from the input: resampled onto the session clock, or held until the first
    /// segment opens (dropped after a stop).
    /// - Throws: the resampler's errors.
    func receive(_ buffer: AudioSampleBuffer, stopped: Bool) throws {
        guard !flushed else { return }
        guard let timeline else {
            if !stopped { pending.append(buffer) }
            return
        }
        try timeline.append(buffer)
    }

    /// The timeline index of the first sample of a segment starting at session time `start`;
    /// the first segment's start is the timeline's origin (sound held before it is placed now).
    /// - Throws: the resampler's errors.
    func startSegment(at start: MediaTime) throws -> Int64 {
        if let timeline { return timeline.sampleIndex(at: start) }
        let timeline = try SessionAudioTimeline(sampleRate: settings.sampleRate, channelCount: settings.channelCount, origin: start)
        self.timeline = timeline
        for buffer in pending { try timeline.append(buffer) }
        pending = []
        return 0
    }

    /// Hands the sound known to belong somewhere to its writer: the closed segment waiting
    /// for sound up to its end first (finished once complete), then the open segment's, up
    /// to its last frame's session time.
    /// - Parameters:
    ///   - open: the open segment, whose audio count grows; nil between segments.
    ///   - stopped: the recording takes no more frames: sound with no segment is discarded.
    func pump(into current: inout SegmentMuxer.OpenSegment?, stopped: Bool) throws {
        guard let timeline else { return }
        if var waiting = closed {
            if flushed { timeline.skip(to: waiting.start) } else if timeline.taken < waiting.start { timeline.discard(upTo: waiting.start) }
            if timeline.taken >= waiting.start { waiting.written += Self.hand(timeline.takePieces(upTo: waiting.end, padding: flushed), to: waiting.writer) }
            closed = waiting
            guard timeline.taken >= waiting.end else { return }
            try completeClosedSegment()
        }
        guard var segment = current else {
            if stopped { timeline.discard(upTo: timeline.produced) }
            return
        }
        if timeline.taken < segment.audioStart { timeline.discard(upTo: segment.audioStart) }
        guard timeline.taken >= segment.audioStart else { return }
        segment.audioWritten += Self.hand(
            timeline.takePieces(upTo: timeline.sampleIndex(at: segment.boundary.lastSessionTime), padding: false), to: segment.writer)
        current = segment
    }

    /// Queues `pieces` on `writer` (silence as a count: the writer writes it in bounded
    /// pieces); returns the sample frames handed.
    private static func hand(_ pieces: [AudioPiece], to writer: SegmentWriterActor.Handle) -> Int64 {
        var count: Int64 = 0
        for piece in pieces {
            switch piece {
            case .samples(let pcm): writer.appendAudio(pcm)
            case .silence(let frames): writer.appendSilence(frameCount: frames)
            }
            count += piece.frameCount
        }
        return count
    }

    /// The open segment closed at session time `end` (its pictures end at `fileEnd` in its
    /// file, at or before `end`): it waits for its sound up to `end`; an earlier one still waiting is finished first (its sound fell
    /// silent).
    func closeSegment(_ segment: SegmentMuxer.OpenSegment, at end: MediaTime, fileEnd: MediaTime) throws {
        try completeClosedSegment()
        let endIndex = timeline.map { max($0.sampleIndex(at: end), segment.audioStart) } ?? segment.audioStart
        closed = ClosedSegment(
            file: segment.file, writer: segment.writer, start: segment.audioStart, end: endIndex, fileEnd: fileEnd, written: segment.audioWritten)
    }

    /// Finishes the closed segment waiting for sound: what is missing up to its end is
    /// silence (none when the sound came), then its writer's finish.
    func completeClosedSegment() throws {
        guard var waiting = closed else { return }
        closed = nil
        if let timeline, timeline.taken < waiting.end {
            // Sound before the segment's start is not its own (the sound never reached it).
            timeline.skip(to: waiting.start)
            waiting.written += Self.hand(timeline.takePieces(upTo: waiting.end, padding: true), to: waiting.writer)
        }
        waiting.writer.finish(endTime: waiting.fileEnd)
        announce(
            .segmentAudioWritten(
                file: waiting.file, SegmentAudioRecord(sampleRate: settings.sampleRate, channels: settings.channelCount, sampleCount: waiting.written)))
    }

    /// The input's sound ended (the recording finishes): the resampler is drained and its
    /// last samples handed out; a warning counts the gaps and overlaps footage's timestamps left.
    func end(current: inout SegmentMuxer.OpenSegment?, stopped: Bool) throws {
        guard let timeline, !flushed else { return }
        try timeline.flush()
        flushed = true
        try pump(into: &current, stopped: stopped)
        guard timeline.corrections > 0 else { return }
        let rate = Double(timeline.sampleRate)
        announce(
            .warning(
                "the input's audio timestamps leave gaps or overlap \(timeline.corrections) time\(timeline.corrections == 1 ? "" : "s"): "
                    + "\(timeline.silenceFilled) samples (\(String(format: "%.3f", Double(timeline.silenceFilled) / rate)) s) of silence filled in, "
                    + "\(timeline.samplesTrimmed) samples (\(String(format: "%.3f", Double(timeline.samplesTrimmed) / rate)) s) trimmed, so each sample sits at its own timestamp"
            ))
    }
}
