import Foundation
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// Smart framing started while people are already in frame recommends for them at once,
/// instead of waiting for the next `peopleInFrame`.
@Suite("Orientation: smart framing started with people in frame", .tags(.cameras)) struct SmartFramingStartTests {
    typealias F = OrientationFixtures

    @Test("stop, 3 people while stopped, start: wide4x3 recommended at the start, 4x3 two frames later") func recommendsOnStart() throws {
        let scenario = try F.scenario(
            """
            {"device": {"format": 4032, "fps": 15, "initialAspectRatio": "3x4",
                        "clock": {"timescale": 90000, "offsetSeconds": 0.0, "driftPPM": 0},
                        "smartFraming": true, "enabledFramings": ["wide3x4", "narrow3x4", "wide4x3", "narrow4x3"]},
             "sessionStartSeconds": 1.0, "durationSeconds": 2.0,
             "events": [{"atSeconds": 0.2, "peopleInFrame": 2}, {"atSeconds": 0.5, "smartFraming": "stop"},
                        {"atSeconds": 0.6, "peopleInFrame": 3}, {"atSeconds": 1.0, "smartFraming": "start"},
                        {"atSeconds": 1.4, "peopleInFrame": 1}]}
            """)
        let events = try F.run(try CaptureSession(scenario: scenario))
        // to_dev(h) = h · 90000 / 1e9; D(i) = 90 000 + 6 000 i; T(i) = 1e9 + i · 1e9/15; 30 frames (< 3e9).
        let recommended = F.records(events, .smartFramingRecommended)
        #expect(recommended.map(\.to) == ["wide3x4", "wide4x3", "narrow3x4"])
        #expect(recommended.map(\.sessionTime) == [F.ns(1_200_000_000), F.ns(2_000_000_000), F.ns(2_400_000_000)])
        // 4x3 asked at 2.0e9 with latency 2: to_dev = 180 000 + 2 · 6 000 = 192 000 = D(17) (T = 2 133 333 333);
        // 3x4 asked at 2.4e9: 216 000 + 12 000 = 228 000 = D(23).
        let frames = F.frames(events)
        let portrait = VideoDimensions(width: 3024, height: 4032)
        let landscape = VideoDimensions(width: 4032, height: 3024)
        #expect(frames.count == 30)
        #expect(
            frames.map(\.dimensions) == Array(repeating: portrait, count: 17) + Array(repeating: landscape, count: 6) + Array(repeating: portrait, count: 7))
        #expect(frames[17].sessionTime == F.ns(2_133_333_333))
    }
}
