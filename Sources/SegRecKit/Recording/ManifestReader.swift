import Foundation
import SegRecMedia

#if canImport(Glibc)
    import Glibc
#endif

/// Reads `manifest.json`: the one reader of every command (`verify`, `recover`, `export`,
/// `report`, `record --force`), so each trusts a manifest exactly as far as the others.
///
/// The file is opened without following a symbolic link and only when it is a regular
/// file (a FIFO cannot block it); decoded with Foundation's `JSONDecoder`; then every
/// number the commands do arithmetic on is range-checked and every file name is checked
/// to be segrec's own (`segment-NNN.mp4`: no separator, no `..`, no absolute path, each
/// name once), so no command can be led outside the folder or into an overflow.
public enum ManifestReader {
    /// Largest manifest file read (a million segments fit in it).
    static let maximumBytes = 1 << 30

    /// Reads and checks `directory/manifest.json`.
    /// - Throws: ``RecordingError/inputNotFound(path:)`` when it is missing;
    ///   ``RecordingError/badInput(path:field:detail:)`` naming the field when it is not a
    ///   regular file, does not parse, has a number out of range
    ///   (`frames.written: 9223372036854775807 is out of range; allowed 0...9007199254740992`)
    ///   or a file name that is not segrec's (`segments[0].file: '../x.mp4' …`).
    public static func read(from directory: URL) throws(RecordingError) -> RecordingManifest {
        try read(file: directory.appendingPathComponent(ManifestWriter.fileName))
    }

    /// Reads and checks the manifest file `url` (`manifest.json`, or the journal's
    /// temporary), as ``read(from:)`` does.
    static func read(file url: URL) throws(RecordingError) -> RecordingManifest {
        let data = try contents(of: url)
        let manifest = try decode(data, path: url.path)
        if let key = duplicateKey(in: data) { throw .badInput(path: url.path, field: key, detail: "is given twice in one object; allowed: each key once") }
        try checkRanges(manifest, path: url.path)
        try checkTimes(manifest, path: url.path)
        try checkNames(manifest, path: url.path)
        return manifest
    }

    /// The bytes of the regular file at `url` (never through a link, never blocking).
    private static func contents(of url: URL) throws(RecordingError) -> Data {
        let fd: Int32
        do { fd = try SafeFile.openForReading(path: url.path) } catch {
            if error.isNotFound { throw .inputNotFound(path: url.path) }
            throw .badInput(
                path: url.path, field: "manifest", detail: "\(error.context ?? url.path) cannot be read (\(error.message)); allowed: a regular file")
        }
        let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        do {
            let data = try handle.read(upToCount: maximumBytes + 1) ?? Data()
            guard data.count <= maximumBytes else {
                throw RecordingError.badInput(path: url.path, field: "manifest", detail: "larger than \(maximumBytes) bytes; allowed: a manifest segrec wrote")
            }
            return data
        } catch let error as RecordingError { throw error } catch { throw .io(path: url.path, underlying: "\(error.localizedDescription)") }
    }

    /// Decodes `data` (the manifest at `path`).
    private static func decode(_ data: Data, path: String) throws(RecordingError) -> RecordingManifest {
        let url = URL(fileURLWithPath: path)
        do { return try JSONDecoder().decode(RecordingManifest.self, from: data) } catch let error as DecodingError {
            if case .dataCorrupted(let context) = error, context.codingPath.isEmpty,
                let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
            {
                // Well-formed JSON whose number does not fit its field (e.g. 1e30 as a count):
                // Foundation's decoder names no key here, so find the number ourselves.
                let field = oversizedNumber(in: object, path: "") ?? "manifest"
                throw .badInput(path: url.path, field: field, detail: "a number does not fit its field; allowed: integers within ±2^63 and finite numbers")
            }
            throw .badInput(path: url.path, field: "manifest", detail: describe(error))
        } catch { throw .badInput(path: url.path, field: "manifest", detail: "\(error)") }
    }

    /// The times a manifest may hold, in ticks of their own timescale (±2^62: 146 years
    /// at 1 ns), so differences and exact comparisons of two cannot overflow. The recorder
    /// ends a recording whose frames would leave it (``SegmentMuxer``).
    package static let timeRange = -(Int64(1) << 62)...(Int64(1) << 62)

    /// Largest count or index a manifest may hold (2^53: exact in a JSON double too).
    static let maximumCount: Int64 = 1 << 53

