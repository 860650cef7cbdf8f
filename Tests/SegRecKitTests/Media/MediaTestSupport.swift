import Foundation
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// Helpers shared by the media tests: synthetic stamped NV12 pictures, temp dirs, ffprobe.
enum MediaTestSupport {
    /// A fresh empty directory under the test process's temporary root (``TestTemporaryDirectories``, removed at exit).
    static func makeTemporaryDirectory() throws -> URL { try TestTemporaryDirectories.make("media") }

    /// An NV12 picture carrying `index` in its stamp, over a moving diagonal pattern
    /// (rows built by copying slices of one long ramp: no per-pixel loops).
    static func stampedFrame(index: Int, width: Int, height: Int) -> PixelBuffer {
        let rampLength = 2 * width + 512
        let ramp: [UInt8] = (0..<rampLength).map { (x: Int) -> UInt8 in
            let wave: Int = x * 3 + (x / 97) * 41
            return UInt8(16 + wave % 219)
        }
        var luma = [UInt8](repeating: 0, count: width * height)
        var chroma = [UInt8](repeating: 128, count: width * (height / 2))
        ramp.withUnsafeBufferPointer { source in
            luma.withUnsafeMutableBufferPointer { plane in
                for y in 0..<height {
                    let offset = (y * 5 + index * 11) % (rampLength - width)
                    UnsafeMutableRawPointer(plane.baseAddress! + y * width).copyMemory(from: source.baseAddress! + offset, byteCount: width)
                }
            }
            chroma.withUnsafeMutableBufferPointer { plane in
                for y in 0..<(height / 2) {
                    let offset = (y * 3 + index * 7 + 100) % (rampLength - width)
                    UnsafeMutableRawPointer(plane.baseAddress! + y * width).copyMemory(from: source.baseAddress! + offset, byteCount: width)
                }
            }
        }
        FrameIndexStamp.write(UInt32(index), intoLuma: &luma, width: width, bytesPerRow: width)
        return PixelBuffer(width: width, height: height, lumaPlane: luma, lumaBytesPerRow: width, chromaPlane: chroma, chromaBytesPerRow: width)
    }

    /// Nanoseconds as a MediaTime at timescale 1e9.
    /// Writes a YUV4MPEG2 file (4:2:0, 30 fps) of `frames` flat pictures of `width`x`height`
    /// whose luma is the frame's index + 16: an input libavformat reads without ffmpeg.
    static func writeY4M(to url: URL, width: Int, height: Int, frames: Int) throws {
        var data = Data("YUV4MPEG2 W\(width) H\(height) F30:1 Ip A1:1 C420jpeg\n".utf8)
        for index in 0..<frames {
            data.append(Data("FRAME\n".utf8))
            data.append(Data(repeating: UInt8(16 + index), count: width * height))
            data.append(Data(repeating: 128, count: 2 * (width / 2) * (height / 2)))
        }
        try data.write(to: url)
    }

    static func ns(_ value: Int64) -> MediaTime { MediaTime(value: value, timescale: 1_000_000_000) }

    /// Writes `frames` stamped pictures at `pts[i]` ns and finishes at `end` ns.
    @discardableResult static func writeSegment(
        to url: URL, width: Int, height: Int, pts: [Int64], end: Int64, settings: EncoderSettings = EncoderSettings(), rotation: Int? = nil
    ) throws -> SegmentWriterSummary {
        let writer = try SegmentWriter(
            url: url, dimensions: VideoDimensions(width: width, height: height), timescale: 1_000_000_000, settings: settings, displayRotationDegrees: rotation)
        for (i, time) in pts.enumerated() { try writer.append(stampedFrame(index: i, width: width, height: height), presentationTime: ns(time)) }
        return try writer.finish(endTime: ns(end))
    }

    /// The `ffprobe` executable on PATH, or nil.
    static var ffprobePath: String? {
        let paths = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
        return paths.map { "\($0)/ffprobe" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Runs ffprobe with `arguments` + the file, returns the parsed JSON object.
    static func ffprobeJSON(_ arguments: [String], file: URL) throws -> [String: Any]? {
        guard let path = ffprobePath else { return nil }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = ["-v", "error"] + arguments + ["-of", "json", file.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "ffprobe exited with \(process.terminationStatus)")
        return try JSONSerialization.jsonObject(with: data) as? [String: Any]
    }
}
