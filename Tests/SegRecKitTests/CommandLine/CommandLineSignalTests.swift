import Foundation
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// The built binary under SIGINT / SIGTERM. Skipped when the binary is not beside the tests.
@Suite(
    "CommandLine: signals", .tags(.commandLine, .crashSafety), .serialized,
    .enabled(if: CommandLineProcess.binary != nil, "segrec binary not found beside the test bundle")) struct CommandLineSignalTests
{
    typealias P = CommandLineProcess

    @Test("a signal as soon as the handler exists, while a large scenario is read: exit 128+signal, nothing written", arguments: [SIGINT, SIGTERM])
    func earlySignal(signal: Int32) throws {
        let folder = try P.temporaryFolder("early")
        defer { try? FileManager.default.removeItem(at: folder) }
        let scenario = folder.appendingPathComponent("big.json")
        try P.manyEventsScenario(100_000, at: scenario)
        let out = folder.appendingPathComponent("out")
        let process = try P.start(["record", "--scenario", scenario.path, "--output", out.path, "--quiet"], in: folder)
        #expect(P.waitUntilCatching(signal, pid: process.processIdentifier))
        kill(process.processIdentifier, signal)
        #expect(P.wait(process, seconds: 60))
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 128 + signal)
        #expect(!FileManager.default.fileExists(atPath: out.path))
        let stderr = try String(contentsOf: folder.appendingPathComponent("stderr"), encoding: .utf8)
        // Before `record` arms the stop request the handler exits at once; after, the
        // scenario read finishes and the command stops before making the folder.
        #expect(
            stderr.contains("interrupted by \(signal == SIGINT ? "SIGINT" : "SIGTERM") before the recording started")
                || stderr.contains("segrec: interrupted; exiting at once"), "\(stderr)")
    }

    @Test("SIGINT while standard input is idle: every frame received is recorded, exit 0, stopReason requested") func sigintOnIdleStandardInput() throws {
        let folder = try P.temporaryFolder("stdin")
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("out")
        let input = Pipe()
        let process = Process()
        process.executableURL = P.binary
        process.arguments = ["record", "--source", "-", "--output", out.path, "--quiet", "--preset", "ultrafast"]
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Three 64x48 4:2:0 frames (64·48·3/2 = 4608 bytes each), then the pipe stays open,
        // as a stalled camera would leave it.
        var y4m = Data("YUV4MPEG2 W64 H48 F30:1 Ip A1:1 C420jpeg\n".utf8)
        for i in 0..<3 {
            y4m.append(Data("FRAME\n".utf8))
            y4m.append(Data(repeating: UInt8(40 + 60 * i), count: 4608))
        }
        input.fileHandleForWriting.write(y4m)
        #expect(P.waitUntilCatching(SIGINT, pid: process.processIdentifier))
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, !FileManager.default.fileExists(atPath: out.appendingPathComponent("manifest.json").path) { usleep(5_000) }
        usleep(300_000)  // the reader is now waiting for a fourth frame
        kill(process.processIdentifier, SIGINT)
        #expect(P.wait(process, seconds: 30))
        #expect(process.terminationReason == .exit && process.terminationStatus == 0)
        let manifest = try ManifestReader.read(from: out)
        #expect(manifest.stopReason == .requested)
        #expect(manifest.frames.received == 3 && manifest.frames.written == 3 && manifest.frames.dropped == 0)
        #expect(manifest.segments.map(\.frameCount) == [3])
        let report = try RecordingVerifier.verify(out)
        #expect(report.passed, "\(report.problems) \(report.segments.map(\.problems))")
        try? input.fileHandleForWriting.close()
    }

    @Test("SIGINT while a named pipe is idle: the pictures the H.264 decoder still holds (B-frames) are recorded too") func sigintOnIdleNamedPipe() throws {
        let folder = try P.temporaryFolder("fifo")
        defer { try? FileManager.default.removeItem(at: folder) }
        // Ten 128x96 frames with up to 3 B-frames: the decoder holds pictures back for
        // reordering, so a stop that stops pulling loses them (6 of 10 were kept before).
        let clip = folder.appendingPathComponent("ten.mkv")
        let make = Process()
        make.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        make.arguments = [
            "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=128x96:rate=30", "-frames:v", "10", "-c:v", "libx264", "-preset", "medium", "-bf", "3",
            clip.path
        ]
        try make.run()
        make.waitUntilExit()
        try #require(make.terminationStatus == 0, "ffmpeg could not make the clip")
        let fifo = folder.appendingPathComponent("camera.fifo")
        try #require(mkfifo(fifo.path, 0o600) == 0)
        let out = folder.appendingPathComponent("out")
        let process = try P.start(["record", "--source", fifo.path, "--output", out.path, "--quiet", "--preset", "ultrafast"], in: folder)
        let writer = try FileHandle(forWritingTo: fifo)  // opens once segrec opens the pipe
        writer.write(try Data(contentsOf: clip))
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, !FileManager.default.fileExists(atPath: out.appendingPathComponent("manifest.json").path) { usleep(5_000) }
        usleep(500_000)  // everything written is read; the reader waits for more
        kill(process.processIdentifier, SIGINT)
        #expect(P.wait(process, seconds: 30))
        #expect(process.terminationReason == .exit && process.terminationStatus == 0)
        let manifest = try ManifestReader.read(from: out)
        #expect(manifest.stopReason == .requested)
        #expect(manifest.frames.received == 10 && manifest.frames.written == 10)
        let report = try RecordingVerifier.verify(out)
        #expect(report.passed, "\(report.problems) \(report.segments.map(\.problems))")
        try? writer.close()
    }

    @Test("SIGTERM mid-recording: exit 0, stopReason requested, every kept file verifies; a second signal exits 143 at once") func sigtermMidRecording() throws
    {
        let folder = try P.temporaryFolder("mid")
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("out")
        let process = try P.start(["record", "--output", out.path, "--quiet", "--preset", "ultrafast"], in: folder)
        #expect(P.waitUntilCatching(SIGTERM, pid: process.processIdentifier))
        // Wait until the first segment's file exists: the recording is running.
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, !FileManager.default.fileExists(atPath: out.appendingPathComponent("manifest.json").path) { usleep(5_000) }
        kill(process.processIdentifier, SIGTERM)
        #expect(P.wait(process, seconds: 60))
        #expect(process.terminationReason == .exit && process.terminationStatus == 0)
        let manifest = try ManifestReader.read(from: out)
        #expect(manifest.stopReason == .requested)
        #expect(manifest.frames.written == manifest.segments.reduce(0) { $0 + $1.frameCount })
        #expect(manifest.frames.written < 301)  // stopped before the 10 s scenario's end
        let report = try RecordingVerifier.verify(out)
        #expect(report.passed, "\(report.problems) \(report.segments.map(\.problems))")

        let again = folder.appendingPathComponent("again")
        let second = try P.start(["record", "--output", again.path, "--quiet", "--preset", "ultrafast"], in: folder)
        #expect(P.waitUntilCatching(SIGTERM, pid: second.processIdentifier))
        while Date() < deadline, !FileManager.default.fileExists(atPath: again.appendingPathComponent("manifest.json").path) { usleep(5_000) }
        kill(second.processIdentifier, SIGTERM)
        kill(second.processIdentifier, SIGTERM)
        #expect(P.wait(second, seconds: 10))
        #expect(second.terminationReason == .exit && [0, 143].contains(second.terminationStatus))
    }

    @Test("SIGINT while nothing records (formats) exits 130 at once, or 0 if it had finished") func sigintOutsideRecording() throws {
        let folder = try P.temporaryFolder("verify-int")
        defer { try? FileManager.default.removeItem(at: folder) }
        let process = try P.start(["formats"], in: folder)
        let caught = P.waitUntilCatching(SIGINT, pid: process.processIdentifier, seconds: 10)
        if caught && process.isRunning {
            kill(process.processIdentifier, SIGINT)
            #expect(P.wait(process, seconds: 10))
            #expect(process.terminationReason == .exit)
            #expect([0, 130].contains(process.terminationStatus))  // 0 when `formats` finished first
        }
    }
}
