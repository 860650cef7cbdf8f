import Foundation

extension RecordingVerifier {
    /// The audio checks (Docs/DESIGN.md "Audio"), for a recording whose segments have an
    /// `audio` record: each file has one audio stream whose track declares the manifest's
    /// `sampleCount`, itself `round((sessionEnd − sessionStart) · sampleRate)` ± 1 (at most
    /// that for a file rebuilt from its fragments by `recover` or in a recording that ended
    /// with an error, whose sound may end before its pictures); and when
    /// the sound is the synthetic microphone's (a `microphone` in `devices`), the segments'
    /// sound decoded one after another puts every click within 1 ms of a whole second after
    /// the first segment's `sessionStart`, with none missing from the first second to the
    /// last click found.
    /// - Returns: problems per segment file, and for the whole recording.
    static func audioProblems(_ manifest: RecordingManifest, in directory: URL) -> (segments: [String: [String]], recording: [String]) {
        guard manifest.segments.contains(where: { $0.audio != nil }) else { return ([:], []) }
        var perSegment: [String: [String]] = [:]
        var joined: [Float] = []
        var rate: Int?
        var complete = true
        for segment in manifest.segments {
            let url = directory.appendingPathComponent(segment.file)
            // A file rebuilt from its complete fragments (by `recover`, or salvaged when its
            // writer failed: the recording then ended `error`) keeps their sound, which may end
            // before its pictures (the encoder's and resampler's lag): at most the span.
            let rebuilt = manifest.recovery?.recoveredFiles.contains(segment.file) ?? false || manifest.stopReason == .error
            let span = try? segment.sessionEnd.subtracting(segment.sessionStart)
            /// The span's length in samples at `rate` Hz.
            func spanSamples(atRate rate: Int) -> Int64? { (try? span?.converted(toTimescale: Int32(clamping: rate)))?.value }
            guard let record = segment.audio else {
                // A rebuilt file may have kept none of its sound: no record, and no track.
                // Its span is silence for the click check, so the files after it stay on time.
                if rebuilt, (try? AudioTrackReader.describe(url)) ?? nil == nil,
                    let recordedRate = manifest.segments.lazy.compactMap(\.audio).first?.sampleRate, let expected = spanSamples(atRate: recordedRate)
                {
                    joined += [Float](repeating: 0, count: max(0, Int(expected)))
                    continue
                }
                perSegment[segment.file, default: []].append("no audio record, while other segments have one")
                complete = false
                continue
            }
            let track: DecodedAudioTrack?
            do { track = try AudioTrackReader.read(url) } catch {
                perSegment[segment.file, default: []].append("audio: \(error)")
                complete = false
                continue
            }
            guard let track else {
                perSegment[segment.file, default: []].append("no audio stream, manifest says \(record.sampleCount) samples of \(record.codec)")
                complete = false
                continue
            }
            var problems: [String] = []
            if track.codecName != record.codec { problems.append("audio codec \(track.codecName), manifest says \(record.codec)") }
            if track.sampleRate != record.sampleRate { problems.append("audio at \(track.sampleRate) Hz, manifest says \(record.sampleRate)") }
            if track.declaredSampleCount != record.sampleCount {
                problems.append("audio track declares \(track.declaredSampleCount.map(String.init) ?? "no") samples, manifest says \(record.sampleCount)")
            }
            // Sound copied as sent (`--copy`) keeps whole packets: a file's may end before its span.
            let shortAllowed = rebuilt || segment.copied == true
            if let span, let expected = spanSamples(atRate: record.sampleRate),
                shortAllowed ? record.sampleCount > expected + 1 : abs(expected - record.sampleCount) > 1
            {
                problems.append(
                    "audio holds \(record.sampleCount) samples, the segment's span \(span) is \(expected) at \(record.sampleRate) Hz"
                        + (rebuilt ? " (a rebuilt file's sound may end before its pictures, never after)" : ""))
            }
            // Copied sound keeps the sender's gaps (no silence is made up): what decodes is what was sent.
            if segment.copied == true ? track.samples.isEmpty && record.sampleCount > 0 : track.samples.count + 1 < Int(record.sampleCount) {
                problems.append("only \(track.samples.count) of the \(record.sampleCount) audio samples decode")
                complete = false
            }
            perSegment[segment.file, default: []] += problems
            if rate == nil { rate = track.sampleRate }
            if rate != track.sampleRate { complete = false }
            joined += track.samples
            // A rebuilt file's missing tail is silence here, so the files after it stay on time.
            if rebuilt, let expected = spanSamples(atRate: record.sampleRate), Int(expected) > track.samples.count {
                joined += [Float](repeating: 0, count: Int(expected) - track.samples.count)
            }
        }
        guard complete, let rate, rate > 0, manifest.devices.contains(where: { $0.id == AudioCaptureDevice.defaultID }) else { return (perSegment, []) }
        return (perSegment, clickProblems(joined, sampleRate: rate))
    }

    /// The synthetic clicks in `joined` (sample 0 at the first segment's start): each
    /// within 1 ms of a whole second, none missing before the last one found.
    static func clickProblems(_ joined: [Float], sampleRate rate: Int) -> [String] {
        let onsets = ClickDetector(sampleRate: rate).onsets(in: joined)
        var problems: [String] = []
        let tolerance = rate / 1000
        var seconds: [Int] = []
        for onset in onsets {
            let second = Int((Double(onset) / Double(rate)).rounded())
            let error = onset - second * rate
            if abs(error) > tolerance {
                problems.append(
                    "audio: a click at sample \(onset) is \(error) samples (\(Double(error) * 1000 / Double(rate)) ms) from second \(second), more than 1 ms")
            }
            seconds.append(second)
        }
        if let last = seconds.last {
            let missing = Set(1...max(1, last)).subtracting(seconds).sorted()
            if !missing.isEmpty { problems.append("audio: no click at second(s) \(missing.prefix(10).map(String.init).joined(separator: ", "))") }
        } else if joined.count > rate + rate / 10 {
            problems.append("audio: no click found in \(joined.count) samples (\(joined.count / rate) s) of the synthetic microphone's sound")
        }
        return problems
    }
}
