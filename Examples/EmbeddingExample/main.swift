// An app-like program that embeds SegRecKit (and not the command line):
//
//   swift run -c release embedding-example OUTDIR
//
// writes two recordings through the one `Recorder`, both accepted by `segrec verify`:
// - OUTDIR/scenario/: a pulled input, SampleStreams/tap-to-rotate.json on the fake Center
//   Stage camera, segment mode;
// - OUTDIR/push/: what this program captures itself and pushes, as an app's video and audio
//   data output delegates would: 150 I420 pictures at 30 fps it draws (each stamped with its
//   index), 45 at 640x480 then 480x640, the change announced with the Center Stage
//   article's two calls at its session time; the device turned at picture 90 (capture angle
//   90 -> 0); segments at most 2 s long; and a 48 kHz sine with a click at each whole
//   session second, stamped on its own audio clock running 300 ppm fast.
// It prints the events it receives.
import Foundation
import SegRecKit

let arguments = CommandLine.arguments.dropFirst()
guard arguments.count == 1, let outputPath = arguments.first else {
    FileHandle.standardError.write(Data("usage: embedding-example OUTDIR\n".utf8))
    exit(64)
}
let outputFolder = URL(fileURLWithPath: outputPath)
let sampleStreams = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(
    "SampleStreams")

/// Prints what the recorder tells, one line per segment, warning or stop.
func printEvents(of recorder: Recorder, name: String) -> Task<Void, Never> {
    let events = recorder.events
    return Task {
        for await event in events {
            switch event {
            case .segmentOpened(let segment): print("\(name): opened \(segment.file) \(segment.width)x\(segment.height) (\(segment.startReason.rawValue))")
            case .segmentClosed(let segment):
                print("\(name): closed \(segment.file): \(segment.frameCount) frames, \(segment.audio?.sampleCount ?? 0) audio samples")
            case .warning(let warning): print("\(name): warning: \(warning)")
            case .stopped(let reason, let time): print("\(name): stopped (\(reason.rawValue)) at \(time)")
            default: break
            }
        }
    }
}

/// A scenario pulled by the recorder: what `segrec record --scenario` does.
func recordScenario(into folder: URL) async throws -> RecordingManifest {
    var configuration = RecordingConfiguration(output: folder)
    configuration.force = true
    var input = PullInput()
    input.scenario = try Scenario.load(contentsOf: sampleStreams.appendingPathComponent("tap-to-rotate.json"))
    let recorder = try Recorder(configuration, input: .pull(input))
    let printer = printEvents(of: recorder, name: "scenario")
    defer { printer.cancel() }
    let manifest = try await recorder.run()
    await printer.value
    return manifest
}

/// A mid-grey I420 picture with `index` stamped into rows 0–15.
func picture(width: Int, height: Int, index: Int) -> PixelBuffer {
    var luma = [UInt8](repeating: 128, count: width * height)
    FrameIndexStamp.write(UInt32(index), intoLuma: &luma, width: width, bytesPerRow: width)
    return PixelBuffer(
        width: width, height: height, lumaPlane: luma, lumaBytesPerRow: width, chromaPlane: [UInt8](repeating: 128, count: width * height / 2),
        chromaBytesPerRow: width / 2, pixelFormat: .yuv420p)
}

/// The app's microphone: 48 kHz mono on its own clock (300 ppm fast), sample 0 captured
/// at session time `start`; its sound is the synthetic signal, a 1 kHz tone with a click
/// from the first sample at or after each whole session second after `start`.
struct Microphone {
    static let sampleRate = 48_000
    let clock: MediaClock
    let firstTick: Int64
    let start: MediaTime
    let signal = SyntheticAudioSignal(sampleRate: Microphone.sampleRate, channelCount: 1)
    var next: Int64 = 0

    init(start: MediaTime) throws {
        clock = try MediaClock(identifier: "microphone", timescale: Int32(Self.sampleRate), offsetNanoseconds: 0, driftPartsPerBillion: 300_000)
        firstTick = try convertTime(start, from: .host, to: clock).value
        self.start = start
    }

