import Foundation
import SegRecKit

/// The table `record` prints at the end: one row per segment, then the totals.
enum Summary {
    static func render(_ manifest: RecordingManifest, folder: URL) -> String {
        // Several-camera recordings add the streaming camera and its facing.
        let cameras = manifest.segments.contains { $0.camera != nil }
        var rows = [["file", "size", "bytes", "frames", "session start (s)", "session end (s)", "reason"] + (cameras ? ["camera"] : [])]
        for s in manifest.segments {
            rows.append(
                [
                    s.file, "\(s.width)x\(s.height)", "\(s.byteCount)", "\(s.frameCount)", DecimalSeconds.text(s.sessionStart),
                    DecimalSeconds.text(s.sessionEnd), s.startReason.rawValue
                ] + (cameras ? ["\(s.camera ?? "-") (\(s.facing?.rawValue ?? "-"))"] : []))
        }
        let f = manifest.frames
        let plural = manifest.segments.count == 1 ? "" : "s"
        var frameLine = "frames: \(f.received) received, \(f.written) written, \(f.dropped) dropped"
        if !f.droppedReasons.isEmpty {
            let reasons: [String] = f.droppedReasons.keys.sorted().map { key in "\(key): \(f.droppedReasons[key] ?? 0)" }
            frameLine += " (" + reasons.joined(separator: ", ") + ")"
        }
        var stopLine = "stopped: \(manifest.stopReason?.rawValue ?? "still recording (or interrupted)")"
        // Exact decimals of the rational times (a Double has ~16 digits: wrong at 1e9 s).
        if let stop = manifest.stopTime { stopLine += " at \(DecimalSeconds.text(stop)) s" }
        var lines: [String] = [TextTable.render(rows), "", "\(manifest.segments.count) segment\(plural) in \(folder.path)", frameLine, stopLine]
        for warning in manifest.warnings { lines.append("warning: \(warning)") }
        return lines.joined(separator: "\n")
    }
}
