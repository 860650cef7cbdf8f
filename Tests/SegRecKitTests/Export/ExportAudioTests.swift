import Foundation
import Testing

@testable import SegRecKit
@testable import SegRecMedia

/// The exports' sound on its own: one AAC stream encoded from pieces, its priming packet
/// left out, and the manifest arithmetic that tiles the segments' samples.
@Suite("Export audio", .tags(.export)) struct ExportAudioTests {
    /// `count` samples of a 1 kHz sine at 48 kHz, from sample `first`.
    static func sine(_ count: Int, from first: Int = 0) -> AudioPCMBuffer {
        AudioPCMBuffer(channelCount: 1, samples: (first..<(first + count)).map { Float(0.1 * sin(2 * Double.pi * 1000 * Double($0) / 48000)) })
    }

    @Test func oneStreamFromPiecesStartsAtZeroAndEndsAtTheTotal() throws {
        // Three segments of 1000, 2500 and 777 samples: 4277 in all.
        let counts = [1000, 2500, 777]
        let starts = [0, 1000, 3500]
        let track = try EncodedAudioTrack(settings: AudioTrackSettings(sampleRate: 48000, channelCount: 1), pieces: 3) { (i: Int) throws(FFmpegError) in
            Self.sine(counts[i], from: starts[i])
        }
        #expect(track.sampleCount == 4277)
        // No priming packet: pts 0, 1024, … 4096, the last one 181 samples long.
        let pts = (0..<track.packetCount).map { track.packets[$0].pointer.pointee.pts }
        #expect(pts == [0, 1024, 2048, 3072, 4096])
        let durations = (0..<track.packetCount).map { track.packets[$0].pointer.pointee.duration }
        #expect(durations == [1024, 1024, 1024, 1024, 181])
        #expect(durations.reduce(0, +) == 4277)
        // The packets a file takes: those that start in its samples.
        #expect(track.packets(from: 0, to: 1000) == 0..<1)
        #expect(track.packets(from: 1000, to: 3500) == 1..<4)
        #expect(track.packets(from: 3500, to: Int64.max) == 4..<5)
        #expect(track.packets(from: 5000, to: 6000).isEmpty)
    }

    @Test func segmentsTileTheSamples() {
        func segment(_ count: Int64?) -> SegmentRecord {
            var s = SegmentRecord(
                file: "s.mp4", width: 2, height: 2, aspectRatio: nil, frameCount: 1, firstFrameIndex: 0, sessionStart: .zero, sessionStartSeconds: 0,
                sessionEnd: MediaTime(value: 1, timescale: 1), sessionEndSeconds: 1, startReason: .recordingStarted, change: nil, byteCount: 0,
                rotationDegrees: nil)
            s.audio = count.map { SegmentAudioRecord(sampleRate: 48000, channels: 1, sampleCount: $0) }
            return s
        }
        #expect(ExportAudio.sampleStarts(of: [segment(104_003), segment(99_187), segment(73_616)]) == [0, 104_003, 203_190, 276_806])
        #expect(ExportAudio.settings(of: [segment(10), segment(20)]) == AudioTrackSettings(sampleRate: 48000, channelCount: 1))
        // One segment without sound: the exports carry none.
        #expect(ExportAudio.settings(of: [segment(10), segment(nil)]) == nil)
        // A decode cut to the declared count, or padded with silence to it.
        let pcm = AudioPCMBuffer(channelCount: 2, samples: [1, 2, 3, 4, 5, 6])
        #expect(ExportAudio.fitted(pcm, to: 2).samples == [1, 2, 3, 4])
        #expect(ExportAudio.fitted(pcm, to: 4).samples == [1, 2, 3, 4, 5, 6, 0, 0])
    }
}
