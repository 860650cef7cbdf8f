import Foundation
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

@Suite("Scenario: duplicate keys, 32-bit rates, excerpts, many events", .tags(.scenario)) struct ScenarioMessagesTests {
    static func error(_ json: String, file: String = "dup.json") -> ScenarioError? {
        do {
            _ = try Scenario.decode(Data(json.utf8), file: file)
            return nil
        } catch { return error }
    }

    @Test(
        "a duplicate key is an error naming the file, the key path and the line",
        arguments: [
            (#"{"durationSeconds": 1, "durationSeconds": 2}"#, "durationSeconds", 1),
            ("{\"durationSeconds\": 2,\n \"device\": {\"format\": 1280,\n \"format\": 1920}}", "device.format", 3),
            (#"{"durationSeconds": 2, "device": {"clock": {"timescale": 90000, "timescale": 1000}}}"#, "device.clock.timescale", 1),
            (
                "{\"durationSeconds\": 2, \"events\": [{\"atSeconds\": 0.5, \"videoZoomFactor\": 2},\n {\"atSeconds\": 0.5, \"atSeconds\": 0.7, \"videoZoomFactor\": 2}]}",
                "events[1].atSeconds", 2
            ),
            // The same key spelled with an escape is the same key.
            (#"{"durationSeconds": 2, "device": {"format": 1280, "form\u0061t": 1920}}"#, "device.format", 1)
        ]) func duplicateKey(json: String, path: String, line: Int) throws
    {
        let error = try #require(Self.error(json))
        #expect(error.file == "dup.json")
        #expect(error.key == path)
        #expect(error.problem == "duplicate key (second occurrence on line \(line))")
        #expect(error.description.hasPrefix("dup.json: \(path): duplicate key"))
    }

    @Test("the same key in sibling objects, and keys inside strings, are not duplicates") func noFalseDuplicates() throws {
        let json =
            #"{"description": "a \"durationSeconds\": 1, {\"x\": 1, \"x\": 2}", "durationSeconds": 2, "events": [{"atSeconds": 0.5, "videoZoomFactor": 2}, {"atSeconds": 1.0, "videoZoomFactor": 3}]}"#
        let scenario = try Scenario.decode(Data(json.utf8), file: "ok.json")
        #expect(scenario.events.map(\.atSeconds) == [0.5, 1.0])
        #expect(JSONDuplicateKeys.first(in: Data(json.utf8)) == nil)
    }

    @Test(
        "an fps whose reduced terms do not fit 32 bits is exit-65 material naming device.fps",
        arguments: ["4294967291/4294967279", "4294967297/4294967296", "2147483648/2147483647"]) func fpsBeyond32Bits(fps: String) throws
    {
        let error = try #require(Self.error(#"{"durationSeconds": 1, "device": {"format": 1280, "fps": "\#(fps)"}}"#, file: "fps.json"))
        #expect(error.file == "fps.json")
        #expect(error.key == "device.fps")
        #expect(error.problem.contains("32 bits"))
    }

    @Test("an fps that reduces into 32 bits is accepted: 60000000000/1000000000 is 60") func fpsReducing() throws {
        let scenario = try Scenario.decode(Data(#"{"durationSeconds": 1, "device": {"format": 1280, "fps": "60000000000/1000000000"}}"#.utf8), file: "ok.json")
        #expect(scenario.device.fps.numerator == 60 && scenario.device.fps.denominator == 1)
    }

    @Test("echoed values are cut to 60 characters and an ellipsis") func excerpts() throws {
        let long = String(repeating: "x", count: 1_000_000)
        for json in [
            #"{"durationSeconds": 1, "events": [{"atSeconds": 0.5, "setDynamicAspectRatio": "\#(long)"}]}"#,
            #"{"durationSeconds": 1, "device": {"fps": "\#(long)"}}"#, #"{"durationSeconds": 1, "\#(long)": 1}"#, #"{"durationSeconds": "\#(long)"}"#
        ] {
            let error = try #require(Self.error(json))
            #expect(error.description.count < 400, "\(error.description.count) characters")
            #expect(error.description.contains(String(repeating: "x", count: 60) + "…"))
            #expect(!error.description.contains(String(repeating: "x", count: 61)))
        }
        #expect(Excerpt.of("a\nb") == "a b")
        #expect(Excerpt.of(String(repeating: "é", count: 61)) == String(repeating: "é", count: 60) + "…")
    }

    @Test("10 000 requests at one instant: the last wins its frame, every other completes superseded, in order") func manyRequestsOnOneFrame() throws {
        let ratios: [DynamicAspectRatio] = [.ratio16x9, .ratio1x1, .ratio4x3, .ratio3x4, .ratio9x16]
        var events: [Scenario.Event] = (0..<10_000).map { Scenario.Event(atSeconds: 0.5, action: .setDynamicAspectRatio(ratios[$0 % 5])) }
        events.append(Scenario.Event(atSeconds: 0.5, action: .setDynamicAspectRatio(.ratio16x9)))  // 10 001 requests
        let scenario = Scenario(name: "many", device: Scenario.Device(format: 1280, fps: try FrameRate(30)), durationSeconds: 1, events: events)
        try scenario.validate(file: "many")
        let (tokens, frames, changes) = try CaptureTestSupport.tokens(try CaptureSession(scenario: scenario))
        #expect(frames.count == 30)
        #expect(tokens.filter { $0.hasPrefix("S") }.count == 10_000)
        #expect(changes.count == 1 && changes[0].aspectRatio == .ratio16x9)
        // Requests at 0.5 s (frame 15's instant) with latency 2 take effect on frame 17.
        #expect(frames.prefix(17).allSatisfy { $0.dimensions == VideoDimensions(width: 720, height: 1280) })
        #expect(frames.dropFirst(17).allSatisfy { $0.dimensions == VideoDimensions(width: 1280, height: 720) })
        let completion = try #require(tokens.firstIndex(of: "C16x9"))
        #expect(tokens[completion + 1] == "F17")
        #expect(tokens[completion - 1] == "S9x16")  // the 10 000th request (index 9 999: 9x16)
    }

    @Test("requests on successive frames: each is in effect from its own frame, none superseded") func requestsOnSuccessiveFrames() throws {
        // 30 fps for 2 s; a request every frame period from 0.1 s alternates 16x9 / 9x16.
        let events = (0..<50).map { i in Scenario.Event(atSeconds: 0.1 + Double(i) / 30, action: .setDynamicAspectRatio(i % 2 == 0 ? .ratio16x9 : .ratio9x16)) }
        let scenario = Scenario(
            name: "flips", device: Scenario.Device(format: 1280, fps: try FrameRate(30), changeLatencyFrames: 0), durationSeconds: 2, events: events)
        try scenario.validate(file: "flips")
        let (tokens, frames, changes) = try CaptureTestSupport.tokens(try CaptureSession(scenario: scenario))
        #expect(frames.count == 60)
        #expect(!tokens.contains { $0.hasPrefix("S") })
        #expect(changes.count == 50)
        // Request i (at frame 3 + i's instant) is in effect from frame 3 + i: frame 3 is 16x9, 4 is 9x16, …
        for (offset, frame) in frames.enumerated() where (3..<53).contains(offset) {
            let wide = (offset - 3) % 2 == 0
            #expect(frame.dimensions == (wide ? VideoDimensions(width: 1280, height: 720) : VideoDimensions(width: 720, height: 1280)), "frame \(offset)")
        }
    }
}
