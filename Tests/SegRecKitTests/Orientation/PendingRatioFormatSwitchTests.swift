import Foundation
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// A `setDynamicAspectRatio` still pending when an `activeFormat` switch reconfigures the
/// camera (README "Orientation, formats and stabilization"): it completes `superseded` and
/// never takes effect; the new format starts with the ratio in effect at the switch (what
/// the buffers had). Validation decides "in effect" with the session's own timing.
///
/// Clock for every case: 24 000 000 ticks/s, offset 0, drift 0; 30 fps; start 1 s. So
/// `to_dev(h) = h · 24e6 / 1e9`, `D(i) = 24 000 000 + 800 000 i`, `T(i) = 1e9 + i · 1e9/30`
/// (rounded half away). A switch at 1.52 s: frames 0…15 are old (T(15) = 1.5e9 < 1.52e9 ≤
/// T(16) = 1 533 333 333). Gap 0.05 s: `D0' = ceil(to_dev(1.57e9)) = 37 680 000`, new frame j
/// at `T = 1.57e9 + j · 1e9/30`, delivered while < 2.2e9: j = 0…18 (19 frames), 35 in all.
@Suite("Orientation: ratio request pending at a format switch", .tags(.cameras)) struct PendingRatioFormatSwitchTests {
    typealias F = OrientationFixtures

    static func json(initial: String, request: String, at requestSeconds: String, format: Int) -> String {
        """
        {"device": {"format": 1920, "fps": 30, "initialAspectRatio": "\(initial)",
                    "clock": {"timescale": 24000000, "offsetSeconds": 0, "driftPPM": 0}, "changeLatencyFrames": 5},
         "switchGapSeconds": 0.05, "sessionStartSeconds": 1.0, "durationSeconds": 1.2,
         "events": [{"atSeconds": \(requestSeconds), "setDynamicAspectRatio": "\(request)"},
                    {"atSeconds": 0.52, "activeFormat": \(format)}]}
        """
    }

    static func superseded(_ events: [CaptureOutputEvent]) -> [DynamicAspectRatioSupersession] {
        events.compactMap { if case .dynamicAspectRatioChangeSuperseded(let s) = $0 { s } else { nil } }
    }

    static func completed(_ events: [CaptureOutputEvent]) -> [DynamicAspectRatioChange] {
        events.compactMap { if case .dynamicAspectRatioChangeCompleted(let c) = $0 { c } else { nil } }
    }

    @Test("16x9 pending at an activeFormat 1280 switch completes superseded; 1280 starts at 9x16 (720x1280)") func pendingBeyondTheGap() throws {
        // Request at 1.5e9 = T(15): threshold to_dev(1.5e9) + 5 · 800 000 = 36 000 000 + 4 000 000
        // = 40 000 000 = D(20): k = 20, not delivered when the switch comes before frame 16.
        let session = try CaptureSession(scenario: try F.scenario(Self.json(initial: "9x16", request: "16x9", at: "0.5", format: 1280)))
        let events = try F.run(session)
        let frames = F.frames(events)
        #expect(frames.count == 35)
        #expect(frames[..<16].allSatisfy { $0.dimensions == VideoDimensions(width: 1080, height: 1920) })
        #expect(frames[16...].allSatisfy { $0.dimensions == VideoDimensions(width: 720, height: 1280) })
        #expect(frames[16].deviceTime == MediaTime(value: 37_680_000, timescale: 24_000_000))
        #expect(frames[16].sessionTime == F.ns(1_570_000_000))
        #expect(frames[34].sessionTime == F.ns(2_170_000_000))  // 1.57e9 + 18 · 1e9/30
        let gone = Self.superseded(events)
        #expect(gone.count == 1)
        #expect(gone.first?.aspectRatio == .ratio16x9 && gone.first?.effectiveFrameIndex == 20)
        #expect(gone.first?.requestTime == F.ns(1_500_000_000))
        #expect(Self.completed(events).isEmpty)
        let switched = try #require(F.records(events, .activeFormatChanged).first)
        #expect(switched.frameIndex == 16 && switched.message?.contains("720x1280 9x16") == true)
    }

    @Test("off by one: a request taking effect on the last old frame carries over; one frame later it is superseded") func effectiveFrameBoundary() throws {
        // 0.33 s: to_dev(1.33e9) = 31 920 000; + 4 000 000 = 35 920 000 → k = 15 (D(15) = 36 000 000,
        // D(14) = 35 200 000), delivered (T(15) = 1.5e9 < 1.52e9): 16x9 is in effect, 1280x720 after the gap.
        let early = try F.run(try CaptureSession(scenario: try F.scenario(Self.json(initial: "9x16", request: "16x9", at: "0.33", format: 1280))))
        let a = F.frames(early)
        #expect(a[14].dimensions == VideoDimensions(width: 1080, height: 1920))
        #expect(a[15].dimensions == VideoDimensions(width: 1920, height: 1080))
        #expect(a[16...].allSatisfy { $0.dimensions == VideoDimensions(width: 1280, height: 720) })
        #expect(Self.superseded(early).isEmpty)
        #expect(Self.completed(early).map(\.deviceTime) == [MediaTime(value: 36_000_000, timescale: 24_000_000)])
        // 0.34 s: to_dev(1.34e9) = 32 160 000; + 4 000 000 = 36 160 000 → k = 16 (D(16) = 36 800 000),
        // never captured on 1920: superseded, and 1280 keeps 9x16.
        let late = try F.run(try CaptureSession(scenario: try F.scenario(Self.json(initial: "9x16", request: "16x9", at: "0.34", format: 1280))))
        let b = F.frames(late)
        #expect(b[15].dimensions == VideoDimensions(width: 1080, height: 1920))
        #expect(b[16...].allSatisfy { $0.dimensions == VideoDimensions(width: 720, height: 1280) })
        #expect(Self.superseded(late).map(\.effectiveFrameIndex) == [16])
        #expect(Self.completed(late).isEmpty)
    }

    @Test("validation uses the ratio in effect: 4032 (no 16x9) is accepted while 16x9 is pending, refused once it is in effect") func validationRatioInEffect()
        throws
    {
        // Pending (k = 20, as above): 3x4 is in effect and 4032 lists it; 3024x4032 after the gap.
        let scenario = try F.scenario(Self.json(initial: "3x4", request: "16x9", at: "0.5", format: 4032))
        let frames = F.frames(try F.run(try CaptureSession(scenario: scenario)))
        #expect(frames.count == 35)
        #expect(frames[15].dimensions == VideoDimensions(width: 1440, height: 1920))
        #expect(frames[16...].allSatisfy { $0.dimensions == VideoDimensions(width: 3024, height: 4032) })
        // In effect: 0.3 s → to_dev(1.3e9) + 4e6 = 35 200 000 = D(14), delivered before the switch.
        #expect(
            throws: ScenarioError(
                file: "orientation-test.json", key: "events[1].activeFormat", problem: "format 4032 does not list 16x9, the ratio in effect at 0.52 s on front",
                allowed: "a format listing 16x9: 1280, 1920, 3840")
        ) { _ = try F.scenario(Self.json(initial: "3x4", request: "16x9", at: "0.3", format: 4032)) }
    }
}
