/// Where a recording's segments begin and end (Docs/clocks.md, Docs/cameras.md:
/// "Orientation, formats and stabilization"): a pure function of the open segment, the next
/// frame and the stream format it comes in (``VideoStreamFormat``), with no side effects.
/// ``SegmentMuxer`` carries its decisions out.
///
/// In order: after a stop-on-change stop every frame is dropped (`recordingStopped`); a
/// frame whose session time does not come after the last one written is dropped
/// (`nonMonotonicTimestamp`); with no segment open a frame opens one; a frame more than
/// ``maximumFrameDuration`` after the last ends the segment after its last frame
/// (`timestampGap`, in both modes); then a new camera (`cameraSwitched`), a format switch
/// that changes the dimensions or the rate (`formatChanged`), a new capture angle with
/// ``splitOnRotation`` in segment mode (`rotationChanged`) and new dimensions
/// (`dimensionsChanged`) close the segment at the frame's session time and open the next
/// with it, or, with ``SplitPolicy/stopOnFirstChange``, stop (a rotation never stops).
/// Last, in both modes, the limits: a frame at or after its segment's start plus
/// ``maximumSegmentDuration`` (`maxSegmentDuration`), or given once the open file's encoded
/// packets reached ``OpenSegment/maximumBytes`` (`maxSegmentBytes`), closes the segment at
/// its session time and opens the next with it.
struct SegmentBoundaryRule: Sendable {
    /// What to do with one frame.
    enum Decision: Sendable, Equatable {
        /// Append it to the open segment.
        case append
        /// Announce `warning` (if any), close the open segment so that its last frame lasts
        /// until `closingAt` (session clock; nil when no segment is open), and open the next
        /// with this frame as its first.
        case cut(SegmentStartReason, closingAt: MediaTime?, warning: String? = nil)
        /// Stop-on-change: close the open segment at this frame's session time, drop this
        /// frame and every later one (`recordingStopped`), stop with `reason` and note why.
        case stop(StopReason, note: String)
        /// Drop the frame (and announce `warning`, if any).
        case drop(DropReason, warning: String? = nil)
    }

    /// The open segment, as far as the rule compares frames with it.
    struct OpenSegment: Sendable {
        /// Its file name (for warnings).
        let file: String
        /// Its one width and height.
        let dimensions: VideoDimensions
        /// The streaming camera's id (several-camera sessions), else nil.
        let camera: String?
        /// The capture angle of its first frame (the file's display matrix), if any.
        let rotation: VideoRotationAngle?
        /// The rate the file is encoded at.
        let frameRate: FrameRate
        /// The stream format of its last frame (camera recordings; nil for footage).
        var lastFormat: VideoStreamFormat?
        /// Session time of its last frame.
        var lastSessionTime: MediaTime
        /// Session time its last frame ends at by its own duration.
        var lastFrameEnd: MediaTime
        /// Session time of its first frame, which ``maximumSegmentDuration`` counts from
        /// (nil: no duration limit applies to it).
        var sessionStart: MediaTime? = nil
        /// Bytes the encoder has put out for it before the frame being decided, when
        /// ``maximumBytes`` is set.
        var encodedBytes: Int64 = 0
        /// `--max-segment-bytes`, or nil.
        var maximumBytes: Int64? = nil
    }

    /// Split or stop on a change.
    let policy: SplitPolicy
    /// `--split-on-rotation`: a new capture angle starts a segment (segment mode only).
    let splitOnRotation: Bool
    /// The longest one frame can last in a segment file (``SegmentMuxer/maximumFrameDuration``).
    let maximumFrameDuration: MediaTime
    /// `--max-segment-duration`, or nil.
    var maximumSegmentDuration: MediaTime? = nil

