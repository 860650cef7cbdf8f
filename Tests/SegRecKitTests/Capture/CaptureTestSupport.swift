import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// Shared helpers for capture tests.
enum CaptureTestSupport {
    /// A 1280-format device at 30 fps on a 24 MHz clock with no offset or drift, so frame i
    /// is captured at D(i) = 24_000_000 + 800_000·i ticks = (1 + i/30) s host when the
    /// session starts at 1.0 s.
    static func plainDevice(latency: Int64 = 2, completionDelay: Int64 = 0, initial: DynamicAspectRatio = .ratio9x16) throws -> CaptureDevice {
        let clock = try MediaClock(identifier: "front", timescale: 24_000_000, offsetNanoseconds: 0, driftPartsPerBillion: 0)
        let format = CaptureDevice.Format.frontCenterStage(squareSide: 1280)!
        return try CaptureDevice(
            format: format, frameRate: try FrameRate(30), clock: clock, initialAspectRatio: initial, changeLatencyFrames: latency,
            completionDelayFrames: completionDelay)
    }

    /// The plain camera's clock: 24 MHz, no offset, no drift.
    static let plainClock = try! MediaClock(identifier: "front", timescale: 24_000_000, offsetNanoseconds: 0, driftPartsPerBillion: 0)

    /// Every event a session delivers, in order.
    static func tokensAndEvents(_ session: CaptureSession) throws -> [CaptureOutputEvent] {
        var events: [CaptureOutputEvent] = []
        while let event = try session.next() { events.append(event) }
        return events
    }

    static func ns(_ value: Int64) -> MediaTime { MediaTime(value: value, timescale: 1_000_000_000) }

    /// Drains a session into tokens: `"F<i>"` for frames, `"C<ratio>"` for completions,
    /// `"S<ratio>"` for superseded requests.
    static func tokens(_ session: CaptureSession) throws -> (tokens: [String], frames: [VideoFrame], changes: [DynamicAspectRatioChange]) {
        var tokens: [String] = []
        var frames: [VideoFrame] = []
        var changes: [DynamicAspectRatioChange] = []
        var iterator = session.makeIterator()
        while let event = try iterator.next() {
            switch event {
            case .frame(let frame):
                tokens.append("F\(frame.index)")
                frames.append(frame)
            case .dynamicAspectRatioChangeCompleted(let change):
                tokens.append("C\(change.aspectRatio?.rawValue ?? "?")")
                changes.append(change)
            case .dynamicAspectRatioChangeSuperseded(let superseded): tokens.append("S\(superseded.aspectRatio.rawValue)")
            case .formatChanged: break  // the stream format before a frame (StreamFormatAnnouncementTests)
            case .sessionEvent: break  // zoom, smart framing, rotation, format records for the manifest's events
            case .audioSampleBuffer: break  // a microphone (MicrophoneTests)
            case .frameDropped, .note, .warning, .inputDamaged, .copiedAudio: Issue.record("a capture session delivered \(event)")
            }
        }
        return (tokens, frames, changes)
    }
}

/// A source of flat grey pictures that does not stamp itself.
struct GreySource: SensorImageSource {
    var stampsFrameIndex: Bool { false }
    func pixelBuffer(forFrame index: Int64, dimensions: VideoDimensions) throws -> PixelBuffer {
        PixelBuffer(width: dimensions.width, height: dimensions.height)
    }
}
