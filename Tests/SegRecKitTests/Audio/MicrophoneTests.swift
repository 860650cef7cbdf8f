import Foundation
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// The microphone model (Docs/DESIGN.md "Audio"): its clock, its buffers in the ordered
/// stream, the synthetic signal's clicks.
@Suite struct MicrophoneTests {
    static func ns(_ value: Int64) -> MediaTime { MediaTime(value: value, timescale: 1_000_000_000) }

    static func session(drift: Double = 300, duration: Int64 = 3_000_000_000, bufferFrames: Int = 1024) throws -> (CaptureSession, AudioCaptureDevice) {
        let clock = try MediaClock(identifier: "microphone", timescale: 48_000, offsetSeconds: -3.5, driftPPM: drift)
        let microphone = try AudioCaptureDevice(clock: clock, sampleRate: 48_000, channelCount: 1, bufferFrames: bufferFrames)
        let session = try CaptureSession(
            devices: [try CaptureTestSupport.plainDevice()], output: VideoDataOutput(frameSources: [GreySource()]), sessionStart: ns(1_000_000_000),
            duration: ns(duration), microphone: microphone)
        return (session, microphone)
    }

    @Test func buffersFollowTheDeviceClockAndComeBeforeLaterFrames() throws {
        let (session, microphone) = try Self.session()
        let timing = try FrameTiming(deviceClock: microphone.clock, frameRate: try FrameRate(48_000), sessionStart: Self.ns(1_000_000_000))
        var buffers: [AudioSampleBuffer] = []
        var lastFrameTime: MediaTime?
        var frames = 0
        while let event = try session.next() {
            switch event {
            case .audioSampleBuffer(let buffer):
                // Delivered by timestamp: never after a frame captured later than its first sample.
                if let lastFrameTime { #expect(buffer.sessionTime >= lastFrameTime) }
                buffers.append(buffer)
            case .frame(let frame):
                if let last = buffers.last { #expect(last.sessionTime < frame.sessionTime) }
                lastFrameTime = frame.sessionTime
                frames += 1
            default: break
            }
        }
        #expect(frames == 90)
        // Every sample before sessionStart + 3 s, in order, none twice.
        let total = try timing.firstFrame(capturedAtOrAfter: Self.ns(4_000_000_000))
        // A0 = (1 − 3.5) · 1.0003 · 48 000 = −120 036 ticks exactly; sample n is before 4 s
        // while A0 + n < 0.5 · 1.0003 · 48 000 = 24 007.2, so n = 0 … 144 043.
        #expect(total == 144_044)
        #expect(buffers.map(\.frameCount).reduce(0, +) == Int(total))
        var next: Int64 = 0
        for buffer in buffers {
            #expect(buffer.firstSampleIndex == next)
            #expect(buffer.deviceTime == (try timing.deviceTime(ofFrame: next)))
            #expect(buffer.sessionTime == (try timing.sessionTime(ofFrame: next)))
            next += Int64(buffer.frameCount)
            #expect(buffer.nextSessionTime == (try timing.sessionTime(ofFrame: next)))
        }
        #expect(buffers.dropLast().allSatisfy { $0.frameCount == 1024 })
        // A(0) = convertTime(1 s, host → mic): (1 − 3.5) · 1.0003 s at 48 kHz.
        #expect(buffers[0].deviceTime == MediaTime(value: -120_036, timescale: 48_000))
    }

    @Test func clicksStartOnTheFirstSampleAtOrAfterEachWholeSecond() throws {
        let (session, microphone) = try Self.session(bufferFrames: 700)
        let timing = try FrameTiming(deviceClock: microphone.clock, frameRate: try FrameRate(48_000), sessionStart: Self.ns(1_000_000_000))
        var samples: [Float] = []
        while let event = try session.next() { if case .audioSampleBuffer(let buffer) = event { samples += buffer.pcm.samples } }
        for k in Int64(1)...2 {
            let onset = Int(try timing.firstFrame(capturedAtOrAfter: Self.ns(1_000_000_000 + k * 1_000_000_000)))
            #expect(try timing.sessionTime(ofFrame: Int64(onset)) >= Self.ns(1_000_000_000 + k * 1_000_000_000))
            #expect(try timing.sessionTime(ofFrame: Int64(onset - 1)) < Self.ns(1_000_000_000 + k * 1_000_000_000))
            // The tone alone before the onset; tone + 4 kHz from it (phase 0: its second sample carries sin(π/6)).
            let tone = { (n: Int) in Float(0.1 * sin(2 * Double.pi * Double((n * 1000) % 48_000) / 48_000)) }
            #expect(abs(samples[onset - 1] - tone(onset - 1)) < 1e-6)
            #expect(abs(samples[onset] - tone(onset)) < 1e-6)
            #expect(abs(samples[onset + 1] - tone(onset + 1) - 0.707_945_8 * 0.5) < 1e-5)
            #expect(abs(samples[onset + 479] - tone(onset + 479)) > 1e-3 || onset + 479 < 0)
            #expect(abs(samples[onset + 481] - tone(onset + 481)) < 1e-6)  // 10 ms = 480 samples
        }
    }

    @Test func theScenarioNamesBadValues() throws {
        let bad: [(String, String)] = [
            (#""microphone": {"sampleRate": 47000}"#, "microphone.sampleRate"), (#""microphone": {"channels": 0}"#, "microphone.channels"),
            (#""microphone": {"bufferFrames": 70000}"#, "microphone.bufferFrames"),
            (#""microphone": {"clock": {"offsetSeconds": "x"}}"#, "microphone.clock.offsetSeconds"), (#""microphone": 3"#, "microphone")
        ]
        for (json, key) in bad {
            let text = #"{"device": {"format": 1280}, "durationSeconds": 1, "# + json + "}"
            #expect { _ = try Scenario.decode(Data(text.utf8), file: "mic.json") } throws: { error in
                guard let error = error as? ScenarioError else { return false }
                return error.file == "mic.json" && error.key == key && !error.allowed.isEmpty
            }
        }
        let good = try Scenario.decode(Data(#"{"device": {"format": 1280}, "durationSeconds": 1, "microphone": {"sampleRate": 44100}}"#.utf8), file: "m.json")
        #expect(good.microphone == Scenario.Microphone(sampleRate: 44_100, channels: 1, bufferFrames: 1024, clock: Scenario.Clock(timescale: 44_100)))
    }
}

/// The session-clock resampler (``SessionAudioTimeline``) over libswresample.
@Suite struct SessionAudioTimelineTests {
    /// A microphone at ±500 ppm for 20 minutes of its buffers: every buffer's end comes out
    /// within a sample of its session time (the 1 ms contract is 48 samples).
    @Test(arguments: [500.0, -500.0]) func driftIsFollowedWithoutLosingSync(drift: Double) throws {
        let start = MediaTime(value: 7_000_000_000, timescale: 1_000_000_000)
        let clock = try MediaClock(identifier: "microphone", timescale: 48_000, offsetSeconds: 1.25, driftPPM: drift)
        let timing = try FrameTiming(deviceClock: clock, frameRate: try FrameRate(48_000), sessionStart: start)
        let timeline = try SessionAudioTimeline(sampleRate: 48_000, channelCount: 1, origin: start)
        let frames = 1024
        let level = AudioPCMBuffer(channelCount: 1, samples: [Float](repeating: 0.5, count: frames))
        var worst: Int64 = 0
        var n: Int64 = 0
        while n < 48_000 * 1200 {
            let buffer = AudioSampleBuffer(
                firstSampleIndex: n, deviceTime: try timing.deviceTime(ofFrame: n), sessionTime: try timing.sessionTime(ofFrame: n),
                nextSessionTime: try timing.sessionTime(ofFrame: n + Int64(frames)), sampleRate: 48_000, pcm: level)
            try timeline.append(buffer)
            n += Int64(frames)
            // The next input sample comes out at produced + delay; it belongs at sampleIndex(nextSessionTime).
            let landing = timeline.produced + timeline.resamplerDelay
            worst = max(worst, abs(landing - timeline.sampleIndex(at: buffer.nextSessionTime)))
            _ = timeline.take(upTo: timeline.produced, padding: false)
        }
        #expect(worst <= 2)
        // 20 minutes at ±500 ppm is 0.6 s of drift: 28 800 samples more (or fewer) received than placed.
        let landing = timeline.produced + timeline.resamplerDelay
        let drifted = Double(n) * (drift / 1e6) / (1 + drift / 1e6)
        #expect(abs(timeline.receivedSamples - landing - Int64(drifted.rounded())) <= 3)
        // Draining gives out every sample the filter held (then silence).
        let expected = timeline.sampleIndex(at: try timing.sessionTime(ofFrame: n))
        try timeline.flush()
        #expect(timeline.produced >= expected)
        // The samples before the end are the microphone's (0.5, with the filter's ripple at
        // the step to silence), not silence; the very last one straddles that step.
        let tail = timeline.take(upTo: expected, padding: false)
        #expect(tail.frameCount >= 16)
        #expect(tail.samples.suffix(16).dropLast().allSatisfy { abs($0 - 0.5) < 0.05 }, "\(tail.samples.suffix(16))")
    }
}

/// `verify`'s click check (``ClickDetector``, ``RecordingVerifier/clickProblems(_:sampleRate:)``)
/// on the synthetic signal itself.
@Suite struct ClickCheckTests {
    static func sound(clicks: [Int64], seconds: Int = 4) -> [Float] {
        SyntheticAudioSignal(sampleRate: 48_000, channelCount: 1).samples(from: 0, count: 48_000 * seconds, clickOnsets: clicks).samples
    }

    @Test func findsEveryClickOnItsFirstSample() {
        #expect(ClickDetector(sampleRate: 48_000).onsets(in: Self.sound(clicks: [48_000, 96_000, 144_000 + 7])) == [48_000, 96_000, 144_007])
        #expect(RecordingVerifier.clickProblems(Self.sound(clicks: [48_000, 96_000 + 48, 144_000 - 48]), sampleRate: 48_000).isEmpty)
    }

    @Test func reportsAClickMoreThanOneMillisecondOffAndAMissingOne() {
        let late = RecordingVerifier.clickProblems(Self.sound(clicks: [48_000, 96_000 + 49, 144_000]), sampleRate: 48_000)
        #expect(late.count == 1 && late[0].contains("49 samples") && late[0].contains("second 2"), "\(late)")
        let missing = RecordingVerifier.clickProblems(Self.sound(clicks: [48_000, 144_000]), sampleRate: 48_000)
        #expect(missing == ["audio: no click at second(s) 2"])
        let none = RecordingVerifier.clickProblems(Self.sound(clicks: []), sampleRate: 48_000)
        #expect(none.count == 1 && none[0].contains("no click found"))
    }
}
