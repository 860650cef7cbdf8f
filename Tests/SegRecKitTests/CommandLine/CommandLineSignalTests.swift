import Foundation
import Testing
@testable import SegRecKit

/// The built binary under SIGINT / SIGTERM. Skipped when the binary is not beside the tests.
@Suite("CommandLine: signals", .serialized, .enabled(if: CommandLineProcess.binary != nil, "segrec binary not found beside the test bundle"))
struct CommandLineSignalTests {
    typealias P = CommandLineProcess

    @Test("a signal as soon as the handler exists, while a large scenario is read: exit 128+signal, nothing written",
          arguments: [SIGINT, SIGTERM])
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
        #expect(stderr.contains("interrupted by \(signal == SIGINT ? "SIGINT" : "SIGTERM") before the recording started")
                || stderr.contains("segrec: interrupted; exiting at once"), "\(stderr)")
    }

    @Test("SIGTERM mid-recording: exit 0, stopReason requested, every kept file verifies; a second signal exits 143 at once")
    func sigtermMidRecording() throws {
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
        let manifest = try ManifestWriter.read(from: out)
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

    @Test("SIGINT while nothing records (formats) exits 130 at once, or 0 if it had finished")
    func sigintOutsideRecording() throws {
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
