import Foundation
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// `ManifestReader.read` on hand-edited manifests: a number no field can hold is named by
/// its key path (Foundation's decoder names none for it) instead of "not valid JSON".
@Suite("Manifest reading", .tags(.recording)) struct ManifestReadingTests {
    @Test(arguments: [("segments[0].frameCount", "1e30"), ("frames.written", "-1e300"), ("segments[0].width", "1e308")]) func oversizedNumberIsNamed(
        field: String, value: String
    ) async throws {
        let events = EventScript().events(count: 6, initial: .ratio9x16, changes: [], completionDelay: 0)
        let (dir, _) = try await RecorderTestSupport.record(events)
        let url = dir.appendingPathComponent("manifest.json")
        var json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        let marker = 123_456_789_012
        if field.hasPrefix("segments") {
            var segments = try #require(json["segments"] as? [[String: Any]])
            segments[0][String(field.split(separator: ".")[1])] = marker
            json["segments"] = segments
        } else {
            var frames = try #require(json["frames"] as? [String: Any])
            frames["written"] = marker
            json["frames"] = frames
        }
        let text = String(decoding: try JSONSerialization.data(withJSONObject: json), as: UTF8.self).replacingOccurrences(of: "\(marker)", with: value)
        try Data(text.utf8).write(to: url)
        #expect(
            throws: RecordingError.badInput(
                path: url.path, field: field, detail: "a number does not fit its field; allowed: integers within ±2^63 and finite numbers")
        ) { try ManifestReader.read(from: dir) }
    }

    /// A segment's `audio` record out of range is refused, naming the field.
    @Test(arguments: [
        ("sampleRate", 47_000, "47000 is not an AAC sampling rate"), ("channels", 3, "3 is out of range; allowed 1...2"),
        ("sampleCount", -5, "-5 is out of range")
    ]) func badAudioRecordIsNamed(field: String, value: Int, detail: String) async throws {
        let events = EventScript().events(count: 6, initial: .ratio9x16, changes: [], completionDelay: 0)
        let (dir, _) = try await RecorderTestSupport.record(events)
        let url = dir.appendingPathComponent("manifest.json")
        var json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        var segments = try #require(json["segments"] as? [[String: Any]])
        var audio: [String: Any] = ["codec": "aac", "sampleRate": 48_000, "channels": 1, "sampleCount": 9_600]
        audio[field] = value
        segments[0]["audio"] = audio
        json["segments"] = segments
        try JSONSerialization.data(withJSONObject: json).write(to: url)
        #expect { try ManifestReader.read(from: dir) } throws: { error in
            guard case .badInput(_, let named, let message) = error as? RecordingError else { return false }
            return named == "segments[0].audio.\(field)" && message.contains(detail)
        }
    }

    /// A manifest of another format version is refused by verify and recover, naming it.
    @Test func unknownFormatVersionIsRefused() async throws {
        let events = EventScript().events(count: 6, initial: .ratio9x16, changes: [], completionDelay: 0)
        let (dir, _) = try await RecorderTestSupport.record(events)
        let url = dir.appendingPathComponent("manifest.json")
        let text = try String(contentsOf: url, encoding: .utf8).replacingOccurrences(of: "\"formatVersion\" : 1", with: "\"formatVersion\" : 99")
        #expect(text.contains("\"formatVersion\" : 99"))
        try Data(text.utf8).write(to: url)
        let refusal = RecordingError.badInput(path: url.path, field: "formatVersion", detail: "99 is not a version this segrec reads; allowed: 1")
        #expect(throws: refusal) { try RecordingVerifier.verify(dir) }
        #expect(throws: refusal) { try RecordingRecovery.recover(dir) }
    }
}
