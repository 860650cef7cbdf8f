import Foundation

/// Checks a recording folder against its manifest by reading every file back with
/// libavformat/libavcodec (`MediaFileReader`): what `segrec verify` runs.
///
/// Per file: it opens; one width and height equal to the manifest's for every decoded
/// frame; the frame count; the first frame a keyframe; the pictures, in the codec's own
/// output order, at strictly increasing presentation times inside `[0, end)` (a container
/// time moved off its picture shows here); the file's duration (last pts +
/// duration) equal to `sessionEnd − sessionStart` exactly (`framesEnd − sessionStart`
/// before a camera or format switch); and, when the manifest says
/// frames carry the stamp, every frame's index read back from the pixels (first ==
/// `firstFrameIndex`, strictly increasing, contiguous when nothing was dropped). Across
/// files: `sessionEnd[k] == sessionStart[k+1]` exactly, and the frame accounting adds up.
/// With sound, each file's audio track and the synthetic clicks (`RecordingVerifier+Audio.swift`).
public enum RecordingVerifier {
    /// The verdict on one file.
    public struct SegmentReport: Sendable {
        /// File name in the folder.
        public var file: String
        /// The manifest's `WIDTHxHEIGHT`.
        public var dimensions: String
        /// Frames libavformat counted in the file.
        public var frames: Int
        /// The manifest's byte count.
        public var byteCount: Int64
        /// First and last stamped index read back, when stamped.
        public var stampRange: ClosedRange<Int64>?
        /// Several-camera recordings: the cameras that made the file's frames, as read back
        /// from the stamp's rows 16–31, in the order they first appear (empty otherwise).
        public var producers: [String] = []
        /// Stamped index and camera code (rows 16–31) of every decoded frame of a
        /// several-camera recording.
        var cameraCodes: [(index: Int64, code: UInt32?)] = []
        /// What failed; empty when the file is good.
        public var problems: [String]
    }

    /// The verdict on a folder.
    public struct Report: Sendable {
        /// One report per manifest segment, in order.
        public var segments: [SegmentReport]
        /// Problems that concern the whole recording (tiling, accounting).
        public var problems: [String]
        /// True when no file and no recording-level check failed.
        public var passed: Bool { problems.isEmpty && segments.allSatisfy { $0.problems.isEmpty } }
    }

    /// Verifies the recording in `directory`. A recording whose manifest says it failed
    /// (`stopReason: error`) never passes: its segments are still checked and listed, and
    /// the report names the failure.
    /// - Throws: ``RecordingError/inputNotFound(path:)`` when there is no manifest,
    ///   ``RecordingError/badInput(path:field:detail:)`` when it does not parse or a number
    ///   in it is out of range or a file name is not segrec's (``ManifestReader/read(from:)``),
    ///   so no arithmetic below can trap and no file outside the folder is opened.
    public static func verify(_ directory: URL) throws(RecordingError) -> Report {
        let manifest = try ManifestReader.read(from: directory)
        var report = Report(segments: [], problems: [])
        if let interruption = RecordingRecovery.interruption(of: directory, manifest: manifest) {
            report.problems.append(interruption)
            return report
        }
        if manifest.stopReason == .error {
            let why = manifest.error.map { ": " + Excerpt.of($0, limit: 200) } ?? ""
            report.problems.append(
                "the manifest says the recording failed (stopReason error\(why)); \(manifest.segments.count) segment\(manifest.segments.count == 1 ? "" : "s") kept"
            )
        }
        var previousLastIndex: Int64?
        let cameras = CameraExpectation(manifest)
        for segment in manifest.segments {
            var (segmentReport, lastIndex) = verifySegment(
                segment, in: directory, stamped: manifest.frameIndexStamp, previousLastIndex: previousLastIndex, expectContiguous: manifest.frames.dropped == 0,
                maximumDuration: manifest.segmentLimits?.maxSegmentDuration)
            if manifest.frameIndexStamp, segment.camera != nil {
                let (producers, problems) = cameras.check(segment, codes: segmentReport.cameraCodes)
                segmentReport.producers = producers
                segmentReport.problems += problems
            }
            report.segments.append(segmentReport)
            if let lastIndex { previousLastIndex = lastIndex }
        }
        let audio = audioProblems(manifest, in: directory)
        for i in report.segments.indices { report.segments[i].problems += audio.segments[report.segments[i].file] ?? [] }
        report.problems += audio.recording
        for (a, b) in zip(manifest.segments, manifest.segments.dropFirst())
        where a.sessionEnd != b.sessionStart && !(b.startReason == .timestampGap && a.sessionEnd < b.sessionStart) {
            report.problems.append("\(a.file) ends at \(a.sessionEnd) but \(b.file) starts at \(b.sessionStart): segments do not tile")
        }
        report.problems += changeProblems(manifest)
        report.problems += limitProblems(manifest)
        let listedFiles = Set(manifest.segments.map(\.file))
        let present = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        for name in present.sorted()
        where SegmentFiles.isFinishedName(name) && !listedFiles.contains(name) && OutputDirectory.isRegularFile(directory.appendingPathComponent(name)) {
            report.problems.append("\(name) is in the folder but not in the manifest")
        }
        let frames = manifest.frames
        if frames.received != frames.written + frames.dropped {
            report.problems.append("frames: received \(frames.received) != written \(frames.written) + dropped \(frames.dropped)")
        }
        let listed = manifest.segments.reduce(0) { $0 + $1.frameCount }
        if listed != frames.written { report.problems.append("frames: segments hold \(listed) frames but \(frames.written) were written") }
        if frames.dropped != frames.droppedReasons.values.reduce(0, +) {
            report.problems.append("frames: \(frames.dropped) dropped but reasons add up to \(frames.droppedReasons.values.reduce(0, +))")
        }
        return report
    }

