import Foundation
import Testing

@testable import SegRecCommandLine
@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// Recordings to export, and ffmpeg/ffprobe read-backs of what an export wrote: every
/// decoded frame's size and frame-index stamp (read by ``FrameIndexStamp`` from the rows
/// ffmpeg decoded).
enum ExportTestSupport {
    static var ready: Bool { FootageTestSupport.tool("ffmpeg") != nil && FootageTestSupport.tool("ffprobe") != nil }

    /// Records a 1 s scenario (1280 format, 30 fps: 9x16, 16x9 from 0.4 s, 1x1 from 0.7 s)
    /// in-process with `codec` and x264/x265 `preset` (veryfast has B-frames).
    static func record(codec: String = "h264", preset: String = "veryfast") async throws -> (URL, RecordingManifest) {
        let base = try MediaTestSupport.makeTemporaryDirectory()
        let scenario = base.appendingPathComponent("three.json")
        try """
        {"device": {"format": 1280, "fps": 30, "initialAspectRatio": "9x16",
                    "clock": {"timescale": 24000000, "offsetSeconds": 3.25, "driftPPM": 20}},
         "sessionStartSeconds": 2.0, "durationSeconds": 1.0,
         "events": [{"atSeconds": 0.4, "setDynamicAspectRatio": "16x9"},
                    {"atSeconds": 0.7, "setDynamicAspectRatio": "1x1"}]}
        """.write(to: scenario, atomically: true, encoding: .utf8)
        let dir = base.appendingPathComponent("rec")
        let code = await SegRecCommand.main([
            "record", "--source", "synthetic", "--scenario", scenario.path, "--codec", codec, "--preset", preset, "--output", dir.path, "--quiet"
        ])
        #expect(code == 0)
        return (dir, try ManifestReader.read(from: dir))
    }

    /// Runs a tool; returns (status, stdout bytes).
    static func run(_ tool: String, _ arguments: [String]) throws -> (Int32, Data) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: FootageTestSupport.tool(tool)!)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, data)
    }

    /// Every frame ffmpeg decodes from `input` (after `inputArguments`, e.g. `-f concat`),
    /// in output order: its size (ffprobe) and its stamp, read from rows 0–15 that ffmpeg
    /// decoded at the native size (`-autoscale 0`, `-fps_mode passthrough`).
    static func decodedFrames(_ input: String, inputArguments: [String] = []) throws -> [(width: Int, height: Int, stamp: UInt32?)] {
        let (_, sizesData) = try run(
            "ffprobe", ["-v", "error"] + inputArguments + ["-select_streams", "v:0", "-show_entries", "frame=width,height", "-of", "csv=p=0", input])
        let sizes = String(decoding: sizesData, as: UTF8.self).split(whereSeparator: \.isNewline).compactMap { line -> (Int, Int)? in
            let parts = line.split(separator: ",").compactMap { Int($0) }
            return parts.count >= 2 ? (parts[0], parts[1]) : nil
        }
        let (_, raw) = try run(
            "ffmpeg",
            ["-v", "error"] + inputArguments + [
                "-i", input, "-autoscale", "0", "-fps_mode", "passthrough", "-vf", "crop=iw:16:0:0", "-f", "rawvideo", "-pix_fmt", "gray", "-"
            ])
        var offset = 0
        var frames: [(Int, Int, UInt32?)] = []
        let bytes = [UInt8](raw)
        for (width, height) in sizes {
            let count = width * 16
            guard offset + count <= bytes.count else {
                frames.append((width, height, nil))
                continue
            }
            let stamp = bytes[offset..<offset + count].withUnsafeBufferPointer { FrameIndexStamp.read(luma: $0, width: width, height: 16, bytesPerRow: width) }
            frames.append((width, height, stamp))
            offset += count
        }
        return frames
    }

    /// (width, height, stamp) of every frame the manifest lists, in order.
    static func expectedFrames(_ manifest: RecordingManifest) -> [(width: Int, height: Int, stamp: UInt32?)] {
        manifest.segments.flatMap { s in (0..<s.frameCount).map { (s.width, s.height, UInt32(s.firstFrameIndex) + UInt32($0)) } }
    }
}
