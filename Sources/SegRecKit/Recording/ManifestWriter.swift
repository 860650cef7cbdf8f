import Foundation

#if canImport(Glibc)
    import Glibc
#endif

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
    ///
    /// On a full disk the temporary file cannot be written; then, only if the new manifest
    /// fits in the blocks the existing regular file already has (so no allocation can fail
    /// half-way), it is rewritten in place: the last journal becomes the final manifest
    /// "if any space remains".
    /// - Throws: ``RecordingError/io(path:underlying:)``.
    public static func write(_ manifest: RecordingManifest, to directory: URL) throws(RecordingError) {
        let url = directory.appendingPathComponent(fileName)
        let data: Data
        do { data = try encode(manifest) } catch { throw .io(path: url.path, underlying: "\(error)") }
        do { try data.write(to: url, options: .atomic) } catch {
            if rewriteInPlace(data, at: url) { return }
            throw .io(path: url.path, underlying: "\(error.localizedDescription)")
        }
    }

    /// Overwrites the regular file at `url` with `data` when its allocated blocks hold it.
    private static func rewriteInPlace(_ data: Data, at url: URL) -> Bool {
        let fd = open(url.path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, data.count <= Int(info.st_blocks) * 512 else { return false }
        let written = data.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        return written == data.count && ftruncate(fd, off_t(data.count)) == 0 && fsync(fd) == 0
    }

    /// Reads `directory/manifest.json`.
    /// - Throws: ``RecordingError/inputNotFound(path:)`` or ``RecordingError/badInput(path:field:detail:)``.
    public static func read(from directory: URL) throws(RecordingError) -> RecordingManifest {
        let url = directory.appendingPathComponent(fileName)
        guard let data = FileManager.default.contents(atPath: url.path) else { throw .inputNotFound(path: url.path) }
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