    /// Checks every number in `manifest` that the checks do arithmetic on, so a damaged or
    /// hand-edited manifest (a count near `Int.max`, a negative size) is reported instead of
    /// trapping on overflow.
    /// - Throws: ``RecordingError/badInput(path:field:detail:)`` naming the field, e.g.
    ///   `frames.written: 9223372036854775807 is out of range; allowed 0...9007199254740992`.
    static func checkRanges(_ manifest: RecordingManifest, path: String) throws(RecordingError) {
        func count(_ value: Int64, _ field: String, _ range: ClosedRange<Int64> = 0...maximumCount) throws(RecordingError) {
            guard range.contains(value) else {
                throw .badInput(path: path, field: field, detail: "\(value) is out of range; allowed \(range.lowerBound)...\(range.upperBound)")
            }
        }
        try count(Int64(manifest.frames.received), "frames.received")
        guard manifest.formatVersion == RecordingManifest.currentFormatVersion else {
            throw .badInput(
                path: path, field: "formatVersion",
                detail: "\(manifest.formatVersion) is not a version this segrec reads; allowed: \(RecordingManifest.currentFormatVersion)")
        }
        try count(Int64(manifest.frames.written), "frames.written")
        try count(Int64(manifest.frames.dropped), "frames.dropped")
        for (reason, n) in manifest.frames.droppedReasons.sorted(by: { $0.key < $1.key }) { try count(Int64(n), "frames.droppedReasons.\(Excerpt.of(reason))") }
        try count(Int64(manifest.segments.count), "segments", 0...1_000_000)
        for (i, segment) in manifest.segments.enumerated() {
            let at = "segments[\(i)]"
            try count(Int64(segment.width), "\(at).width", 1...65_536)
            try count(Int64(segment.height), "\(at).height", 1...65_536)
            try count(Int64(segment.frameCount), "\(at).frameCount", 0...Int64(Int32.max))
            try count(segment.firstFrameIndex, "\(at).firstFrameIndex")
            try count(segment.byteCount, "\(at).byteCount")
            for (name, time) in [("sessionStart", segment.sessionStart), ("sessionEnd", segment.sessionEnd)] {
                // Differences and exact comparisons of such times cannot overflow.
                try count(time.value, "\(at).\(name).value", timeRange)
            }
            if let change = segment.change {
                for (name, time) in [("deviceTime", change.deviceTime), ("sessionTime", change.sessionTime)] {
                    try count(time.value, "\(at).change.\(name).value", timeRange)
                }
            }
            if let audio = segment.audio, segment.copied == true {
                try checkCopiedAudio(audio, at: "\(at).audio", path: path)
            } else if let audio = segment.audio {
                guard AudioTrackSettings.supportedSampleRates.contains(audio.sampleRate) else {
                    throw .badInput(
                        path: path, field: "\(at).audio.sampleRate",
                        detail: "\(audio.sampleRate) is not an AAC sampling rate; allowed: "
                            + AudioTrackSettings.supportedSampleRates.map(String.init).joined(separator: ", "))
                }
                try count(Int64(audio.channels), "\(at).audio.channels", 1...2)
                try count(audio.sampleCount, "\(at).audio.sampleCount")
                guard audio.codec == "aac" else {
                    throw .badInput(path: path, field: "\(at).audio.codec", detail: "\(Excerpt.of(audio.codec)) is not allowed; allowed: aac")
                }
            }
        }
        if let audio = manifest.audio {
            try count(audio.received, "audio.received")
            try count(audio.written, "audio.written")
        }
        if let recovery = manifest.recovery {
            try count(Int64(recovery.framesRecovered), "recovery.framesRecovered")
            try count(Int64(recovery.framesLost), "recovery.framesLost")
        }
    }

    /// Checks that every segment's `file` is a finished segment name segrec writes
    /// (`segment-NNN.mp4`), and that no two segments name the same file.
    /// - Throws: ``RecordingError/badInput(path:field:detail:)`` naming `segments[i].file`.
    static func checkNames(_ manifest: RecordingManifest, path: String) throws(RecordingError) {
        var seen: Set<String> = []
        for (i, segment) in manifest.segments.enumerated() {
            guard SegmentFiles.isFinishedName(segment.file) else {
                throw .badInput(
                    path: path, field: "segments[\(i)].file",
                    detail: "'\(Excerpt.of(segment.file))' is not a segment file name; allowed: segment-NNN.mp4 (three or more digits) in the recording folder")
            }
            guard seen.insert(segment.file).inserted else {
                throw .badInput(
                    path: path, field: "segments[\(i)].file", detail: "'\(segment.file)' is named by an earlier segment too; allowed: each file once")
            }
        }
    }

    /// The key path (`segments[0].frameCount`) of the first number in `object` that no
    /// manifest field can hold (beyond ±2^63, or not finite), if any.
    private static func oversizedNumber(in object: Any, path: String) -> String? {
        switch object {
        case let dictionary as [String: Any]:
            for key in dictionary.keys.sorted() {
                if let found = oversizedNumber(in: dictionary[key]!, path: path.isEmpty ? key : path + "." + key) { return found }
            }
        case let array as [Any]:
            for (index, element) in array.enumerated() { if let found = oversizedNumber(in: element, path: path + "[\(index)]") { return found } }
        case let number as NSNumber:
            let value = number.doubleValue
            if !value.isFinite || abs(value) >= 9.2e18 { return path.isEmpty ? "manifest" : path }
        default: break
        }
        return nil
    }

    /// One line for a decoding error: where in the file, and what is wrong.
    private static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return keys.isEmpty ? "the top level" : String(keys.drop { $0 == "." })
        }
        switch error {
        case .dataCorrupted(let context): return context.codingPath.isEmpty ? "not valid JSON" : "\(path(context)): \(context.debugDescription)"
        case .keyNotFound(let key, let context): return "\(path(context)): missing key '\(key.stringValue)'"
        case .typeMismatch(let type, let context): return "\(path(context)): expected \(type)"
        case .valueNotFound(let type, let context): return "\(path(context)): expected \(type), found null"
        @unknown default: return "\(error)"
        }
    }
}
