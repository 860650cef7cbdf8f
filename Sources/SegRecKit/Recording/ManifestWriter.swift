import Foundation

/// Reads and writes `manifest.json`.
public enum ManifestWriter {
    /// The manifest's file name inside an output folder.
    public static let fileName = "manifest.json"

    /// Pretty-printed JSON with sorted keys.
    public static func encode(_ manifest: RecordingManifest) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(manifest)
    }

    /// Writes `directory/manifest.json` atomically: Foundation writes a temporary file in
    /// the same folder and renames it over the target, so a reader never sees half a manifest.
    /// - Throws: ``RecordingError/io(path:underlying:)``.
    public static func write(_ manifest: RecordingManifest, to directory: URL) throws(RecordingError) {
        let url = directory.appendingPathComponent(fileName)
        do {
            try encode(manifest).write(to: url, options: .atomic)
        } catch {
            throw .io(path: url.path, underlying: "\(error.localizedDescription)")
        }
    }

    /// Reads `directory/manifest.json`.
    /// - Throws: ``RecordingError/inputNotFound(path:)`` or ``RecordingError/badInput(path:field:detail:)``.
    public static func read(from directory: URL) throws(RecordingError) -> RecordingManifest {
        let url = directory.appendingPathComponent(fileName)
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw .inputNotFound(path: url.path)
        }
        do {
            return try JSONDecoder().decode(RecordingManifest.self, from: data)
        } catch {
            throw .badInput(path: url.path, field: "manifest", detail: "\(error)")
        }
    }
}
