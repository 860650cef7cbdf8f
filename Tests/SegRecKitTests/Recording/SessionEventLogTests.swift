import Foundation
import Testing

@testable import SegRecCommandLine
@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// The manifest's `events` (DESIGN.md "Manifest": in session order) and what the recording
/// logs around its end (cold test 13, items 5, 6, 8, 9): events are appended in place,
/// listed in session order (stable for equal times), only while the recording ran (none
/// after `stopTime`, none naming a frame the session did not deliver at that time); after
/// a stop-on-change stop the session's warnings are counted, not listed; the `record`
/// summary prints exact decimals of the rational times.
///
/// Session times below are exact: every clock has no drift, so a frame's session time is
/// `start + k / fps` in exact fractions (worked out in each comment).
@Suite("Recording: session event log", .tags(.recording)) struct SessionEventLogTests {
    typealias F = OrientationFixtures

    static func event(_ kind: SessionEventRecord.Kind = .deviceOrientationChanged, at ns: Int64, _ label: String, frame: Int64? = nil) -> SessionEventRecord {
        SessionEventRecord(kind: kind, sessionTime: F.ns(ns), to: label, frameIndex: frame)
    }

    // MARK: Item 5: linear logging

    /// The old builder rebuilt the whole list for every event (`(events ?? []) + [record]`,
    /// a new buffer allocated while the old one is alive): n events cost O(n²) copies
    /// (10 000 rotations: 10.8 s). Now each append whose buffer has room stays in that buffer.
    @Test("appending a session event reuses the list's buffer whenever it has room (no copy per event)") func appendInPlace() {
        var builder = ManifestBuilder(
            mode: .segment, devices: [.host], encoder: RecorderTestSupport.settings, frameIndexStamp: false, recordsSessionEvents: true)
        var appendsWithRoom = 0
        var inPlace = 0
        for i in 0..<2_000 {
            let (address, count) = builder.manifest.events!.withUnsafeBufferPointer { (Int(bitPattern: $0.baseAddress), $0.count) }
            let capacity = builder.manifest.events!.capacity
            builder.apply(.sessionEvent(Self.event(at: Int64(1_000 + i), "e\(i)")))
            let after = builder.manifest.events!.withUnsafeBufferPointer { Int(bitPattern: $0.baseAddress) }
            #expect(builder.manifest.events!.count == count + 1)
            if capacity > count {
                appendsWithRoom += 1
                if after == address { inPlace += 1 }
            }
        }
        #expect(builder.manifest.events!.count == 2_000)
        #expect(appendsWithRoom > 1_900)
        #expect(inPlace == appendsWithRoom)
    }

    // MARK: Item 6: session order, nothing after the end, nothing that did not happen

    @Test("events are kept in session order, stable for equal times") func sessionOrder() {
        var builder = ManifestBuilder(mode: .segment, devices: [.host], encoder: RecorderTestSupport.settings, frameIndexStamp: false)
        for (ns, label) in [(5, "a"), (3, "b"), (5, "c"), (1, "d"), (3, "e"), (9, "f")] as [(Int64, String)] {
            builder.apply(.sessionEvent(Self.event(at: ns, label)))
        }
        #expect(builder.manifest.events?.map(\.to) == ["d", "b", "e", "a", "c", "f"])
        #expect(builder.manifest.events?.map(\.sessionTime.value) == [1, 3, 3, 5, 5, 9])
    }

    @Test("at the end, events after stopTime leave the list and a note counts them; at stopTime they stay") func nothingAfterTheEnd() {
        var builder = ManifestBuilder(mode: .segment, devices: [.host], encoder: RecorderTestSupport.settings, frameIndexStamp: false)
        builder.apply(.segmentOpened(ManifestBuilderTests.record("segment-000.mp4", start: 0)))
        builder.apply(.frameWritten(segment: 0))
        for (ns, label) in [(5, "a"), (12, "b"), (10, "c"), (11, "d")] as [(Int64, String)] { builder.apply(.sessionEvent(Self.event(at: ns, label))) }
        builder.apply(.segmentEnded(file: "segment-000.mp4", end: F.ns(10)))
        builder.apply(.finished(.endOfStream, error: nil))
        #expect(builder.manifest.events?.map(\.to) == ["a", "c"])
        #expect(builder.sessionEventsAfterEnd == 2)
        #expect(builder.manifest.notes == ["2 session events after the end of the recording (stopTime 0.000000010 s) are not in events"])
    }

    @Test("sequencer: an event naming a frame waits for it; another time or an earlier frame never happened") func sequencer() {
        var s = SessionEventSequencer()
        let free = Self.event(at: 100, "free")
        #expect(s.received(free) == free)
        let early = Self.event(.activeFormatChanged, at: 1_750, "early", frame: 30)
        let late = Self.event(.activeFormatChanged, at: 1_850, "late", frame: 30)
        let turn = Self.event(.rotationChanged, at: 1_850, "turn", frame: 30)
        let beyond = Self.event(.activeFormatChanged, at: 3_150, "beyond", frame: 57)
        #expect(s.received(early) == nil)
        #expect(s.received(late) == nil)
        #expect(s.frameArrived(index: 29, sessionTime: F.ns(1_500)) == [])
        #expect(s.received(turn) == nil)
        #expect(s.frameArrived(index: 30, sessionTime: F.ns(1_850)) == [late, turn])
        #expect(s.leftOut == [early])
        // An event naming a frame already delivered passes at once.
        let past = Self.event(.zoomChanged, at: 1_850, "past", frame: 30)
        #expect(s.received(past) == past)
        // A frame the source dropped (time unknown) releases what names it.
        let dropped = Self.event(.rotationChanged, at: 1_900, "dropped", frame: 31)
        #expect(s.received(dropped) == nil)
        #expect(s.frameArrived(index: 31, sessionTime: nil) == [dropped])
        #expect(s.received(beyond) == nil)
        s.finish()
        #expect(s.leftOut == [early, beyond])
        #expect(
            s.note
                == "2 session events naming a frame the session did not deliver at that time are not in events (activeFormatChanged at 0.000001750 s naming frame 30, activeFormatChanged at 0.000003150 s naming frame 57)"
        )
    }

    /// cold13 sc/23 shortened. 1920@30, clock 24 MHz +0.2 s, no drift: frame k at 1 + k/30 s.
    /// `activeFormat 1280` at host 1.9 = frame 27's time: applied before it, so frames 0…26
    /// are the last (stopTime 1.9, the switch). The new grid would start at 1.9 + 0.25 =
    /// 2.15 ≥ the end 2.0: frame 27 never comes. The turn at 1.95 is after stopTime.
    @Test("a switch whose gap runs past the end and a turn after the last frame are not listed; notes count both") func switchAtTheEnd() async throws {
        let scenario = try F.scenario(
            """
            {"device": {"format": 1920, "fps": 30, "initialAspectRatio": "16x9",
                        "clock": {"timescale": 24000000, "offsetSeconds": 0.2, "driftPPM": 0}},
             "sessionStartSeconds": 1.0, "durationSeconds": 1.0,
             "events": [{"atSeconds": 0.9, "activeFormat": 1280},
                        {"atSeconds": 0.95, "deviceOrientation": "landscapeLeft"}]}
            """)
        let (_, m) = try await F.record(scenario)
        #expect(m.segments.count == 1)
        #expect(m.frames.received == 27 && m.frames.written == 27)
        #expect(m.stopTime == F.ns(1_900_000_000))
        #expect(m.events == [])
        #expect(
            m.notes.contains(
                "1 session event naming a frame the session did not deliver at that time is not in events (activeFormatChanged at 2.150000000 s naming frame 27)"
            ))
        #expect(m.notes.contains("1 session event after the end of the recording (stopTime 1.900000000 s) is not in events"))
    }

    /// cold13 sc/11 shortened. 1920@60, ns clock, no drift: frame k at 1 + k/60 s. activeFormat
    /// 1280 at 1.3 (= frame 18): frames 0…17; its grid would start at 1.55. activeFormat 3840
    /// at 1.4, inside that gap: the grid starts at 1.65 at 30 fps (3840's limit), frame 18
    /// first; 1.65 + j/30 < 2.0 → j ≤ 10: frames 18…28. No 1280 frame ever exists.
    @Test("a switch superseded inside its gap names a frame that never came at that time: not listed") func switchInsideTheGap() async throws {
        let scenario = try F.scenario(
            """
            {"device": {"format": 1920, "fps": 60, "initialAspectRatio": "4x3",
                        "clock": {"timescale": 1000000000, "offsetSeconds": 0, "driftPPM": 0}},
             "sessionStartSeconds": 1.0, "durationSeconds": 1.0,
             "events": [{"atSeconds": 0.3, "activeFormat": 1280}, {"atSeconds": 0.4, "activeFormat": 3840}]}
            """)
        let (_, m) = try await F.record(scenario)
        #expect(m.segments.map(\.frameCount) == [18, 11])
        #expect(m.segments.map(\.sessionStart) == [F.ns(1_000_000_000), F.ns(1_650_000_000)])
        let events = try #require(m.events)
        #expect(events.map(\.kind) == [.activeFormatChanged])
        #expect(events.map(\.sessionTime) == [F.ns(1_650_000_000)])
        #expect(events.map(\.frameIndex) == [18])
        #expect(events.map(\.to) == ["3840@30"])
        #expect(
            m.notes.contains(
                "1 session event naming a frame the session did not deliver at that time is not in events (activeFormatChanged at 1.550000000 s naming frame 18)"
            ))
    }

    /// cold13 sc/09 shortened. 1920@30 9x16, clock 24 MHz, no drift, gap 0.2 s, held upside
    /// down (front camera: 180°). activeFormat 1280 at 1.2 (= frame 6): frames 0…5, the new
    /// grid at 1.4 (frame 6). The turn to landscapeRight (270°) at 1.3 is logged after the
    /// switch but happens before its first frame: 1.3, then 1.4 (switch), 1.4 (rotation).
    @Test("an event logged ahead of its time (a switch's first frame) is listed in session order") func listedInSessionOrder() async throws {
        let scenario = try F.scenario(
            """
            {"device": {"format": 1920, "fps": 30, "initialAspectRatio": "9x16",
                        "clock": {"timescale": 24000000, "offsetSeconds": 0, "driftPPM": 0}},
             "initialDeviceOrientation": "portraitUpsideDown", "switchGapSeconds": 0.2,
             "sessionStartSeconds": 1.0, "durationSeconds": 0.5,
             "events": [{"atSeconds": 0.2, "activeFormat": 1280},
                        {"atSeconds": 0.3, "deviceOrientation": "landscapeRight"}]}
            """)
        let (_, m) = try await F.record(scenario)
        #expect(m.segments.map(\.frameCount) == [6, 3])
        let events = try #require(m.events)
        #expect(events.map(\.kind) == [.deviceOrientationChanged, .activeFormatChanged, .rotationChanged])
        #expect(events.map(\.sessionTime) == [F.ns(1_300_000_000), F.ns(1_400_000_000), F.ns(1_400_000_000)])
        #expect(events.map(\.frameIndex) == [nil, 6, 6])
        #expect(events.map(\.to) == ["landscapeRight", "1280@30", "270"])
        #expect(!m.notes.contains { $0.contains("not in events") })
    }

    /// Many session events: every one listed once, in order (the recording itself stays
    /// linear; timings are Scripts/bench's and the report's, not a test's).
    @Test("3000 orientation changes in 0.5 s are all listed, in session order") func manyEvents() async throws {
        let turns = ["landscapeLeft", "portraitUpsideDown", "landscapeRight", "portrait"]
        let events = (1...3_000).map { #"{"atSeconds": \#(Double($0) / 10_000), "deviceOrientation": "\#(turns[($0 - 1) % 4])"}"# }
        let scenario = try F.scenario(
            """
            {"device": {"format": 1280, "fps": 30, "initialAspectRatio": "1x1",
                        "clock": {"timescale": 24000000, "offsetSeconds": 0, "driftPPM": 0}},
             "sessionStartSeconds": 1.0, "durationSeconds": 0.5, "events": [\(events.joined(separator: ","))]}
            """)
        let (_, m) = try await F.record(scenario)
        let listed = try #require(m.events)
        let turnsListed = listed.filter { $0.kind == .deviceOrientationChanged }
        #expect(turnsListed.count == 3_000)
        #expect(turnsListed.first?.sessionTime == F.ns(1_000_100_000) && turnsListed.last?.sessionTime == F.ns(1_300_000_000))
        #expect(zip(listed, listed.dropFirst()).allSatisfy { $0.sessionTime <= $1.sessionTime })
    }

    // MARK: Item 9: nothing from the session after a stop-on-change stop

    /// cold13 sc/06 with --mode stop-on-change: the posture change at 10.4 switches to the
    /// back camera, whose first frame stops the recording; the `apply 16x9` at 11.2 reaches
    /// the back camera (no dynamic aspect ratio) and would warn "the recording goes on".
    @Test("stop-on-change: a session warning after the stop is not listed; a note counts it") func noWarningAfterTheStop() async throws {
        let json = """
            {"cameras": [
               {"id": "outer", "type": "builtInOuterUltraWideCamera", "format": 1280, "fps": 60,
                "clock": {"timescale": 24000000, "offsetSeconds": 12.5, "driftPPM": 50}},
               {"id": "inner", "type": "builtInInnerUltraWideCamera", "format": 1280, "fps": 30,
                "clock": {"timescale": 90000, "offsetSeconds": -3.25, "driftPPM": -20}},
               {"id": "back", "type": "builtInDualWideCamera", "format": "1920x1080", "fps": 30,
                "clock": {"timescale": 1000000000, "offsetSeconds": 0.5, "driftPPM": 0}}],
             "frontCamera": "individual", "initialPosture": "closed", "initialAspectRatio": "16x9",
             "switchGapSeconds": 0.1, "sessionStartSeconds": 10.0, "durationSeconds": 1.5,
             "events": [{"atSeconds": 0.4, "posture": "openOuterDisplay"}, {"atSeconds": 1.2, "apply": "16x9"}]}
            """
        let (_, m) = try await CameraRecordingTests.record(json, mode: .stopOnChange)
        #expect(m.stopReason == .cameraSwitched)
        #expect(!m.warnings.contains { $0.contains("goes on") }, "\(m.warnings)")
        #expect(m.warnings == [])
        #expect(m.notes.contains("1 warning from the session after the recording stopped taking frames is not in warnings"))
        let stop = try #require(m.stopTime)
        #expect((m.events ?? []).allSatisfy { $0.sessionTime <= stop })
        #expect(!(m.events ?? []).contains { $0.kind == .aspectRatioRequestFailed })
    }

    @Test("stop-on-change: a warning before the stop stays, the one after is counted") func warningsAroundTheStop() async throws {
        let script = EventScript()
        let events: [CaptureOutputEvent] = [
            script.frame(0, .ratio1x1), .warning("before"), script.frame(1, .ratio1x1), script.frame(2, .ratio16x9), .warning("after: the recording goes on"),
            script.frame(3, .ratio16x9)
        ]
        let (_, m) = try await RecorderTestSupport.record(events, mode: .stopOnChange)
        #expect(m.stopReason == .dimensionsChanged && m.stopTime == script.sessionTime(2))
        #expect(m.warnings == ["before"])
        #expect(m.notes.contains("1 warning from the session after the recording stopped taking frames is not in warnings"))
        #expect(m.frames == FrameCounts(received: 4, written: 2, dropped: 2, droppedReasons: ["recordingStopped": 2]))
    }

    // MARK: Item 8: exact decimals in the summary

    /// 1e9 s + 0.2333275 s in nanoseconds: a Double holds ~16 significant digits, so
    /// `%.9f` printed 1000000000.233327508; the rational time is …233327500 exactly.
    @Test("record's summary prints session times at 1e9 s with exact digits") func summaryDigits() throws {
        var builder = ManifestBuilder(mode: .segment, devices: [.host], encoder: RecorderTestSupport.settings, frameIndexStamp: false)
        let start = F.ns(1_000_000_000_233_327_500)
        let end = F.ns(1_000_000_001_233_327_501)
        builder.apply(
            .segmentOpened(
                SegmentRecord(
                    file: "segment-000.mp4", width: 320, height: 180, aspectRatio: nil, frameCount: 0, firstFrameIndex: 0, sessionStart: start,
                    sessionStartSeconds: start.seconds, sessionEnd: start, sessionEndSeconds: start.seconds, startReason: .recordingStarted, change: nil,
                    byteCount: 0, rotationDegrees: nil)))
        builder.apply(.segmentEnded(file: "segment-000.mp4", end: end))
        builder.apply(.finished(.endOfStream, error: nil))
        let text = Summary.render(builder.manifest, folder: URL(fileURLWithPath: "/tmp/out"))
        let row = try #require(text.split(separator: "\n").first { $0.hasPrefix("segment-000.mp4") })
        #expect(
            row.split(separator: " ", omittingEmptySubsequences: true).map(String.init) == [
                "segment-000.mp4", "320x180", "0", "0", "1000000000.233327500", "1000000001.233327501", "recordingStarted"
            ])
        #expect(text.contains("stopped: endOfStream at 1000000001.233327501 s"))
    }
}
