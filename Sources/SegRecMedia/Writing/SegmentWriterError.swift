#if canImport(Glibc)
    import Foundation
    import Glibc
    import SegRecTime
#endif

/// Misuse of a `SegmentWriter` or a problem with its files that is not an FFmpeg call
/// failing (those are ``FFmpegError``).
public enum SegmentWriterError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The output file already exists; segrec never overwrites (the CLI removes it under `--force`).
    case fileExists(path: String)
    /// A picture's dimensions differ from the segment's.
    case dimensionsMismatch(expected: VideoDimensions, got: VideoDimensions)
    /// Presentation times must strictly increase (and the first must be ≥ 0).
    case nonIncreasingPresentationTime(previous: MediaTime?, got: MediaTime)
    /// A time cannot be expressed exactly, or does not fit, in the writer's timescale.
    case timeNotRepresentable(MediaTime, timescale: Int32)
    /// `finish(endTime:)` needs an end strictly after the last frame's presentation time.
    case endTimeNotAfterLastFrame(lastFrame: MediaTime, endTime: MediaTime)
    /// The timescale must be > 0.
    case invalidTimescale(Int32)
    /// The encoder returned a different number of packets than frames were given.
    case packetCountMismatch(frames: Int, packets: Int)
    /// The encoder returned a packet whose pts matches no frame given to it.
    case unexpectedPacketTimestamp(pts: Int64)
    /// The writer was already finished, cancelled, or failed earlier (`underlying` says how).
    case notWritable(path: String, underlying: String)
    /// Renaming the finished `.partial` file to its final name failed.
    case renameFailed(from: String, to: String, reason: String)
    /// Something (a file, a directory, a symbolic link) already has the name of a file the
    /// writer creates (`<name>.partial`, `<name>.tmp`): perhaps a partial file left by a
    /// crash (run `segrec recover`). Nothing was written through it.
    case partialFileExists(path: String)
    /// A system call on one of the writer's files failed: `operation` is `"write"` or
    /// `"close"`, `errno` the error number (ENOSPC 28 when the disk is full, EIO 5, …).
    /// The partial file is kept with every fragment that reached it.
    case io(path: String, operation: String, errno: Int32)
    /// The fragment interval must be ≥ 0 and at most `Int32.max` microseconds (~35 min).
    case invalidFragmentInterval(MediaTime)
    /// The codec's encoder does not take pictures this small (`VideoCodec/minimumDimensions`);
    /// nothing was written for `path`.
    case pictureTooSmall(path: String, dimensions: VideoDimensions, codec: VideoCodec)

    /// Whether this is an ``io(path:operation:errno:)`` error with ENOSPC (disk full).
    public var isNoSpace: Bool {
        if case .io(_, _, let code) = self { return code == ENOSPC }
        return false
    }

    /// One line naming the path, times or dimensions involved.
    public var description: String {
        switch self {
        case .fileExists(let path): "\(path) already exists; refusing to overwrite it"
        case .dimensionsMismatch(let expected, let got): "frame is \(got) but the segment is \(expected)"
        case .nonIncreasingPresentationTime(let previous, let got):
            if let previous { "presentation time \(got) is not after the previous frame's \(previous)" } else { "first presentation time \(got) is negative" }
        case .timeNotRepresentable(let time, let timescale): "time \(time) is not exactly representable at timescale \(timescale)"
        case .endTimeNotAfterLastFrame(let last, let end): "segment end \(end) is not after the last frame's presentation time \(last)"
        case .invalidTimescale(let timescale): "invalid timescale \(timescale): must be > 0"
        case .packetCountMismatch(let frames, let packets): "encoder produced \(packets) packets for \(frames) frames"
        case .unexpectedPacketTimestamp(let pts): "encoder returned a packet with pts \(pts), which matches no appended frame"
        case .notWritable(let path, let underlying): "segment \(path) is no longer writable: \(underlying)"
        case .renameFailed(let from, let to, let reason): "could not rename \(from) to \(to): \(reason)"
        case .partialFileExists(let path): "\(path) already exists (a file or link left by an earlier run?); refusing to write through it"
        case .io(let path, let operation, let code): "\(operation) failed on \(path): \(String(cString: strerror(code))) (errno \(code))"
        case .invalidFragmentInterval(let interval): "invalid fragment interval \(interval): must be ≥ 0 and at most 2147 s"
        case .pictureTooSmall(let path, let dimensions, let codec):
            "\(URL(fileURLWithPath: path).lastPathComponent): \(codec.displayName) needs pictures of at least \(codec.minimumDimensions.width)x\(codec.minimumDimensions.height); the pictures are \(dimensions.width)x\(dimensions.height)"
                + (codec == .h264 ? "" : " (use --codec h264, which takes any even size from 2x2)")
        }
    }
}

/// What ``SegmentWriter/finish(endTime:)`` produced.
package struct SegmentWriterSummary: Sendable, Hashable {
    /// Frames (= packets) written.
    package let frameCount: Int
    /// Size of the final file in bytes (0 when no file was written).
    package let byteCount: Int64
    /// The final file, or nil when `frameCount` is 0 (no file is created for an empty segment).
    package let url: URL?
    /// The segment's duration: `endTime` at the writer's timescale.
    package let duration: MediaTime
}
