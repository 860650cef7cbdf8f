import Foundation
import Testing

@testable import SegRecCommandLine
@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// Real sample clips (`../shared/samples/`, beside the repository), the `ffmpeg` command to
/// build inputs, and a way to run `segrec record` in-process.
enum FootageTestSupport {
    /// `<repo>/../shared/samples`, from this file's path.
    static let samples: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/samples")

    static var samplesPresent: Bool { FileManager.default.fileExists(atPath: samples.appendingPathComponent("README.md").path) }

    static func sample(_ name: String) -> URL { samples.appendingPathComponent(name) }

    /// An executable on PATH, or nil.
    static func tool(_ name: String) -> String? {
        let paths = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
        return paths.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    static var ready: Bool { samplesPresent && tool("ffmpeg") != nil && tool("ffprobe") != nil }

    /// The sample files and how to open them: (file, raw-video arguments).
    static let sampleInputs: [(String, [String])] = [
        ("park_joy_160x90_50fps.y4m", []), ("bus_352x288_i420_30fps.yuv", ["--video-size", "352x288", "--pixel-format", "yuv420p", "--framerate", "30"]),
        ("videocall_2people_320x192_i420_12fps.yuv", ["--video-size", "320x192", "--framerate", "12"]), ("phone_portrait_rot90_1920x1080_30fps.mp4", [])
    ]

    /// ffprobe's demuxer options matching the segrec raw arguments.
    static func ffprobeInputArguments(_ segrecArguments: [String]) -> [String] {
        var out: [String] = []
        var i = 0
        while i + 1 < segrecArguments.count {
            switch segrecArguments[i] {
            case "--video-size": out += ["-f", "rawvideo", "-video_size", segrecArguments[i + 1]]
            case "--pixel-format": out += ["-pixel_format", segrecArguments[i + 1]]
            case "--framerate": out += ["-framerate", segrecArguments[i + 1]]
            default: break
            }
            i += 2
        }
        if out.contains("rawvideo") && !out.contains("-pixel_format") { out += ["-pixel_format", "yuv420p"] }
        return out
    }

    /// Runs a command; returns (exit status, stdout).
    @discardableResult static func run(_ executable: String, _ arguments: [String], stdin: URL? = nil) throws -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        if let stdin { process.standardInput = try FileHandle(forReadingFrom: stdin) }
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// Runs `ffmpeg -v error -y ARGS`, expecting success.
    static func ffmpeg(_ arguments: [String]) throws {
        let (status, _) = try run(tool("ffmpeg")!, ["-v", "error", "-y"] + arguments)
        #expect(status == 0, "ffmpeg \(arguments.joined(separator: " ")) exited with \(status)")
    }

    /// ffprobe's decoded frame count of the first video stream (`-count_frames`).
    static func decodedFrameCount(_ file: URL, inputArguments: [String] = []) throws -> Int {
        let (_, text) = try run(
            tool("ffprobe")!,
            ["-v", "error"] + inputArguments + [
                "-select_streams", "v:0", "-count_frames", "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", file.path
            ])
        let first = text.split(whereSeparator: { $0 == "," || $0.isNewline }).first.map(String.init) ?? ""
        return Int(first.trimmingCharacters(in: .whitespaces)) ?? -1
    }

    /// ffprobe's width, height, decoded frame count and rotation (nil without one).
    static func probe(_ file: URL) throws -> (width: Int, height: Int, frames: Int, rotation: Int?) {
        let json = try #require(
            try MediaTestSupport.ffprobeJSON(
                ["-select_streams", "v:0", "-count_frames", "-show_entries", "stream=width,height,nb_read_frames:stream_side_data=rotation"], file: file))
        let stream = try #require((json["streams"] as? [[String: Any]])?.first)
        let rotation = (stream["side_data_list"] as? [[String: Any]])?.compactMap { $0["rotation"] as? Int }.first
        return (stream["width"] as? Int ?? -1, stream["height"] as? Int ?? -1, Int(stream["nb_read_frames"] as? String ?? "") ?? -1, rotation)
    }

    /// Runs `segrec record ARGS --output DIR --preset ultrafast --quiet` in-process.
    /// Returns the exit code, the output folder and its manifest (if written).
    static func record(_ arguments: [String]) async throws -> (Int32, URL, RecordingManifest?) {
        let dir = try MediaTestSupport.makeTemporaryDirectory().appendingPathComponent("out")
        let code = await SegRecCommand.main(["record"] + arguments + ["--output", dir.path, "--preset", "ultrafast", "--quiet"])
        let manifest = try? ManifestReader.read(from: dir)
        return (code, dir, manifest)
    }

    /// A 1 s, 1280-format scenario (about 30 frames: 9x16, then 16x9 from 0.5 s), written to a file.
    static func smallScenario() throws -> URL {
        let url = try MediaTestSupport.makeTemporaryDirectory().appendingPathComponent("small.json")
        try """
        {"device": {"format": 1280, "fps": 30, "initialAspectRatio": "9x16",
                    "clock": {"timescale": 24000000, "offsetSeconds": 3.25, "driftPPM": 20}},
         "sessionStartSeconds": 2.0, "durationSeconds": 1.0,
         "events": [{"atSeconds": 0.5, "setDynamicAspectRatio": "16x9"}]}
        """.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    /// The `segrec` executable built beside the test bundle, or nil.
    static var segrecExecutable: String? {
        var url = Bundle.main.bundleURL
        for _ in 0..<4 {
            let candidate = url.appendingPathComponent("segrec").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            url.deleteLastPathComponent()
        }
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            let candidate = bundle.bundleURL.deletingLastPathComponent().appendingPathComponent("segrec").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}
