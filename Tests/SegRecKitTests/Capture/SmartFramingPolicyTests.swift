import Foundation
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// Smart framing's recommendations are periodic and the app may apply or ignore each (the
/// seeds; issue 24 row 12): `device.smartFramingPolicy`.
@Suite("Capture: the app's smart framing policy and repeated recommendations", .tags(.capture)) struct SmartFramingPolicyTests {
    /// 4032 at 15 fps on a 90 kHz clock, latency 2, monitoring all framings from the start:
    /// 3 people at 0.2 s, a tap back to 3x4 at 0.6 s, 3 people seen again at 1.0 s.
    static func json(policy: String) -> String {
        """
        {"device": {"format": 4032, "fps": 15, "initialAspectRatio": "3x4", "smartFraming": true,
                    "enabledFramings": ["wide3x4", "narrow3x4", "wide4x3", "narrow4x3"], "smartFramingPolicy": \(policy),
                    "clock": {"timescale": 90000, "offsetSeconds": 0.5, "driftPPM": 0}, "changeLatencyFrames": 2},
         "sessionStartSeconds": 1.0, "durationSeconds": 1.4,
         "events": [{"atSeconds": 0.2, "peopleInFrame": 3}, {"atSeconds": 0.6, "setDynamicAspectRatio": "3x4"},
                    {"atSeconds": 1.0, "peopleInFrame": 3}, {"atSeconds": 1.2, "peopleInFrame": 3}]}
        """
    }

    /// The delivered frames' ratios as runs: `[(first frame, width x height)]`.
    static func runs(_ events: [CaptureOutputEvent]) -> [String] {
        var out: [String] = []
        var last = ""
        for case .frame(let frame) in events {
            let size = "\(frame.pixelBuffer.width)x\(frame.pixelBuffer.height)"
            if size != last { out.append("\(frame.index):\(size)") }
            last = size
        }
        return out
    }

    static func run(_ policy: String) throws -> [CaptureOutputEvent] {
        try DuoFixtures.run(try CaptureSession(scenario: try Scenario.decode(Data(json(policy: policy).utf8), file: "policy.json")))
    }

    @Test("apply: the repeat pulls the picture back to 4x3 after the tap; the third, already in effect, changes nothing") func apply() throws {
        let events = try Self.run(#""apply""#)
        let recommended = DuoFixtures.records(events, .smartFramingRecommended)
        #expect(recommended.map(\.to) == ["wide4x3", "wide4x3", "wide4x3"])
        #expect(recommended.map { $0.message?.components(separatedBy: "; ").last } == ["applied", "applied", "already in effect"])
        #expect(recommended[1].message?.contains("(again)") == true && recommended[1].from == "wide4x3")
        // Frame i at 1/15 s: 0.2 s → frame 3 + 2 = 5; tap 0.6 s → 9 + 2 = 11; 1.0 s → 15 + 2 = 17.
        #expect(Self.runs(events) == ["0:3024x4032", "5:4032x3024", "11:3024x4032", "17:4032x3024"])
    }

    @Test("ignore: every recommendation is logged as ignored; only the app's own tap changes the picture") func ignore() throws {
        let events = try Self.run(#""ignore""#)
        let recommended = DuoFixtures.records(events, .smartFramingRecommended)
        #expect(recommended.count == 3)
        #expect(recommended.allSatisfy { $0.message?.hasSuffix("; ignored (smartFramingPolicy ignore)") == true })
        #expect(Self.runs(events) == ["0:3024x4032"])
    }

    @Test("only some framings: a recommendation outside the list is ignored") func only() throws {
        let events = try Self.run(#"["narrow3x4"]"#)
        #expect(
            DuoFixtures.records(events, .smartFramingRecommended).map { $0.message?.components(separatedBy: "; ").last }
                == Array(repeating: "ignored (smartFramingPolicy narrow3x4)", count: 3))
        #expect(Self.runs(events) == ["0:3024x4032"])
        let applied = try Self.run(#"["wide4x3"]"#)
        #expect(Self.runs(applied) == ["0:3024x4032", "5:4032x3024", "11:3024x4032", "17:4032x3024"])
    }

    @Test("a bad policy names the key and the allowed values") func badPolicy() {
        #expect { _ = try Scenario.decode(Data(Self.json(policy: #""sometimes""#).utf8), file: "policy.json") } throws: { error in
            guard let error = error as? ScenarioError else { return false }
            return error.key == "device.smartFramingPolicy" && error.allowed == SmartFramingPolicy.allowedValues
        }
    }
}