    private static func verifySegment(
        _ segment: SegmentRecord, in directory: URL, stamped: Bool, previousLastIndex: Int64?, expectContiguous: Bool, maximumDuration: MediaTime?
    ) -> (SegmentReport, Int64?) {
        var report = SegmentReport(
            file: segment.file, dimensions: "\(segment.width)x\(segment.height)", frames: 0, byteCount: segment.byteCount, stampRange: nil, problems: [])
        let url = directory.appendingPathComponent(segment.file)
        var lastIndex: Int64?
        guard SegmentFiles.isFinishedName(segment.file), !segment.file.contains("/") else {
            report.problems.append("\(Excerpt.of(segment.file)) is not a segment file name (segment-NNN.mp4)")
            return (report, nil)
        }
        do {
            let reader = try MediaFileReader(url: url)
            let info = try reader.streamInfo()
            report.frames = info.frameCount
            if info.width != segment.width || info.height != segment.height {
                report.problems.append("stream is \(info.width)x\(info.height), manifest says \(segment.width)x\(segment.height)")
            }
            if info.frameCount != segment.frameCount { report.problems.append("\(info.frameCount) frames, manifest says \(segment.frameCount)") }
            if let problem = rotationProblem(file: info.rotationDegrees, manifest: segment.rotationDegrees) { report.problems.append(problem) }
            // A copied file (`--copy`) is cut at the first keyframe past the limit: only its
            // keyframes after the first must start before it.
            let limited = segment.copied == true ? info.packets.dropFirst().filter(\.isKeyframe) : info.packets
            if let limit = maximumDuration, let latest = limited.map(\.pts).max(), let problem = limitProblem(latest, info.timeBase, limit) {
                report.problems.append(problem)
            }
            if let problem = spanProblem(info, segment) { report.problems.append(problem) }
            var decoded = 0
            var firstKey = false
            var indices: [Int64] = []
            var sizes: Set<String> = []
            // The codec's own picture order (the decoder's output) against the container's
            // presentation times: each picture after the one before, none before the file's
            // start (0) or at or after its end.
            let fileEnd = info.packets.last.map { $0.pts.addingReportingOverflow($0.duration).partialValue }
            var previousPTS: Int64?
            var orderProblems: [String] = []
            try reader.decodeFrames { frame in
                if decoded == 0 { firstKey = frame.isKeyframe }
                if orderProblems.count < 3 {
                    if let pts = frame.pts {
                        if let previousPTS, pts <= previousPTS {
                            orderProblems.append(
                                "picture \(decoded) (in picture order) has pts \(pts), not after the picture before it (pts \(previousPTS)): the file's presentation times disagree with the codec's picture order"
                            )
                        } else if pts < 0 || fileEnd.map({ pts >= $0 }) == true {
                            orderProblems.append("picture \(decoded) has pts \(pts), outside the file's span [0, \(fileEnd.map(String.init) ?? "?"))")
                        }
                    } else {
                        orderProblems.append("picture \(decoded) (in picture order) has no presentation time")
                    }
                }
                if let pts = frame.pts { previousPTS = pts }
                decoded += 1
                sizes.insert("\(frame.width)x\(frame.height)")
                if stamped, let index = FrameIndexStamp.read(luma: frame.luma, width: frame.width, height: frame.height, bytesPerRow: frame.lumaBytesPerRow) {
                    indices.append(Int64(index))
                    if segment.camera != nil {
                        report.cameraCodes.append(
                            (
                                Int64(index),
                                FrameIndexStamp.read(
                                    luma: frame.luma, width: frame.width, height: frame.height, bytesPerRow: frame.lumaBytesPerRow,
                                    firstRow: FrameIndexStamp.cameraRow)
                            ))
                    }
                }
            }
            if decoded != segment.frameCount { report.problems.append("decoded \(decoded) frames, manifest says \(segment.frameCount)") }
            if !firstKey { report.problems.append("first frame is not a keyframe") }
            report.problems += orderProblems
            if sizes.count != 1 || sizes.first != "\(segment.width)x\(segment.height)" { report.problems.append("decoded frame sizes \(sizes.sorted())") }
            if stamped {
                report.problems += stampProblems(indices, segment: segment, previousLastIndex: previousLastIndex, expectContiguous: expectContiguous)
                if let first = indices.first, let last = indices.last, first <= last { report.stampRange = first...last }
                lastIndex = indices.last
            }
        } catch { report.problems.append("\(error)") }
        return (report, lastIndex)
    }

