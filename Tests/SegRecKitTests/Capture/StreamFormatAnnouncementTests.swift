import Foundation
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// The capture side announces its stream's format in-band (``CaptureOutputEvent/formatChanged(_:)``),
/// GStreamer CAPS-style: right before the first frame and right before every frame whose
/// camera, rate, angle, active format, mirroring or dimensions differ from the last
/// announcement, and never otherwise.
@Suite("Capture: the stream format is announced in-band", .tags(.capture)) struct StreamFormatAnnouncementTests {
    typealias F = DuoFixtures

    /// (frame index the format first applies to, the format) for every announcement, after
    /// checking that each one comes right before a frame, differs from the one before, and
    /// matches the dimensions of every frame it covers.
    static func announcements(_ events: [CaptureOutputEvent]) -> [(Int64, VideoStreamFormat)] {
        var out: [(Int64, VideoStreamFormat)] = []
        var pending: VideoStreamFormat?
        var current: VideoStreamFormat?
        for event in events {
            switch event {
            case .formatChanged(let format):
                #expect(pending == nil, "two announcements with no frame between")
                #expect(format != current, "an announcement that changes nothing")
                pending = format
            case .frame(let frame):
                if let format = pending {
                    out.append((frame.index, format))
                    current = format
                    pending = nil
                }
                #expect(current?.dimensions == frame.dimensions, "frame \(frame.index) is not in the announced size")
            default: #expect(pending == nil, "\(event) between an announcement and its frame")
            }
        }
        return out
    }

    static func dims(_ w: Int, _ h: Int) -> VideoDimensions { VideoDimensions(width: w, height: h) }

    @Test("outer → inner with a ratio change on the outer camera: announced at frames 0, 40 and 49") func cameraSwitch() throws {
        // Frames as in CameraSwitchBoundaryTests: 16x9 from outer frame 40, inner (4x3, 60 fps) from 49.
        let json = F.individual(start: "1.0", events: CameraSwitchBoundaryTests.events)
        let got = Self.announcements(try F.run(try CaptureSession(scenario: try F.scenario(json))))
        let (r120, r60) = (try FrameRate(120), try FrameRate(60))
        let outer = VideoStreamFormat.Camera(id: "outer", facing: .user)
        let inner = VideoStreamFormat.Camera(id: "inner", facing: .user)
        #expect(got.map(\.0) == [0, 40, 49])
        #expect(
            got.map(\.1) == [
                VideoStreamFormat(dimensions: Self.dims(720, 1280), frameRate: r120, camera: outer, rotationAngle: .degrees0, activeFormat: "1280"),
                VideoStreamFormat(dimensions: Self.dims(1280, 720), frameRate: r120, camera: outer, rotationAngle: .degrees0, activeFormat: "1280"),
                VideoStreamFormat(dimensions: Self.dims(1280, 960), frameRate: r60, camera: inner, rotationAngle: .degrees0, activeFormat: "1280")
            ])
    }

    @Test("mirroring on a camera facing the user is part of the format") func mirroring() throws {
        let json = F.individual(start: "1.0", events: #"{"atSeconds": 0.4, "posture": "open"}"#)
        let got = Self.announcements(try F.run(try CaptureSession(scenario: try F.scenario(json), mirrorMode: .auto)))
        #expect(got.map(\.0) == [0, 49])
        #expect(
            got.map { $0.1.camera } == [
                VideoStreamFormat.Camera(id: "outer", facing: .user, isMirrored: true), VideoStreamFormat.Camera(id: "inner", facing: .user, isMirrored: true)
            ])
    }

    @Test("one camera: an activeFormat switch is a new generation, rate and size (frame 25); no camera is named") func formatSwitch() throws {
        let scenario = try OrientationFixtures.scenario(FormatSwitchTests.rateAndSize)
        let got = Self.announcements(try F.run(try CaptureSession(scenario: scenario)))
        #expect(got.map(\.0) == [0, 25])
        #expect(
            got.map(\.1) == [
                VideoStreamFormat(
                    dimensions: Self.dims(1920, 1080), frameRate: try FrameRate(60), rotationAngle: .degrees0, activeFormat: "1920", formatGeneration: 0),
                VideoStreamFormat(
                    dimensions: Self.dims(3840, 2160), frameRate: try FrameRate(30), rotationAngle: .degrees0, activeFormat: "3840", formatGeneration: 1)
            ])
    }

    @Test("one camera: a device orientation change is a new capture angle, announced at its first frame only") func rotation() throws {
        let scenario = try OrientationFixtures.scenario(RotationRecordingTests.turn)
        let events = try F.run(try CaptureSession(scenario: scenario))
        let got = Self.announcements(events)
        // As in RotationRecordingTests: 0° until frame 5 (T = 2166667222), 270° from frame 6
        // (T = 2200001222, the first captured at or after the change at 2.2 s).
        #expect(got.map(\.0) == [0, 6])
        #expect(got.map(\.1.rotationAngle) == [.degrees0, .degrees270])
        guard let turn = got.last else { return }
        #expect(turn.1.dimensions == got[0].1.dimensions && turn.1.camera == nil)
    }
}