    /// The decision for `frame`.
    /// - Parameters:
    ///   - format: the stream format last announced before `frame`, nil for footage.
    ///   - open: the open segment, or nil.
    ///   - lastWritten: the session time of the last frame written, in any segment, or nil.
    ///   - stopped: whether the recording stopped taking frames (stop-on-change).
    ///   - segmentsOpened: segments opened so far (0: `frame` would open the first).
    /// - Throws: `MediaTimeError` when a time difference or sum overflows.
    func decision(for frame: VideoFrame, in format: VideoStreamFormat?, open: OpenSegment?, lastWritten: MediaTime?, stopped: Bool, segmentsOpened: Int) throws
        -> Decision
    {
        if stopped { return .drop(.recordingStopped) }
        if let last = lastWritten, frame.sessionTime <= last {
            return .drop(.nonMonotonicTimestamp, warning: "frame \(frame.index) dropped: session time \(frame.sessionTime) does not come after \(last)")
        }
        guard let segment = open else { return .cut(segmentsOpened == 0 ? .recordingStarted : .dimensionsChanged, closingAt: nil) }
        let gap = try frame.sessionTime.subtracting(segment.lastSessionTime)
        if gap > maximumFrameDuration {
            return .cut(
                .timestampGap, closingAt: min(segment.lastFrameEnd, try segment.lastSessionTime.adding(maximumFrameDuration)),
                warning:
                    "no frame for \(gap) before frame \(frame.index), longer than a segment file can hold one frame (\(maximumFrameDuration)): \(segment.file) ends after its last frame and the next segment starts at frame \(frame.index) (startReason timestampGap)"
            )
        }
        // A camera switch: the old segment's last frame lasts until the new camera's first.
        if let camera = format?.camera?.id, let previous = segment.camera, camera != previous {
            return change(
                .cameraSwitched, .cameraSwitched, at: frame,
                note:
                    "recording stopped at session time \(frame.sessionTime): frame \(frame.index) comes from camera \(camera), the movie file from \(previous)")
        }
        // A format switch that changes the dimensions or the rate, across its reconfiguration gap.
        if let format, let last = segment.lastFormat, format.camera?.id == last.camera?.id, format.formatGeneration != last.formatGeneration,
            frame.dimensions != segment.dimensions || !Self.sameRate(format.frameRate, segment.frameRate)
        {
            return change(
                .formatChanged, .formatChanged, at: frame,
                note:
                    "recording stopped at session time \(frame.sessionTime): frame \(frame.index) comes from format \(format.activeFormat) at \(format.frameRate) fps (\(frame.dimensions)), the movie file is \(segment.dimensions) at \(segment.frameRate) fps"
            )
        }
        if splitOnRotation, policy == .split, let angle = format?.rotationAngle, let current = segment.rotation, angle != current,
            frame.dimensions == segment.dimensions
        {
            return .cut(.rotationChanged, closingAt: frame.sessionTime)
        }
        if frame.dimensions == segment.dimensions {
            // The limits: a new file at this frame, the old one ending exactly there.
            if let limit = maximumSegmentDuration, let start = segment.sessionStart, try frame.sessionTime >= start.adding(limit) {
                return .cut(.maxSegmentDuration, closingAt: frame.sessionTime)
            }
            if let limit = segment.maximumBytes, segment.encodedBytes >= limit { return .cut(.maxSegmentBytes, closingAt: frame.sessionTime) }
            return .append
        }
        return change(
            .dimensionsChanged, .dimensionsChanged, at: frame,
            note: "recording stopped at session time \(frame.sessionTime): frame \(frame.index) is \(frame.dimensions), the movie file is \(segment.dimensions)"
        )
    }

    /// A change at `frame`: the next segment starts there (`start`), or the recording stops
    /// (`stop`, with `note`).
    private func change(_ start: SegmentStartReason, _ stop: StopReason, at frame: VideoFrame, note: @autoclosure () -> String) -> Decision {
        switch policy {
        case .split: .cut(start, closingAt: frame.sessionTime)
        case .stopOnFirstChange: .stop(stop, note: note())
        }
    }

    private static func sameRate(_ a: FrameRate, _ b: FrameRate) -> Bool {
        Int128(a.numerator) * Int128(b.denominator) == Int128(b.numerator) * Int128(a.denominator)
    }
}
