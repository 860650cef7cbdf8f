import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// Smart framing controls: enabledFramings by name (default none, a subset allowed, unknown
/// names listing the supported ones), start/stop mid-session.
@Suite("Capture: smart framing controls", .tags(.capture)) struct SmartFramingControlTests {
    private func monitor() throws -> SmartFramingMonitor { SmartFramingMonitor(format: try #require(CaptureDevice.Format.frontCenterStage(squareSide: 4032))) }

    @Test("default none; a named subset limits recommendations to it") func enabledByName() throws {
        let m = try monitor()
        #expect(m.enabledFramings.isEmpty)
        m.startMonitoring()
        #expect(try m.observe(peopleInFrame: 1) == nil)  // nothing enabled
        try m.setEnabledFramings(named: ["wide4x3", "narrow3x4", "wide4x3"])
        #expect(m.enabledFramings == [.wide4x3, .narrow3x4])
        #expect(try m.observe(peopleInFrame: 2) == nil)  // 3x4 wide is not enabled
        #expect(try m.observe(peopleInFrame: 1) == .narrow3x4)
        #expect(try m.observe(peopleInFrame: 3) == .wide4x3)
        try m.setEnabledFramings(named: [])
        let none = try m.observe(peopleInFrame: 1)
        #expect(m.enabledFramings.isEmpty && none == nil)
        #expect(CaptureFraming.named.map(\.name) == ["wide3x4", "narrow3x4", "wide4x3", "narrow4x3"])
        #expect(CaptureFraming.narrow4x3.name == "narrow4x3")
        #expect(CaptureFraming(aspectRatio: .ratio1x1, zoomFactor: 2).name == "1x1@2.0")
    }

    @Test("an unknown framing names the supported ones; nothing changes") func unknown() throws {
        let m = try monitor()
        try m.setEnabledFramings(named: ["wide3x4"])
        #expect(throws: CameraControlError.unknownValue(name: "framing", value: "square1x1", allowed: "wide3x4, narrow3x4, wide4x3, narrow4x3")) {
            try m.setEnabledFramings(named: ["narrow3x4", "square1x1"])
        }
        #expect(m.enabledFramings == [.wide3x4])
        #expect(
            CameraControlError.unsupportedFraming(.wide4x3, supported: [.wide3x4]).description
                == "framing wide4x3 is not one of the monitor's supported framings; supported: wide3x4")
    }

    @Test("start and stop mid-session: recommendations only while monitoring") func startStop() throws {
        let m = try monitor()
        try m.setEnabledFramings(named: ["wide3x4", "narrow3x4", "wide4x3"])
        #expect(try m.observe(peopleInFrame: 3) == nil)  // not started
        let started = m.perform(try SmartFramingMonitor.Action(named: "start"))
        let startedAgain = m.perform(.start)
        #expect(started && !startedAgain && m.isMonitoring)
        #expect(try m.observe(peopleInFrame: 3) == .wide4x3)
        let stopped = m.perform(.stop)
        #expect(stopped && !m.isMonitoring)
        #expect(try m.observe(peopleInFrame: 1) == nil)  // stopped: nothing, the last one stands
        #expect(m.recommendedFraming == .wide4x3)
        m.perform(.start)
        #expect(try m.observe(peopleInFrame: 1) == .narrow3x4)
        #expect(throws: CameraControlError.unknownValue(name: "smartFraming", value: "pause", allowed: "start, stop")) {
            _ = try SmartFramingMonitor.Action(named: "pause")
        }
    }
}
