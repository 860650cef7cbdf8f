import Foundation

/// Closing a segment: its last frame's end, the hand-off to its writer, and the outcome of
/// the segment closed before it (at most one is still being finished).
extension SegmentMuxer {

    /// The end of the open segment's last frame by its own duration (at least one session
    /// tick after the last frame, whatever duration it claimed).
    var naturalEndOfOpenSegment: MediaTime? { current.map { naturalEnd(of: $0.boundary) } }

    /// The end of `segment`'s last frame by its own duration (at least one session tick
    /// after it).
    func naturalEnd(of segment: SegmentBoundaryRule.OpenSegment) -> MediaTime {
        let oneTick = MediaTime(value: 1, timescale: MediaClock.host.timescale)
        return max(segment.lastFrameEnd, (try? segment.lastSessionTime.adding(oneTick)) ?? segment.lastFrameEnd)
    }

    /// Closes the open segment so that its last frame lasts until `requestedEnd` (session
    /// clock; capped at ``maximumFrameDuration`` after it, with a warning) and hands the
    /// writer its finish; then waits for the segment closed before it. With
    /// `picturesEndEarly` (a camera or format switch) the last frame keeps its own duration
    /// when that ends before `requestedEnd`: the video track ends there (`framesEnd`), the
    /// segment and its sound at `requestedEnd`.
    /// - Throws: an end not after the last frame (the segment is removed), or the error with
    ///   which an earlier segment failed to finish.
    nonisolated(nonsending) func closeOpenSegment(at requestedEnd: MediaTime, picturesEndEarly: Bool = false) async throws {
        guard let segment = current else { return }
        let closeStart = ContinuousClock.now
        let resumeState = state
        state = .endingFile
        defer { if state == .endingFile { state = resumeState } }
        current = nil
        var end = requestedEnd
        if let longest = try? segment.boundary.lastSessionTime.adding(maximumFrameDuration), requestedEnd > longest {
            end = longest
            announce(
                .warning(
                    "the last frame of \(segment.file) would last until \(requestedEnd), longer than a segment file can hold one frame; it ends at \(longest)"))
        }
        guard end > segment.boundary.lastSessionTime else {
            discard(segment, because: "its end \(end) is not after its last frame")
            throw RecordingError.invalidState("segment end \(end) must come after its last frame at \(segment.boundary.lastSessionTime)")
        }
        var framesEnd: MediaTime?
        if picturesEndEarly, naturalEnd(of: segment.boundary) < end { framesEnd = naturalEnd(of: segment.boundary) }
        let fileEnd: MediaTime
        do { fileEnd = try (framesEnd ?? end).subtracting(segment.sessionStart) } catch {
            discard(segment, because: "\(error)")
            throw error
        }
        announce(.segmentEnded(file: segment.file, end: end, framesEnd: framesEnd))
        let startReason = builder.manifest.segments.last { $0.file == segment.file }?.startReason ?? .recordingStarted
        segment.writer.setChapters(chapters(from: segment.sessionStart, to: end, startReason: startReason))
        finishCopiedAudio(of: segment, at: end)
        if let sound {
            try sound.closeSegment(segment, at: end, fileEnd: fileEnd)
            try sound.pump(into: &current, stopped: hasStopped)
        } else {
            segment.writer.finish(endTime: fileEnd)
        }
        try writeJournal()
        let earlier = finishing
        finishing = [FinishingSegment(file: segment.file, start: segment.sessionStart, end: end, frames: segment.frameCount, writer: segment.writer)]
        lastCloseDuration = .now - closeStart
        // At most one closed segment is still being finished: wait for the one before.
        try await settle(earlier)
    }

    /// The chapters of the file spanning `[start, end)` (``SessionEventRecord/chapters(of:from:to:startReason:origin:)``).
    func chapters(from start: MediaTime, to end: MediaTime, startReason: SegmentStartReason) -> [MovieChapter] {
        SessionEventRecord.chapters(of: builder.manifest.events ?? [], from: start, to: end, startReason: startReason, origin: start)
    }

    /// Abandons a segment that cannot be finished: its partial file is deleted and its
    /// frames are counted as dropped (`writeFailed`).
    func discard(_ segment: OpenSegment, because reason: String) {
        segment.writer.cancel()
        announce(.segmentFailed(file: segment.file, frames: segment.frameCount, reason: reason))
    }

    /// Waits for `segments` to be finished and announces each outcome.
    /// - Throws: the first failure among them (after announcing all).
    nonisolated(nonsending) func settle(_ segments: [FinishingSegment]) async throws {
        guard !segments.isEmpty else { return }
        var firstError: (any Error)?
        for segment in segments {
            switch await segment.writer.outcome.value {
            case .success(let summary):
                announce(.segmentClosed(file: segment.file, start: segment.start, end: segment.end, frames: segment.frames, bytes: summary.byteCount))
            case .failure(let error):
                salvage(segment, after: error)
                if firstError == nil { firstError = error }
            }
        }
        try writeJournal()
        if let firstError { throw firstError }
    }
}
