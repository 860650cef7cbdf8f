import Foundation
import SegRecMedia

/// The recording's sound for the exports: every segment's AAC track decoded (libavcodec,
/// the priming skipped as the edit list says) and cut to the manifest's `sampleCount`, so
/// the segments one after another give the continuous stream the recorder wrote
/// (DESIGN.md "Audio": segment `[S, E)` holds samples `⌈(S − T0)·rate⌉ …`, no sample lost or
/// repeated at a boundary).
enum ExportAudio {
    /// The track settings every segment shares, or nil when a segment has no `audio` record
    /// (a recording made with `--no-audio`, or footage without sound) or the segments
    /// disagree on rate or channels (then the exports carry no sound).
    static func settings(of segments: [SegmentRecord]) -> AudioTrackSettings? {
        guard let first = segments.first?.audio else { return nil }
        for segment in segments { guard let audio = segment.audio, audio.sampleRate == first.sampleRate, audio.channels == first.channels else { return nil } }
        return AudioTrackSettings(sampleRate: first.sampleRate, channelCount: first.channels)
    }

    /// `segment`'s sound: its file's first audio stream decoded, cut (or, when the decoder
    /// gives fewer, padded with silence) to `sampleCount` sample frames of
    /// `settings.channelCount` channels.
    /// - Throws: ``RecordingError/badInput(path:field:detail:)`` (field `audio`) when the file
    ///   has no audio stream or another rate or channel count; ``FFmpegError`` from decoding.
    static func pcm(of segment: SegmentRecord, in source: ExportSource, settings: AudioTrackSettings) throws -> AudioPCMBuffer {
        let path = source.path(of: segment)
        let count = Int(segment.audio?.sampleCount ?? 0)
        guard let decoded = try AudioTrackReader.decode(URL(fileURLWithPath: path)) else {
            throw RecordingError.badInput(path: path, field: "audio", detail: "the manifest gives the segment sound, the file has no audio stream")
        }
        guard decoded.sampleRate == settings.sampleRate, decoded.channelCount == settings.channelCount else {
            throw RecordingError.badInput(
                path: path, field: "audio",
                detail:
                    "the file's audio is \(decoded.sampleRate) Hz, \(decoded.channelCount) channels; the manifest says \(settings.sampleRate) Hz, \(settings.channelCount)"
            )
        }
        // A file holds its record's samples (the decoder may give up to an AAC frame or
        // two fewer: priming and padding); a record claiming more is not padded with
        // silence by the number it claims.
        guard count - decoded.pcm.frameCount <= maximumPadding else {
            throw RecordingError.badInput(
                path: path, field: "audio.sampleCount",
                detail:
                    "the manifest says \(count) sample frames, the file holds \(decoded.pcm.frameCount); allowed: at most \(maximumPadding) more than the file holds"
            )
        }
        return fitted(decoded.pcm, to: count)
    }

    /// The most sample frames of silence an export adds where a file's decoded sound falls
    /// short of its record (two AAC frames).
    static let maximumPadding = 2048

    /// `pcm` cut to `count` sample frames, or padded with silence to it.
    static func fitted(_ pcm: AudioPCMBuffer, to count: Int) -> AudioPCMBuffer {
        if pcm.frameCount >= count { return pcm.frames(0..<count) }
        var padded = pcm
        padded.samples += [Float](repeating: 0, count: (count - pcm.frameCount) * pcm.channelCount)
        return padded
    }

    /// The first sample (from the first segment's start) of each segment and, last, the
    /// total: the running sum of the manifest's `sampleCount`s.
    static func sampleStarts(of segments: [SegmentRecord]) -> [Int64] {
        var starts: [Int64] = [0]
        for segment in segments { starts.append(starts[starts.count - 1] + (segment.audio?.sampleCount ?? 0)) }
        return starts
    }
}
