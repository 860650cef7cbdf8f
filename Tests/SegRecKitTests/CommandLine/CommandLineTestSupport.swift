import Foundation

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// The built `segrec` binary beside the test bundle, and helpers to run it as a process.
enum CommandLineProcess {
    /// `segrec` in the build folder the tests run from (`.build/<config>/segrec`), or nil.
    static let binary: URL? = {
        let candidates = [Bundle.main.executableURL, URL(fileURLWithPath: CommandLine.arguments[0])].compactMap { $0?.deletingLastPathComponent() }
        for folder in candidates {
            for up in [folder, folder.deletingLastPathComponent()] {
                let url = up.appendingPathComponent("segrec")
                if FileManager.default.isExecutableFile(atPath: url.path) { return url }
            }
        }
        return nil
    }()

    /// A fresh empty temporary folder.
    static func temporaryFolder(_ label: String) throws -> URL { try TestTemporaryDirectories.make("cli-\(label)") }

    /// Starts `segrec arguments`, with stdout and stderr collected into files in `folder`.
    static func start(_ arguments: [String], in folder: URL) throws -> Process {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        _ = FileManager.default.createFile(atPath: folder.appendingPathComponent("stdout").path, contents: nil)
        _ = FileManager.default.createFile(atPath: folder.appendingPathComponent("stderr").path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: folder.appendingPathComponent("stdout"))
        process.standardError = try FileHandle(forWritingTo: folder.appendingPathComponent("stderr"))
        try process.run()
        return process
    }

    /// Whether `pid` has a handler for `signal` installed (`SigCgt` in /proc/PID/status).
    static func catches(_ signal: Int32, pid: Int32) -> Bool {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("SigCgt:") }),
            let mask = UInt64(line.dropFirst("SigCgt:".count).trimmingCharacters(in: .whitespaces), radix: 16)
        else { return false }
        return mask & (1 << UInt64(signal - 1)) != 0
    }

    /// Polls every millisecond until `pid` catches `signal` (at most `seconds`).
    static func waitUntilCatching(_ signal: Int32, pid: Int32, seconds: Double = 30) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if catches(signal, pid: pid) { return true }
            usleep(1_000)
        }
        return false
    }

    /// Waits for `process` at most `seconds`; kills it (SIGKILL) and returns false on timeout.
    static func wait(_ process: Process, seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline { usleep(5_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            return false
        }
        process.waitUntilExit()
        return true
    }

    /// A scenario with `count` zoom events over 10 s at 1280/1 fps (few frames, many events).
    static func manyEventsScenario(_ count: Int, at url: URL) throws {
        var text = #"{"device": {"format": 1280, "fps": 1}, "durationSeconds": 10, "events": ["#
        for i in 0..<count {
            if i > 0 { text += "," }
            text += #"{"atSeconds": \#(Double(i) * 10 / Double(count)), "videoZoomFactor": 1.5}"#
        }
        text += "]}"
        try Data(text.utf8).write(to: url)
    }

    /// A manifest JSON for a one-segment (or no-segment) recording, with `edit` applied.
    static func manifestJSON(stopReason: String = "endOfStream", segments: Bool = true, edit: (inout [String: Any]) -> Void = { _ in }) throws -> Data {
        let segment: [String: Any] = [
            "aspectRatio": "9x16", "byteCount": 1000, "change": NSNull(), "file": "segment-000.mp4", "firstFrameIndex": 0, "frameCount": 3, "height": 1280,
            "width": 720, "rotationDegrees": NSNull(), "sessionStart": ["timescale": 1_000_000_000, "value": 1_000_000_000], "sessionStartSeconds": 1,
            "sessionEnd": ["timescale": 1_000_000_000, "value": 1_100_000_000], "sessionEndSeconds": 1.1, "startReason": "recordingStarted"
        ]
        var manifest: [String: Any] = [
            "devices": [["driftPPM": 0, "driftPartsPerBillion": 0, "id": "front", "offsetNanoseconds": 0, "offsetSeconds": 0, "timescale": 24_000_000]],
            "error": stopReason == "error" ? "avcodec_send_frame failed: Invalid argument (-22)" : NSNull(), "formatVersion": 1, "frameIndexStamp": true,
            "frames": ["dropped": 0, "droppedReasons": [String: Int](), "received": segments ? 3 : 0, "written": segments ? 3 : 0], "mode": "segment",
            "notes": [String](), "segments": segments ? [segment] : [], "sessionClock": ["timescale": 1_000_000_000], "stopReason": stopReason,
            "stopTime": ["timescale": 1_000_000_000, "value": 1_100_000_000], "warnings": [String]()
        ]
        edit(&manifest)
        return try JSONSerialization.data(withJSONObject: manifest, options: [.sortedKeys])
    }
}
