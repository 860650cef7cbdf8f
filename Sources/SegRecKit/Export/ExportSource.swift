import Foundation

/// A finished recording read for export or a report: its manifest (decoded with
/// ``RecordingManifest``'s own `Codable`) and the checks every exporter needs first.
public struct ExportSource: Sendable {
    /// The recording folder.
    public let directory: URL
    /// Its `manifest.json`.
    public let manifest: RecordingManifest

    /// Reads `directory/manifest.json` and checks that the recording can be exported: it has
    /// ended (`stopReason` not null), has at least one segment, every segment file exists,
    /// and every segment lasts a positive time.
    /// - Throws: ``RecordingError/inputNotFound(path:)`` (manifest or a segment file
    ///   missing) or ``RecordingError/badInput(path:field:detail:)`` naming the field.
    public init(directory: URL) throws(RecordingError) {
        let manifest = try ManifestWriter.read(from: directory)
        let manifestPath = directory.appendingPathComponent(ManifestWriter.fileName).path
        guard manifest.stopReason != nil else {
            throw .badInput(
                path: manifestPath, field: "stopReason",
                detail: "null: the recording is still running or was interrupted; allowed: an ended recording (run 'segrec recover' first)")
        }
        guard !manifest.segments.isEmpty else {
            throw .badInput(
                path: manifestPath, field: "segments",
                detail:
                    "empty: the recording kept no segment (stopReason \(manifest.stopReason.map { "\($0)" } ?? "null")); allowed: a recording with at least one segment"
            )
        }
        for (index, segment) in manifest.segments.enumerated() {
            guard !segment.file.isEmpty, !segment.file.contains("/"), !segment.file.contains("\n") else {
                throw .badInput(
                    path: manifestPath, field: "segments[\(index)].file", detail: "'\(segment.file)': allowed: a plain file name in the recording folder")
            }
            guard segment.sessionStart < segment.sessionEnd else {
                throw .badInput(
                    path: manifestPath, field: "segments[\(index)].sessionEnd",
                    detail: "\(segment.sessionEnd) is not after sessionStart \(segment.sessionStart)")
            }
            let path = directory.appendingPathComponent(segment.file).path
            guard FileManager.default.fileExists(atPath: path) else { throw .inputNotFound(path: path) }
        }
        self.directory = directory
        self.manifest = manifest
    }

    /// Path of segment `index`'s file.
    public func path(of segment: SegmentRecord) -> String { directory.appendingPathComponent(segment.file).path }

    /// Exact duration of `segment` (`sessionEnd − sessionStart`).
    public static func duration(of segment: SegmentRecord) -> MediaTime { segment.sessionEnd - segment.sessionStart }

    /// The id of the camera (device clock) that made the frames: the manifest's first
    /// device, e.g. `front`, or `input` for pass-through footage.
    public var cameraName: String { manifest.devices.first?.id ?? "camera" }
}
