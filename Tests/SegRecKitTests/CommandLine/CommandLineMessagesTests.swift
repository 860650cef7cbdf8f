import CFFmpeg
import Foundation
import Testing

@testable import SegRecCommandLine
@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

@Suite("CommandLine: usage, scenario and verify messages and exit codes", .tags(.commandLine)) struct CommandLineMessagesTests {
    typealias P = CommandLineProcess

    @Test("--output \"\" is a usage error (64), nothing is created") func emptyOutput() async throws {
        let folder = try P.temporaryFolder("empty-output")
        let before = try FileManager.default.contentsOfDirectory(atPath: FileManager.default.currentDirectoryPath)
        #expect(await SegRecCommand.main(["record", "--output", ""]) == 64)
        #expect(await SegRecCommand.main(["record", "--output="]) == 64)
        let after = try FileManager.default.contentsOfDirectory(atPath: FileManager.default.currentDirectoryPath)
        #expect(before.sorted() == after.sorted())
        try? FileManager.default.removeItem(at: folder)
    }

    @Test("a scenario fps beyond 32 bits, and a duplicate key, exit 65 before any folder is made") func scenarioErrorsExit65() async throws {
        let folder = try P.temporaryFolder("scenario-65")
        defer { try? FileManager.default.removeItem(at: folder) }
        for (name, json) in [
            ("fps", #"{"durationSeconds": 1, "device": {"format": 1280, "fps": "4294967297/4294967296"}}"#),
            ("dup", #"{"durationSeconds": 1, "durationSeconds": 2}"#)
        ] {
            let file = folder.appendingPathComponent("\(name).json")
            try Data(json.utf8).write(to: file)
            let out = folder.appendingPathComponent("out-\(name)")
            #expect(await SegRecCommand.main(["record", "--scenario", file.path, "--output", out.path, "--quiet"]) == 65)
            #expect(!FileManager.default.fileExists(atPath: out.path))
        }
    }

    @Test(
        "verify: a manifest whose numbers overflow is exit 65 naming the field, never a trap",
        arguments: [
            ("frames.written", Int.max), ("frames.received", Int.min), ("segments[0].frameCount", Int.max), ("segments[0].width", -1),
            ("segments[0].byteCount", Int.min)
        ]) func verifyOverflow(field: String, value: Int) async throws
    {
        let folder = try P.temporaryFolder("verify-overflow")
        defer { try? FileManager.default.removeItem(at: folder) }
        let data = try P.manifestJSON { manifest in
            let parts = field.split(separator: ".").map(String.init)
            if parts[0] == "frames" {
                var frames = manifest["frames"] as! [String: Any]
                frames[parts[1]] = value
                if parts[1] == "written" { frames["dropped"] = Int.max }  // written + dropped overflows
                manifest["frames"] = frames
            } else {
                var segments = manifest["segments"] as! [[String: Any]]
                segments[0][parts[1]] = value
                manifest["segments"] = segments
            }
        }
        try data.write(to: folder.appendingPathComponent("manifest.json"))
        #expect(throws: RecordingError.self) { try RecordingVerifier.verify(folder) }
        do { _ = try RecordingVerifier.verify(folder) } catch {
            #expect("\(error)".contains(field), "\(error)")
            #expect("\(error)".contains("out of range"))
        }
        #expect(await SegRecCommand.main(["verify", folder.path]) == 65)
    }

    @Test("verify fails (exit 1) on a recording whose manifest says it failed, saying why") func verifyFailedRecording() async throws {
        let folder = try P.temporaryFolder("verify-failed")
        defer { try? FileManager.default.removeItem(at: folder) }
        try P.manifestJSON(stopReason: "error", segments: false).write(to: folder.appendingPathComponent("manifest.json"))
        let report = try RecordingVerifier.verify(folder)
        #expect(!report.passed)
        #expect(report.segments.isEmpty)
        #expect(
            report.problems == ["the manifest says the recording failed (stopReason error: avcodec_send_frame failed: Invalid argument (-22)); 0 segments kept"]
        )
        #expect(await SegRecCommand.main(["verify", folder.path]) == 1)
    }

    @Test("verify refuses a segment name that is not segrec's (no path outside the folder is opened)") func verifyFileName() async throws {
        let folder = try P.temporaryFolder("verify-name")
        defer { try? FileManager.default.removeItem(at: folder) }
        try P.manifestJSON { manifest in
            var segments = manifest["segments"] as! [[String: Any]]
            segments[0]["file"] = "../../etc/passwd"
            manifest["segments"] = segments
        }.write(to: folder.appendingPathComponent("manifest.json"))
        let manifestPath = folder.appendingPathComponent("manifest.json").path
        #expect(
            throws: RecordingError.badInput(
                path: manifestPath, field: "segments[0].file",
                detail: "'../../etc/passwd' is not a segment file name; allowed: segment-NNN.mp4 (three or more digits) in the recording folder")
        ) { try RecordingVerifier.verify(folder) }
        #expect(await SegRecCommand.main(["verify", folder.path]) == 65)
    }

    @Test("a failure names the manifest only as it is on disk") func failureMessageNamesManifestOnDisk() throws {
        let folder = try P.temporaryFolder("failure-message")
        defer { try? FileManager.default.removeItem(at: folder) }
        let manifest = try JSONDecoder().decode(RecordingManifest.self, from: try P.manifestJSON(stopReason: "error"))
        let failure = RecordingFailure(underlying: RecordingError.io(path: "x", underlying: "No space left on device"), manifest: manifest)
        // The folder holds no segment file (out of inodes before the first was created): none is kept.
        #expect(
            ErrorMapping.recordingFailure(failure, folder: folder).message.hasSuffix(
                "(recording stopped; 0 finished segments kept; no manifest could be written)"))
        let file = try #require(manifest.segments.first?.file)
        try Data().write(to: folder.appendingPathComponent(file))
        let none = ErrorMapping.recordingFailure(failure, folder: folder)
        #expect(none.message.hasSuffix("(recording stopped; 1 finished segment kept; no manifest could be written)"))
        #expect(!none.message.contains("manifest says"))
        #expect(none.exitCode == .ioError)
        try P.manifestJSON(stopReason: "error").write(to: folder.appendingPathComponent("manifest.json"))
        #expect(ErrorMapping.recordingFailure(failure, folder: folder).message.hasSuffix("manifest says stopReason \"error\")"))
        try P.manifestJSON(stopReason: "endOfStream").write(to: folder.appendingPathComponent("manifest.json"))
        #expect(ErrorMapping.recordingFailure(failure, folder: folder).message.contains("could not be updated"))
    }

    @Test(
        "FFmpeg's own reason replaces its error code's text: a 0x10 Y4M is an invalid size, not 'resource busy'",
        arguments: [("W0 H10", "Picture size 0x10 is invalid"), ("W100000 H100000", "Picture size 100000x100000 is invalid")]) func ffmpegReason(
            header: String, reason: String
        ) throws
    {
        let folder = try P.temporaryFolder("ffmpeg-reason")
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("bad.y4m")
        try Data("YUV4MPEG2 \(header) F30:1 C420jpeg\nFRAME\nabc".utf8).write(to: file)
        do {
            _ = try MediaFileReader(url: file)
            Issue.record("opened a \(header) Y4M")
        } catch let error as FFmpegError {
            #expect(error.message == reason)
            #expect(error.codeText == "Device or resource busy")  // what FFmpeg 5.1's y4m demuxer returns
            #expect(!error.description.contains("busy"))
        }
    }

    @Test("a logged FFmpeg error explains the next failure on its thread, never an operating-system I/O error") func loggedLineScope() {
        FFmpegLog.receive(level: 16, line: "[mp4 @ 0x1] Something specific failed\n")  // AV_LOG_ERROR
        let explained = FFmpegError(call: "avformat_open_input", code: segrec_averror_from_errno(EBUSY))
        #expect(explained.message == "Something specific failed")
        #expect(explained.description == "avformat_open_input failed: Something specific failed (error -16)")
        let plain = FFmpegError(call: "avformat_open_input", code: segrec_averror_from_errno(EBUSY))
        #expect(plain.message == "Device or resource busy")  // the line is used once
        FFmpegLog.receive(level: 16, line: "[h264 @ 0x2] Packet corrupt\n")
        let disk = FFmpegError(call: "avio_write", code: segrec_averror_enospc())
        #expect(disk.message == "No space left on device")
        #expect(disk.isNoSpace)
        FFmpegLog.receive(level: 24, line: "a warning only\n")  // AV_LOG_WARNING: not kept
        #expect(FFmpegError(call: "x", code: segrec_averror_einval()).message == "Invalid argument")
    }

    @Test("FFmpeg's log line prefix is stripped and long lines are cut") func ffmpegSentence() {
        #expect(FFmpegError.sentence("[yuv4mpegpipe @ 0x55d0] Picture size 0x10 is invalid\n") == "Picture size 0x10 is invalid")
        #expect(FFmpegError.sentence("[a @ 0x1] [b @ 0x2] x") == "x")
        #expect(FFmpegError.sentence(String(repeating: "y", count: 500)).count == 201)
    }

    @Test("option values are echoed as excerpts") func optionExcerpt() {
        let long = String(repeating: "z", count: 100_000)
        do {
            _ = try ArgumentParser.parse(["--mode", long], command: "record", options: RecordCommand.options)
            Issue.record("accepted")
        } catch {
            #expect(error.exitCode == .usage)
            #expect(error.message.count < 400)
            #expect(error.message.contains(String(repeating: "z", count: 60) + "…"))
        }
    }
}
