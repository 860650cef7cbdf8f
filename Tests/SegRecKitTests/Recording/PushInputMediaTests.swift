import Foundation
import Synchronization
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

#if canImport(Glibc)
    import Glibc
#endif

/// What an app has besides NV12 pictures, pushed through the one recorder: packed BGRA,
/// capture angles, PCM sound on its own clock, the event stream, and a stop by task
/// cancellation. Every file is read back with ffprobe / ffmpeg.
@Suite("Recording: pushed BGRA, angles, sound and events", .tags(.recording)) struct PushInputMediaTests {
    static func time(_ i: Int) -> MediaTime { MediaTime(value: 500, timescale: 1) + MediaTime(value: Int64(i), timescale: 30) }

    static func configuration(_ dir: URL) throws -> RecordingConfiguration {
        var configuration = RecordingConfiguration(output: dir)
        configuration.encoder = RecorderTestSupport.settings
        configuration.encoder.frameRate = try FrameRate(30)
        return configuration
    }

    /// Runs `arguments` and returns its standard output (nil when the tool is missing).
    static func run(_ arguments: [String]) throws -> Data? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return process.terminationStatus == 0 ? data : nil
    }

    /// ffprobe's `entries` of stream `stream` in `file`, one CSV row without its name (nil,
    /// with a message, when ffprobe is missing).
    static func ffprobe(_ stream: String, _ entries: String, _ file: URL) throws -> String? {
        guard let out = try run(["ffprobe", "-v", "error", "-select_streams", stream, "-show_entries", entries, "-of", "csv=p=0", file.path]) else {
            print("skipped: ffprobe not found")
            return nil
        }
        return String(decoding: out, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("packed BGRA pictures (padded rows) are converted to NV12 by libswscale: white reads back as Y 235, black as Y 16") func bgraPictures() async throws {
        let dir = try MediaTestSupport.makeTemporaryDirectory().appendingPathComponent("out")
        let recorder = try Recorder(Self.configuration(dir), input: .push(PushInput()))
        let (width, height, stride) = (64, 48, 64 * 4 + 32)
        for i in 0..<6 {
            // Left half white, right half black; alpha opaque; 32 bytes of padding per row.
            var bytes = [UInt8](repeating: 0, count: stride * height)
            for y in 0..<height {
                for x in 0..<width {
                    let value: UInt8 = x < width / 2 ? 255 : 0
                    bytes.replaceSubrange((y * stride + x * 4)..<(y * stride + x * 4 + 4), with: [value, value, value, 255])
                }
            }
            let picture = PackedPicture(width: width, height: height, layout: .bgra, bytesPerRow: stride, bytes: bytes)
            try await recorder.append(.packed(picture), withPresentationTime: Self.time(i))
        }
        let manifest = try await recorder.finishWriting()
        #expect(manifest.segments.map { "\($0.width)x\($0.height) \($0.frameCount)" } == ["64x48 6"])
        let file = dir.appendingPathComponent("segment-000.mp4")
        if let (w, h, n) = try RecorderTestSupport.probe(file) { #expect((w, h, n) == (64, 48, 6)) }
        guard let gray = try Self.run(["ffmpeg", "-v", "error", "-i", file.path, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "yuv420p", "-"]) else {
            print("skipped: ffmpeg not found")
            return
        }
        // The Y plane as stored (limited range), the first width · height bytes.
        let luma = [UInt8](gray)
        #expect(luma.count == width * height * 3 / 2)
        // Away from the edge, where the encoder's and the scaler's filters blur it.
        let row = 24 * width
        #expect((230...240).contains(luma[row + 8]), "white: \(luma[row + 8])")
        #expect((14...20).contains(luma[row + 56]), "black: \(luma[row + 56])")
    }

    @Test("capture angles: each segment's first picture sets its display matrix; splitOnRotation starts a segment at a new angle") func captureAngles()
        async throws
    {
        let dir = try MediaTestSupport.makeTemporaryDirectory().appendingPathComponent("out")
        var configuration = try Self.configuration(dir)
        configuration.splitOnRotation = true
        let recorder = try Recorder(configuration, input: .push(PushInput()))
        for i in 0..<20 {
            let angle: VideoRotationAngle? = i == 0 ? .degrees90 : i == 12 ? .degrees0 : nil
            try await recorder.append(MediaTestSupport.stampedFrame(index: i, width: 320, height: 240), withPresentationTime: Self.time(i), captureAngle: angle)
        }
        let manifest = try await recorder.finishWriting()
        #expect(manifest.segments.map(\.frameCount) == [12, 8])
        #expect(manifest.segments.map(\.rotationDegrees) == [90, 0])
        #expect(manifest.segments.map(\.startReason) == [.recordingStarted, .rotationChanged])
        #expect(manifest.segments[1].sessionStart == (try Self.time(12).converted(toTimescale: 1_000_000_000)))
        guard let probe = try Self.ffprobe("v:0", "stream_side_data=rotation", dir.appendingPathComponent("segment-000.mp4")) else { return }
        #expect(probe == "-90")
        #expect(try RecordingVerifier.verify(dir).passed)
    }

    @Test("pushed Int16 stereo sound on a clock 300 ppm fast: each segment holds its span to the sample, the clicks verify, ffprobe agrees") func pushedSound()
        async throws
    {
        let dir = try MediaTestSupport.makeTemporaryDirectory().appendingPathComponent("out")
        let clock = try MediaClock(identifier: "app-audio", timescale: 48_000, offsetNanoseconds: 7_000_000, driftPartsPerBillion: 300_000)
        var audio = PushInput.Audio(sampleRate: 48_000, channelCount: 2, clock: clock)
        audio.isSyntheticSignal = true
        let recorder = try Recorder(Self.configuration(dir), input: .push(PushInput(audio: audio)))
        let start = Self.time(0)
        let firstTick = try convertTime(start, from: .host, to: clock).value
        let signal = SyntheticAudioSignal(sampleRate: 48_000, channelCount: 2)
        let onsets = try (1...4).map {
            try convertTime(start + MediaTime(value: Int64($0), timescale: 1), from: .host, to: clock, rounding: .roundTowardPositiveInfinity).value - firstTick
        }
        var next: Int64 = 0
        func pushSound(upTo time: MediaTime) async throws {
            while try convertTime(MediaTime(value: firstTick + next, timescale: 48_000), from: clock, to: .host) <= time {
                let pcm = signal.samples(from: next, count: 960, clickOnsets: onsets)
                try await recorder.appendAudio(
                    pcm.samples.map { Int16(($0 * 32_767).rounded()) }, presentationTime: MediaTime(value: firstTick + next, timescale: 48_000))
                next += 960
            }
        }
        for i in 0..<90 {
            try await pushSound(upTo: Self.time(i))
            let (w, h) = i < 45 ? (320, 240) : (240, 320)
            try await recorder.append(MediaTestSupport.stampedFrame(index: i, width: w, height: h), withPresentationTime: Self.time(i))
        }
        try await pushSound(upTo: Self.time(91))
        let manifest = try await recorder.finishWriting()
        #expect(manifest.segments.map(\.frameCount) == [45, 45])
        #expect(manifest.devices.map(\.id) == ["host", "microphone"])
        // 1.5 s each at 48 kHz: 72 000 samples, to the sample.
        #expect(manifest.segments.map { $0.audio?.sampleCount } == [72_000, 72_000])
        #expect(manifest.segments.map { $0.audio?.channels } == [2, 2])
        let report = try RecordingVerifier.verify(dir)
        #expect(report.passed, "\(report.problems) \(report.segments.map(\.problems))")
        guard let probe = try Self.ffprobe("a:0", "stream=channels,sample_rate,duration_ts", dir.appendingPathComponent("segment-001.mp4")) else { return }
        #expect(probe == "48000,2,72000")
    }

    @Test("the event stream tells the recording as it happens: opened, progress per frame, closed with its record, finished") func events() async throws {
        let dir = try MediaTestSupport.makeTemporaryDirectory().appendingPathComponent("out")
        let recorder = try Recorder(Self.configuration(dir), input: .push(PushInput()))
        let events = recorder.events
        let reader = Task {
            var story: [String] = []
            var progress = 0
            for await event in events {
                switch event {
                case .segmentOpened(let segment): story.append("opened \(segment.file) \(segment.width)x\(segment.height)")
                case .segmentClosed(let segment): story.append("closed \(segment.file) \(segment.frameCount) \(segment.byteCount > 0)")
                case .progress(let update): progress = update.framesReceived
                case .finished(let manifest): story.append("finished \(manifest.stopReason?.rawValue ?? "nil")")
                default: break
                }
            }
            return (story, progress)
        }
        for i in 0..<10 {
            let (w, h) = i < 4 ? (320, 240) : (240, 320)
            try await recorder.append(MediaTestSupport.stampedFrame(index: i, width: w, height: h), withPresentationTime: Self.time(i))
        }
        let manifest = try await recorder.finishWriting()
        let (story, progress) = await reader.value
        #expect(
            story == [
                "opened segment-000.mp4 320x240", "opened segment-001.mp4 240x320", "closed segment-000.mp4 4 true", "closed segment-001.mp4 6 true",
                "finished endOfStream"
            ], "\(story)")
        #expect(progress == 10)
        #expect(manifest.segments.map(\.byteCount).allSatisfy { $0 > 0 })
    }

    @Test("cancelling the task that runs a recording is a stop request: the frames so far are kept, stopReason requested") func cancellationStops() async throws
    {
        let dir = try MediaTestSupport.makeTemporaryDirectory().appendingPathComponent("out")
        var input = PullInput()
        input.scenario = try Scenario.decode(Data(#"{"device": {"format": 1280, "fps": 30}, "durationSeconds": 20}"#.utf8), file: "long.json")
        input.realtime = true
        var configuration = RecordingConfiguration(output: dir)
        configuration.encoder = RecorderTestSupport.settings
        let recorder = try Recorder(configuration, input: .pull(input))
        let events = recorder.events
        let running = Task { try await recorder.run() }
        // Cancelled once a few frames were recorded, however loaded the machine is.
        for await event in events { if case .progress(let progress) = event, progress.framesWritten >= 3 { break } }
        running.cancel()
        let manifest = try await running.value
        #expect(manifest.stopReason == .requested)
        #expect(manifest.frames.written > 0 && manifest.frames.written < 600)
        #expect(try RecordingVerifier.verify(dir).passed)
        // After the stop the recorder takes no pushes (it pulls) and answers the same manifest.
        #expect(try await recorder.run() == manifest)
    }

    @Test("a push after stop() is refused; what was pushed before is recorded") func pushAfterStop() async throws {
        let dir = try MediaTestSupport.makeTemporaryDirectory().appendingPathComponent("out")
        let recorder = try Recorder(Self.configuration(dir), input: .push(PushInput()))
        for i in 0..<5 { try await recorder.append(MediaTestSupport.stampedFrame(index: i, width: 320, height: 240), withPresentationTime: Self.time(i)) }
        recorder.stop()
        await #expect(throws: RecordingError.self) {
            try await recorder.append(MediaTestSupport.stampedFrame(index: 5, width: 320, height: 240), withPresentationTime: Self.time(5))
        }
        let manifest = try await recorder.finishWriting()
        #expect(manifest.stopReason == .requested)
        #expect(manifest.segments.map(\.frameCount) == [5])
    }

    @Test("stop() ends a recording whose footage read waits on an idle pipe: the frames the pipe gave are kept, nothing hangs", .timeLimit(.minutes(3)))
    func stopInterruptsAWaitingRead() async throws {
        let dir = try MediaTestSupport.makeTemporaryDirectory()
        let clip = dir.appendingPathComponent("clip.y4m")
        try MediaTestSupport.writeY4M(to: clip, width: 64, height: 48, frames: 4)
        let fifo = dir.appendingPathComponent("pipe")
        try #require(mkfifo(fifo.path, 0o600) == 0)
        // Read and write ends both held here (O_RDWR never waits for a peer): the pipe stays
        // open with no more data after the four frames.
        let writer = open(fifo.path, O_RDWR)
        try #require(writer >= 0)
        defer { close(writer) }
        let bytes = try Data(contentsOf: clip)
        _ = bytes.withUnsafeBytes { write(writer, $0.baseAddress, $0.count) }
        var configuration = RecordingConfiguration(output: dir.appendingPathComponent("out"))
        configuration.encoder = RecorderTestSupport.settings
        let recorder = try Recorder(configuration, input: .pull(PullInput(.file(fifo.path))))
        let events = recorder.events
        let running = Task { try await recorder.run() }
        // Stopped once three of the four frames the pipe holds were delivered (a file's last
        // picture is held until the next one gives its duration): the read now waits.
        for await event in events { if case .progress(let progress) = event, progress.framesReceived == 3 { break } }
        try await Task.sleep(for: .milliseconds(100))
        let stopped = ContinuousClock.now
        recorder.stop()
        let manifest = try await running.value
        // A hang is what this guards against (the time limit); under a loaded test run the
        // finish takes seconds.
        #expect(ContinuousClock.now - stopped < .seconds(30))
        #expect(manifest.stopReason == .requested)
        #expect(manifest.segments.map(\.frameCount) == [4])
        if let (w, h, n) = try RecorderTestSupport.probe(dir.appendingPathComponent("out/segment-000.mp4")) { #expect((w, h, n) == (64, 48, 4)) }
    }

    @Test("pushed sound the recorder cannot take is refused before anything is written, naming the field and what is allowed") func unsupportedSound() throws {
        let dir = try MediaTestSupport.makeTemporaryDirectory().appendingPathComponent("out")
        for (rate, channels, expected) in [(50_000, 1, "sampleRate 50000; allowed: AAC's rates, 8000, 11025"), (48_000, 3, "channelCount 3; allowed: 1 or 2")] {
            do {
                _ = try Recorder(Self.configuration(dir), input: .push(PushInput(audio: PushInput.Audio(sampleRate: rate, channelCount: channels))))
                Issue.record("\(rate) Hz, \(channels) channels accepted")
            } catch let error as RecordingInputError { #expect(error.description.hasPrefix("PushInput.audio: " + expected), "\(error)") }
            #expect(!FileManager.default.fileExists(atPath: dir.path))
        }
    }
}
