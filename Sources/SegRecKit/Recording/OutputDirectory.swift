import Foundation

/// The folder a recording writes into: `segment-NNN.mp4` files and `manifest.json`.
public struct OutputDirectory: Sendable {
    /// The folder.
    public let url: URL

    /// Prepares `url` for a new recording: creates it if absent. An existing manifest or
    /// segment file is an error unless `force` is set, in which case those files (and only
    /// those) are removed first, so no stale segment of an earlier recording remains.
    /// - Throws: ``RecordingError/outputExists(path:)`` without `force`;
    ///   ``RecordingError/cannotCreateOutput(path:detail:)`` when the folder can't be made.
    public init(preparing url: URL, force: Bool) throws(RecordingError) {
        self.url = url
        let fm = FileManager.default
        var isDirectory: ObjCBool = false
        if fm.fileExists(atPath: url.path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw .cannotCreateOutput(path: url.path, detail: "it is a file, not a folder (--force does not replace files)")
            }
            let existing = ((try? fm.contentsOfDirectory(atPath: url.path)) ?? []).filter(Self.isRecordingFile)
            if !existing.isEmpty {
                guard force else { throw .outputExists(path: url.path) }
                for name in existing {
                    do { try fm.removeItem(at: url.appendingPathComponent(name)) } catch {
                        throw .cannotCreateOutput(path: url.appendingPathComponent(name).path,
                                                  detail: error.localizedDescription)
                    }
                }
            }
        } else {
            do { try fm.createDirectory(at: url, withIntermediateDirectories: true) } catch {
                throw .cannotCreateOutput(path: url.path, detail: Self.reason(creating: url, error))
            }
        }
        guard fm.isWritableFile(atPath: url.path) else {
            throw .cannotCreateOutput(path: url.path, detail: "folder is not writable")
        }
    }

    /// Why `url` could not be created, in words: a file in the way, a read-only or missing
    /// parent, or Foundation's message.
    private static func reason(creating url: URL, _ error: any Error) -> String {
        let fm = FileManager.default
        var ancestor = url.deletingLastPathComponent()
        while !fm.fileExists(atPath: ancestor.path), ancestor.path != "/" { ancestor = ancestor.deletingLastPathComponent() }
        var isDirectory: ObjCBool = false
        if fm.fileExists(atPath: ancestor.path, isDirectory: &isDirectory), !isDirectory.boolValue {
            return "\(ancestor.path) is a file, not a folder"
        }
        if !fm.isWritableFile(atPath: ancestor.path) { return "\(ancestor.path) is not writable" }
        return error.localizedDescription
    }

    /// `segment-000.mp4`, `segment-001.mp4`, …
    public static func segmentFileName(_ index: Int) -> String {
        "segment-" + String(repeating: "0", count: max(0, 3 - String(index).count)) + "\(index).mp4"
    }

    /// Files a recording writes (which `--force` may replace).
    static func isRecordingFile(_ name: String) -> Bool {
        name == ManifestWriter.fileName
            || (name.hasPrefix("segment-") && (name.hasSuffix(".mp4") || name.hasSuffix(".mp4.partial")))
    }

    /// URL of segment `index`.
    public func segmentURL(_ index: Int) -> URL { url.appendingPathComponent(Self.segmentFileName(index)) }

    /// A new dated folder name under `parent`, e.g. `segrec-20261129-120501`, never an
    /// existing one (a `-2`, `-3`, … suffix is added when needed).
    public static func newDatedFolder(in parent: URL, now: Date = Date()) -> URL {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyyMMdd-HHmmss"
        let base = "segrec-" + formatter.string(from: now)
        var candidate = parent.appendingPathComponent(base)
        var n = 2
        while FileManager.default.fileExists(atPath: candidate.path) {
            candidate = parent.appendingPathComponent("\(base)-\(n)")
            n += 1
        }
        return candidate
    }
}
