import Foundation
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

@Suite("Capture scenario: decoding and validation", .tags(.scenario)) struct CaptureScenarioDecodingTests {
    static func decode(_ json: String, file: String = "bad.json") throws(ScenarioError) -> Scenario { try Scenario.decode(Data(json.utf8), file: file) }

    static func error(_ json: String) -> ScenarioError? {
        do {
            _ = try decode(json)
            return nil
        } catch { return error }
    }

    @Test("every file in SampleStreams decodes and builds a session") func sampleStreamsDecode() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: CaptureScenarioFiles.directory.path).filter { $0.hasSuffix(".json") }.sorted()
        #expect(files.count >= 6)
        for required in [
            "tap-to-rotate.json", "smart-framing-group-selfie.json", "rapid-flips.json", "same-ratio-request.json", "long-recording-drift.json",
            "no-change.json"
        ] { #expect(files.contains(required)) }
        for file in files {
            let scenario = try Scenario.load(contentsOf: CaptureScenarioFiles.directory.appendingPathComponent(file))
            #expect(scenario.name + ".json" == file)
            _ = try CaptureSession(scenario: scenario)
        }
    }

    @Test("tap-to-rotate.json is the built-in scenario") func tapToRotateMatchesBuiltIn() throws {
        let file = try Scenario.load(contentsOf: CaptureScenarioFiles.url("tap-to-rotate"))
        let builtIn = try #require(Scenario.builtIn(named: "tap-to-rotate"))
        try builtIn.validate(file: "tap-to-rotate")
        #expect(file.device == builtIn.device)
        #expect(file.sessionStartSeconds == builtIn.sessionStartSeconds)
        #expect(file.durationSeconds == builtIn.durationSeconds)
        #expect(file.events == builtIn.events)
        #expect(builtIn.sessionEvents.map(\.hostTime) == [3_000_000_000, 5_000_000_000, 7_000_000_000].map { MediaTime(value: $0, timescale: 1_000_000_000) })
    }

    @Test("defaults") func defaults() throws {
        let scenario = try Self.decode(#"{"durationSeconds": 1}"#, file: "dir/minimal.json")
        #expect(scenario.name == "minimal")
        #expect(scenario.device.format == 1920)
        #expect(scenario.device.fps == (try FrameRate(30)))
        #expect(scenario.device.initialAspectRatio == .ratio9x16)
        #expect(scenario.device.clock == Scenario.Clock(timescale: 24_000_000, offsetSeconds: 0, driftPPM: 0))
        #expect(scenario.device.changeLatencyFrames == 2)
        #expect(scenario.device.completionDelayFrames == 0)
        #expect(!scenario.device.smartFraming)
        #expect(scenario.sessionStartSeconds == 1.0)
        #expect(scenario.sessionStart == MediaTime(value: 1_000_000_000, timescale: 1_000_000_000))
        #expect(scenario.events.isEmpty)
        let clock = try scenario.makeDeviceClock()
        #expect(clock.identifier == "front" && clock.timescale == 24_000_000 && clock.offsetNanoseconds == 0)
    }

    @Test("times are rounded once from the decimal, not via Double multiplication") func exactTimes() throws {
        // 1.0000000005 · 1e9 in Double is 1000000000.4999999 → 1_000_000_000, but the decimal
        // rounds half away to 1_000_000_001; likewise 2000000.0000000005 → 2_000_000_000_000_001.
        let a = try Self.decode(#"{"sessionStartSeconds": 1.0000000005, "durationSeconds": 1}"#)
        #expect(a.sessionStart.value == 1_000_000_001)
        let b = try Self.decode(
            #"{"sessionStartSeconds": 2000000.0000000005, "durationSeconds": 0.1,"# + #" "events": [{"atSeconds": 0.0333333335, "videoZoomFactor": 2}]}"#)
        #expect(b.sessionStart.value == 2_000_000_000_000_001)
        #expect(b.duration.value == 100_000_000)
        #expect(b.hostTime(of: b.events[0]).value == 2_000_000_033_333_335)
    }

    @Test("fps as a number, decimal or exact rational string") func frameRates() throws {
        #expect(try Self.decode(#"{"device": {"fps": "30000/1001"}, "durationSeconds": 1}"#).device.fps == (try FrameRate(30_000, 1001)))
        #expect(try Self.decode(#"{"device": {"fps": 29.97}, "durationSeconds": 1}"#).device.fps == (try FrameRate(2997, 100)))
        #expect(try Self.decode(#"{"device": {"fps": 60}, "durationSeconds": 1}"#).device.fps == (try FrameRate(60)))
    }

    struct BadCase: Sendable, CustomTestStringConvertible {
        let name: String, json: String, key: String, problem: String, allowed: String
        var testDescription: String { name }
    }

    static let badCases: [BadCase] = [
        BadCase(
            name: "unknown top-level key", json: #"{"durationSeconds": 1, "speed": 2}"#, key: "speed", problem: "unknown key",
            allowed: "keys description, device, sessionStartSeconds, durationSeconds, events"),
        BadCase(
            name: "unknown device key", json: #"{"device": {"fsp": 30}, "durationSeconds": 1}"#, key: "device.fsp", problem: "unknown key",
            allowed: "format, fps, initialAspectRatio, clock, changeLatencyFrames"),
        BadCase(
            name: "unknown clock key", json: #"{"device": {"clock": {"drift": 1}}, "durationSeconds": 1}"#, key: "device.clock.drift", problem: "unknown key",
            allowed: "keys timescale, offsetSeconds, driftPPM"),
        BadCase(
            name: "unknown event key", json: #"{"durationSeconds": 2, "events": [{"atSeconds": 1, "zoom": 2}]}"#, key: "events[0].zoom", problem: "unknown key",
            allowed: "atSeconds, setDynamicAspectRatio, videoZoomFactor, peopleInFrame"),
        BadCase(
            name: "bad ratio in events[2]",
            json:
                #"{"durationSeconds": 5, "events": [{"atSeconds": 1, "videoZoomFactor": 2}, {"atSeconds": 2, "setDynamicAspectRatio": "16x9"}, {"atSeconds": 3, "setDynamicAspectRatio": "5x4"}]}"#,
            key: "events[2].setDynamicAspectRatio", problem: "\"5x4\" is not a dynamic aspect ratio", allowed: "3x4, 4x3, 9x16, 16x9, 1x1"),
        BadCase(
            name: "bad initial ratio", json: #"{"device": {"initialAspectRatio": "16:9"}, "durationSeconds": 1}"#, key: "device.initialAspectRatio",
            problem: "\"16:9\" is not a dynamic aspect ratio", allowed: "3x4, 4x3, 9x16, 16x9, 1x1"),
        BadCase(
            name: "initial ratio unsupported by 4032", json: #"{"device": {"format": 4032, "initialAspectRatio": "9x16"}, "durationSeconds": 1}"#,
            key: "device.initialAspectRatio", problem: "9x16 is not supported by format 4032", allowed: "3x4, 4x3 for format 4032"),
        BadCase(
            name: "unknown format", json: #"{"device": {"format": 2048}, "durationSeconds": 1}"#, key: "device.format",
            problem: "2048 is not a front camera format", allowed: "1280, 1920, 3840, 4032"),
        BadCase(
            name: "format not an integer", json: #"{"device": {"format": "1920"}, "durationSeconds": 1}"#, key: "device.format",
            problem: "expected an integer, got \"1920\"", allowed: "1280, 1920, 3840, 4032"),
        BadCase(
            name: "negative event time", json: #"{"durationSeconds": 2, "events": [{"atSeconds": -0.5, "videoZoomFactor": 2}]}"#, key: "events[0].atSeconds",
            problem: "-0.5 is negative", allowed: "0 ≤ atSeconds < durationSeconds (2.0)"),
        BadCase(
            name: "event at the end", json: #"{"durationSeconds": 2, "events": [{"atSeconds": 2.0, "setDynamicAspectRatio": "1x1"}]}"#,
            key: "events[0].atSeconds", problem: "2.0 is at or past the end", allowed: "0 ≤ atSeconds < durationSeconds (2.0)"),
        BadCase(
            name: "event past the end",
            json: #"{"durationSeconds": 2, "events": [{"atSeconds": 1, "videoZoomFactor": 2}, {"atSeconds": 7.5, "videoZoomFactor": 3}]}"#,
            key: "events[1].atSeconds", problem: "7.5 is at or past the end", allowed: "0 ≤ atSeconds < durationSeconds (2.0)"),
        BadCase(
            name: "negative session start", json: #"{"sessionStartSeconds": -1, "durationSeconds": 1}"#, key: "sessionStartSeconds",
            problem: "-1.0 is out of range", allowed: "0 ≤ sessionStartSeconds ≤ 1000000000"),
        BadCase(
            name: "zero duration", json: #"{"durationSeconds": 0}"#, key: "durationSeconds", problem: "0.0 is out of range",
            allowed: "0 < durationSeconds ≤ 604800"),
        BadCase(name: "missing duration", json: #"{}"#, key: "durationSeconds", problem: "is missing", allowed: "0 < durationSeconds ≤ 604800"),
        BadCase(
            name: "duration as a string", json: #"{"durationSeconds": "10"}"#, key: "durationSeconds", problem: "expected a number, got \"10\"",
            allowed: "0 < durationSeconds ≤ 604800"),
        BadCase(
            name: "fps above 1920's maximum", json: #"{"device": {"fps": 120}, "durationSeconds": 1}"#, key: "device.fps",
            problem: "120 fps exceeds the 1920 format's maximum", allowed: "up to 60 fps for format 1920"),
        BadCase(
            name: "fps above 3840's maximum", json: #"{"device": {"format": 3840, "fps": "60000/1001"}, "durationSeconds": 1}"#, key: "device.fps",
            problem: "60000/1001 fps exceeds the 3840 format's maximum", allowed: "up to 30 fps for format 3840"),
        BadCase(
            name: "fps malformed", json: #"{"device": {"fps": "30000/0"}, "durationSeconds": 1}"#, key: "device.fps", problem: "frame rate 30000/0 must be > 0",
            allowed: "exact rational string such as \"30000/1001\""),
        BadCase(
            name: "peopleInFrame above 100 (any format accepts a count in range)",
            json: #"{"device": {"format": 4032, "initialAspectRatio": "3x4"}, "durationSeconds": 2, "events": [{"atSeconds": 1, "peopleInFrame": 101}]}"#,
            key: "events[0].peopleInFrame", problem: "101 is out of range", allowed: "an integer, 0...100, on any format at any time"),
        BadCase(
            name: "smart framing on 1920", json: #"{"device": {"smartFraming": true}, "durationSeconds": 1}"#, key: "device.smartFraming",
            problem: "format 1920 has no smart framing", allowed: "true only with format 4032"),
        BadCase(
            name: "event without action", json: #"{"durationSeconds": 2, "events": [{"atSeconds": 1}]}"#, key: "events[0]", problem: "has no action",
            allowed: "exactly one of setDynamicAspectRatio, videoZoomFactor, peopleInFrame"),
        BadCase(
            name: "event with two actions",
            json: #"{"durationSeconds": 2, "events": [{"atSeconds": 1, "setDynamicAspectRatio": "1x1", "videoZoomFactor": 2}]}"#, key: "events[0]",
            problem: "has 2 actions (setDynamicAspectRatio, videoZoomFactor)", allowed: "exactly one of setDynamicAspectRatio, videoZoomFactor, peopleInFrame"),
        BadCase(
            name: "event without time", json: #"{"durationSeconds": 2, "events": [{"videoZoomFactor": 2}]}"#, key: "events[0].atSeconds", problem: "is missing",
            allowed: "0 ≤ atSeconds < durationSeconds"),
        BadCase(
            name: "zoom out of range", json: #"{"durationSeconds": 2, "events": [{"atSeconds": 1, "videoZoomFactor": 20}]}"#, key: "events[0].videoZoomFactor",
            problem: "20.0 is out of range", allowed: "1.0...16.0"),
        BadCase(
            name: "negative latency", json: #"{"device": {"changeLatencyFrames": -1}, "durationSeconds": 1}"#, key: "device.changeLatencyFrames",
            problem: "-1 is out of range", allowed: "0...1000"),
        BadCase(
            name: "zero timescale", json: #"{"device": {"clock": {"timescale": 0}}, "durationSeconds": 1}"#, key: "device.clock.timescale",
            problem: "0 is out of range", allowed: "1...2147483647"),
        BadCase(
            name: "drift too large", json: #"{"device": {"clock": {"driftPPM": 5000}}, "durationSeconds": 1}"#, key: "device.clock.driftPPM",
            problem: "5000.0 is out of range", allowed: "-1000...1000"),
        BadCase(
            name: "events not an array", json: #"{"durationSeconds": 1, "events": {}}"#, key: "events", problem: "expected an array, got an object",
            allowed: "an array of event objects"),
        BadCase(name: "not JSON", json: #"{"durationSeconds": 1,"#, key: "(root)", problem: "not valid JSON", allowed: "a JSON object"),
        BadCase(
            name: "root not an object", json: #"[1, 2]"#, key: "(root)", problem: "expected an object, got an array",
            allowed: "an object with keys description, device")
    ]

    @Test("malformed scenarios name the file, the key and what is allowed", arguments: badCases) func malformed(_ c: BadCase) throws {
        let error = try #require(Self.error(c.json))
        #expect(error.file == "bad.json")
        #expect(error.key == c.key)
        #expect(error.problem.contains(c.problem), "problem: \(error.problem)")
        #expect(error.allowed.contains(c.allowed), "allowed: \(error.allowed)")
        #expect(error.description.hasPrefix("bad.json: \(c.key): "))
        #expect(error.description.contains("; allowed: "))
    }

    @Test("the message of a bad ratio, in full") func fullMessage() throws {
        let error = try #require(
            Self.error(
                #"{"durationSeconds": 5, "events": [{"atSeconds": 1, "videoZoomFactor": 2}, {"atSeconds": 2, "videoZoomFactor": 1}, {"atSeconds": 3, "setDynamicAspectRatio": "5x4"}]}"#
            ))
        #expect(error.description == #"bad.json: events[2].setDynamicAspectRatio: "5x4" is not a dynamic aspect ratio; allowed: 3x4, 4x3, 9x16, 16x9, 1x1"#)
    }

    @Test("a missing file is a ScenarioError naming it") func missingFile() {
        #expect(throws: ScenarioError.self) { _ = try Scenario.load(contentsOf: URL(fileURLWithPath: "/nonexistent/scenario.json")) }
    }
}

@Suite("Scenario: frame rate floor", .tags(.scenario)) struct ScenarioFrameRateFloorTests {
    /// Below 1 fps a frame would outlast what a segment file can store; rejected by name.
    @Test func belowOneFramePerSecondIsRejected() throws {
        let json = #"{"device": {"format": 1280, "fps": "1/3", "initialAspectRatio": "16x9"}, "durationSeconds": 10}"#
        do {
            _ = try Scenario.decode(Data(json.utf8), file: "slow.json")
            Issue.record("expected an error")
        } catch {
            #expect(error.description.contains("slow.json"))
            #expect(error.description.contains("device.fps"))
            #expect(error.description.contains("1 to 60 fps"))
        }
    }
}

@Suite("Scenario: event order", .tags(.scenario)) struct ScenarioEventOrderTests {
    /// Events need not be listed in time order: the session applies them by time, and
    /// events at the same instant in file order.
    @Test func eventsAreAppliedInTimeOrder() throws {
        let json =
            #"{"durationSeconds": 5, "events": [{"atSeconds": 3, "setDynamicAspectRatio": "1x1"}, {"atSeconds": 1, "setDynamicAspectRatio": "16x9"}, {"atSeconds": 1, "videoZoomFactor": 2}]}"#
        let scenario = try Scenario.decode(Data(json.utf8), file: "unsorted.json")
        let times = scenario.sessionEvents.map(\.hostTime.value)
        #expect(times == [2_000_000_000, 2_000_000_000, 4_000_000_000])
        #expect(scenario.sessionEvents.map(\.action) == [.setDynamicAspectRatio(.ratio16x9), .videoZoomFactor(2), .setDynamicAspectRatio(.ratio1x1)])
    }
}

@Suite("Scenario: default initial ratio", .tags(.scenario)) struct ScenarioDefaultRatioTests {
    /// Without `initialAspectRatio`: 9x16 where the format has it, else its first ratio.
    @Test(arguments: [(1920, DynamicAspectRatio.ratio9x16), (4032, .ratio3x4)]) func defaultInitialRatio(format: Int, expected: DynamicAspectRatio) throws {
        let json = #"{"device": {"format": \#(format), "fps": 15}, "durationSeconds": 1}"#
        #expect(try Scenario.decode(Data(json.utf8), file: "d.json").device.initialAspectRatio == expected)
    }
}
