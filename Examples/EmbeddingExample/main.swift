// An app-like program that embeds SegRecKit (and not the command line):
//
//   swift run -c release embedding-example OUTDIR
//
// writes two recordings, both accepted by `segrec verify`:
// - OUTDIR/scenario/: the recording session running SampleStreams/tap-to-rotate.json on
//   the fake Center Stage camera, segment mode;
// - OUTDIR/push/: frames this program draws itself (60 at 640x480, then 60 at 480x640,
//   30 fps, each stamped with its index), the change announced the way the Center Stage
//   article's recorder is told: finishCurrentSegment / startNextSegment at its session time.
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

/// A scenario recorded by the library's session: what `segrec record --scenario` does.
func recordScenario(into folder: URL) async throws -> RecordingManifest {
    var request = RecordingRequest(output: folder)
    request.scenario = try Scenario.load(contentsOf: sampleStreams.appendingPathComponent("tap-to-rotate.json"))
    request.mode = .segment
    request.force = true
    let session = try RecordingSession(request)
    return try await session.run()
}

/// A mid-grey NV12 picture with `index` stamped into rows 0–15.
func picture(width: Int, height: Int, index: Int) -> PixelBuffer {
    var buffer = PixelBuffer(width: width, height: height)
    buffer.lumaPlane.withUnsafeMutableBufferPointer { $0.update(repeating: 128) }
    buffer.chromaPlane.withUnsafeMutableBufferPointer { $0.update(repeating: 128) }
    FrameIndexStamp.write(UInt32(index), intoLuma: &buffer.lumaPlane, width: width, bytesPerRow: buffer.lumaBytesPerRow)
    return buffer
}

/// Frames this program makes itself, pushed with their session times.
func recordPushedFrames(into folder: URL) async throws -> RecordingManifest {
    var configuration = PushRecorder.Configuration(output: folder)
    configuration.force = true
    configuration.stampsFrameIndex = true
    configuration.encoder.frameRate = try FrameRate(30)
    let recorder = try PushRecorder(configuration)
    let start = MediaTime(value: 1_000, timescale: 1)  // the session clock's time of frame 0
    for index in 0..<120 {
        // Frame i is captured at start + i/30 s, on the session clock.
        let time = start + MediaTime(value: Int64(index), timescale: 30)
        if index == 60 {
            // The app's camera answered that the new dimensions begin at this frame; the app
            // converted that device time to session time and tells the recorder.
            try await recorder.finishCurrentSegment(atSessionTime: time)
            try await recorder.startNextSegment(afterSessionTime: time)
        }
        let (width, height) = index < 60 ? (640, 480) : (480, 640)
        try await recorder.append(picture(width: width, height: height, index: index), withPresentationTime: time)
    }
    return try await recorder.finishWriting()
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