    /// The index of the first sample captured at or after session second `second`.
    func onset(ofSecond second: Int64) throws -> Int64 {
        try convertTime(start + MediaTime(value: second, timescale: 1), from: .host, to: clock, rounding: .roundTowardPositiveInfinity).value - firstTick
    }

    /// The session time of sample `n`.
    func sessionTime(ofSample n: Int64) throws -> MediaTime {
        try convertTime(MediaTime(value: firstTick + n, timescale: clock.timescale), from: clock, to: .host)
    }

    /// The next `count` samples and the device time (on ``clock``) of the first.
    mutating func capture(_ count: Int) throws -> (samples: [Float], deviceTime: MediaTime) {
        let onsets = try (1...(next / Int64(Self.sampleRate) + 2)).map { try onset(ofSecond: $0) }
        let pcm = signal.samples(from: next, count: count, clickOnsets: onsets)
        defer { next += Int64(count) }
        return (pcm.samples, MediaTime(value: firstTick + next, timescale: clock.timescale))
    }
}

/// Pictures and sound this program captures itself, pushed with their times.
func recordPushedFrames(into folder: URL) async throws -> RecordingManifest {
    var configuration = RecordingConfiguration(output: folder)
    configuration.force = true
    configuration.stampsFrameIndex = true
    configuration.encoder.frameRate = try FrameRate(30)
    configuration.maximumSegmentDuration = MediaTime(value: 2, timescale: 1)
    let start = MediaTime(value: 1_000, timescale: 1)  // the session clock's time of frame 0
    var microphone = try Microphone(start: start)
    var audio = PushInput.Audio(sampleRate: Microphone.sampleRate, channelCount: 1, clock: microphone.clock)
    audio.isSyntheticSignal = true
    let recorder = try Recorder(configuration, input: .push(PushInput(audio: audio)))
    let printer = printEvents(of: recorder, name: "push")
    for index in 0..<150 {
        // Frame i is captured at start + i/30 s, on the session clock.
        let time = start + MediaTime(value: Int64(index), timescale: 30)
        // The sound captured up to this picture comes first, 1024 samples a buffer.
        while try microphone.sessionTime(ofSample: microphone.next) <= time {
            let (samples, deviceTime) = try microphone.capture(1024)
            try await recorder.appendAudio(samples, presentationTime: deviceTime)
        }
        if index == 45 {
            // The app's camera answered that the new dimensions begin at this frame; the app
            // converted that device time to session time and tells the recorder.
            try await recorder.finishCurrentSegment(atSessionTime: time)
            try await recorder.startNextSegment(afterSessionTime: time)
        }
        let (width, height) = index < 45 ? (640, 480) : (480, 640)
        let angle: VideoRotationAngle = index < 90 ? .degrees90 : .degrees0
        try await recorder.append(picture(width: width, height: height, index: index), withPresentationTime: time, captureAngle: angle)
    }
    // The sound until the last picture's end.
    let end = start + MediaTime(value: 150, timescale: 30)
    while try microphone.sessionTime(ofSample: microphone.next) < end {
        let (samples, deviceTime) = try microphone.capture(1024)
        try await recorder.appendAudio(samples, presentationTime: deviceTime)
    }
    let manifest = try await recorder.finishWriting()
    await printer.value
    return manifest
}

do {
    for (name, manifest) in [
        ("scenario", try await recordScenario(into: outputFolder.appendingPathComponent("scenario"))),
        ("push", try await recordPushedFrames(into: outputFolder.appendingPathComponent("push")))
    ] {
        let sizes = manifest.segments.map { "\($0.width)x\($0.height) (\($0.frameCount))" }.joined(separator: ", ")
        print("\(name): \(manifest.segments.count) segments: \(sizes)")
    }
} catch {
    FileHandle.standardError.write(Data("embedding-example: \(error)\n".utf8))
    exit(1)
}