    /// The file's track against the manifest's span (to `framesEnd` when the pictures end
    /// before `sessionEnd`): it must hold the exact span rounded
    /// once to its own tick, or end one tick after its last frame; the problem, or nil.
    private static func spanProblem(_ info: StreamInfo, _ segment: SegmentRecord) -> String? {
        guard let last = info.packets.last else { return nil }
        // Numbers read from the file: checked, never trapping. The file's track ticks
        // at its own timescale: it must hold the manifest's exact span rounded once to
        // that tick (half away from zero), or one tick after its last frame when the
        // span rounds to less (SegmentWriter's rule).
        let (end, o1) = last.pts.addingReportingOverflow(last.duration)
        let (ticks, o2) = end.multipliedReportingOverflow(by: Int64(info.timeBase.num))
        let (afterLast, o3) = last.pts.addingReportingOverflow(1)
        let span = try? (segment.framesEnd ?? segment.sessionEnd).subtracting(segment.sessionStart)
        if o1 || o2 || o3 || info.timeBase.num <= 0 || info.timeBase.den <= 0 {
            return "file timing out of range (last pts \(last.pts), duration \(last.duration), time base \(info.timeBase.num)/\(info.timeBase.den))"
        } else if let span {
            let fileDuration = MediaTime(value: ticks, timescale: info.timeBase.den)
            var expected = (try? span.converted(toTimescale: info.timeBase.den)) ?? span
            if info.timeBase.num == 1, expected.timescale == info.timeBase.den, expected.value <= last.pts {
                expected = MediaTime(value: afterLast, timescale: info.timeBase.den)
            }
            if fileDuration != expected { return "file lasts \(fileDuration), manifest span is \(expected)" }
        }
        return nil
    }

