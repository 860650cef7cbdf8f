import Foundation
import SegRecMedia

/// A finished recording read for export or a report: its manifest (decoded with
/// ``RecordingManifest``'s own `Codable`) and the checks every exporter needs first.
package struct ExportSource: Sendable {
    /// The recording folder.
    package let directory: URL
    /// Its `manifest.json`.
    package let manifest: RecordingManifest

    /// Reads `directory/manifest.json` (``ManifestReader``: ranges and file names checked)
    /// and checks that the recording can be exported: it has ended (`stopReason` not null),
    /// has at least one segment, every segment file exists and is a regular file (never a
    /// symbolic link or a FIFO) of the manifest's `byteCount`, and every segment lasts a
    /// positive time.
    /// - Throws: ``RecordingError/inputNotFound(path:)`` (manifest or a segment file
    ///   missing) or ``RecordingError/badInput(path:field:detail:)`` naming the field.
    package init(directory: URL) throws(RecordingError) {
        let manifest = try ManifestReader.read(from: directory)
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
            guard segment.sessionStart < segment.sessionEnd else {
                throw .badInput(
                    path: manifestPath, field: "segments[\(index)].sessionEnd",
                    detail: "\(segment.sessionEnd) is not after sessionStart \(segment.sessionStart)")
            }
            let path = directory.appendingPathComponent(segment.file).path
            guard SafeFile.exists(path: path) else { throw .inputNotFound(path: path) }
            if let problem = SafeFile.notRegularFile(path: path) {
                throw .badInput(path: manifestPath, field: "segments[\(index)].file", detail: "\(problem); allowed: the segment file segrec wrote")
            }
            // A file of another size than the manifest's is not the one recorded: cut short
            // or changed since (every export would otherwise play or refuse it part way).
            if let size = SafeFile.size(path: path), size != segment.byteCount {
                throw .badInput(
                    path: path, field: "byteCount",
                    detail:
                        "the manifest says \(segment.byteCount) bytes, the file has \(size): it was damaged, cut short or changed after recording; check the recording with `segrec verify \(directory.path)`"
                )
            }
        }
        self.directory = directory
        self.manifest = manifest
    }

    /// Path of segment `index`'s file.
    package func path(of segment: SegmentRecord) -> String { directory.appendingPathComponent(segment.file).path }

    /// Exact duration of `segment` (`sessionEnd − sessionStart`).
    package static func duration(of segment: SegmentRecord) -> MediaTime { segment.sessionEnd - segment.sessionStart }

    /// The id of the camera (device clock) that made the frames: the manifest's first
    /// device, e.g. `front`, or `input` for pass-through footage.
    package var cameraName: String { manifest.devices.first?.id ?? "camera" }
}