    /// With `--max-segment-duration`: the segment's latest frame, at `pts` ticks of
    /// `timeBase` in the file, must start before `limit` (within the half tick the file's
    /// rounding allows); the problem, or nil.
    static func limitProblem(_ pts: Int64, _ timeBase: (num: Int32, den: Int32), _ limit: MediaTime) -> String? {
        guard timeBase.num > 0, timeBase.den > 0, timeBase.den <= Int32.max / 2 else { return nil }
        // pts − ½ tick, exactly: (2 · pts − 1) · num / (2 · den).
        let (twice, o1) = pts.multipliedReportingOverflow(by: 2 * Int64(timeBase.num))
        let (earliest, o2) = twice.subtractingReportingOverflow(Int64(timeBase.num))
        guard !o1, !o2 else { return "a frame's time (pts \(pts)) is out of range" }
        let start = MediaTime(value: earliest, timescale: timeBase.den * 2)
        guard start >= limit else { return nil }
        return
            "a frame starts at \(MediaTime(value: pts * Int64(timeBase.num), timescale: timeBase.den)) in the file, not before segmentLimits.maxSegmentDuration \(limit)"
    }

    /// Segments that start at a limit: the manifest states it, and the previous one reached
    /// it (its span at least the duration limit; its file at least the byte limit).
    static func limitProblems(_ manifest: RecordingManifest) -> [String] {
        var problems: [String] = []
        for (a, b) in zip(manifest.segments, manifest.segments.dropFirst()) {
            switch b.startReason {
            case .maxSegmentDuration:
                guard let limit = manifest.segmentLimits?.maxSegmentDuration else {
                    problems.append("\(b.file): startReason maxSegmentDuration, but the manifest states no segmentLimits.maxSegmentDuration")
                    continue
                }
                if let span = try? b.sessionStart.subtracting(a.sessionStart), span < limit {
                    problems.append("\(b.file): startReason maxSegmentDuration, but \(a.file) started only \(span) before it, less than the limit \(limit)")
                }
            case .maxSegmentBytes:
                guard let limit = manifest.segmentLimits?.maxSegmentBytes else {
                    problems.append("\(b.file): startReason maxSegmentBytes, but the manifest states no segmentLimits.maxSegmentBytes")
                    continue
                }
                if a.byteCount < limit {
                    problems.append("\(b.file): startReason maxSegmentBytes, but \(a.file) holds \(a.byteCount) bytes, less than the limit \(limit)")
                }
            default: break
            }
        }
        return problems
    }

    /// Whether the file's display matrix turns the picture as the manifest's
    /// `rotationDegrees` says: `file` is ffprobe's counter-clockwise `rotation` (nil: no
    /// matrix), `manifest` the clockwise angle (nil: none); a file without a matrix, or with
    /// rotation 0, matches nil or 0; otherwise −file ≡ manifest (mod 360), so ffprobe's −90
    /// is 90 and its 90 is 270. Returns the problem, or nil when they agree.
    static func rotationProblem(file: Int?, manifest: Int?) -> String? {
        func clockwise(_ degrees: Int) -> Int { ((degrees % 360) + 360) % 360 }
        let fromFile = file.map { clockwise(-$0) } ?? 0
        let fromManifest = manifest.map(clockwise) ?? 0
        guard fromFile != fromManifest else { return nil }
        let fileText = file.map { "display matrix rotation \($0) (clockwise \(fromFile)°)" } ?? "no display matrix (0°)"
        return "\(fileText), manifest rotationDegrees says \(manifest.map(String.init) ?? "null")"
    }

    private static func stampProblems(_ indices: [Int64], segment: SegmentRecord, previousLastIndex: Int64?, expectContiguous: Bool) -> [String] {
        var problems: [String] = []
        if indices.first != segment.firstFrameIndex {
            problems.append("first stamped index \(indices.first.map(String.init) ?? "none"), manifest says \(segment.firstFrameIndex)")
        }
        for (a, b) in zip(indices, indices.dropFirst()) where b <= a || (expectContiguous && b != a + 1) {
            problems.append("stamped index \(b) follows \(a): \(b <= a ? "duplicate or out of order" : "frames missing")")
            break
        }
        if let previousLastIndex, let first = indices.first {
            if first <= previousLastIndex {
                problems.append("first index \(first) repeats the previous file's (last \(previousLastIndex))")
            } else if expectContiguous && first != previousLastIndex + 1 {
                problems.append("frames \(previousLastIndex + 1)..<\(first) are in no file")
            }
        }
        return problems
    }
}
