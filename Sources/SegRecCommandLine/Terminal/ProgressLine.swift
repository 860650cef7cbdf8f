import Foundation
import SegRecKit

/// The live progress line `record` shows on a terminal: frames, seconds recorded, segments
/// and encode speed, redrawn in place at most ten times a second.
final class ProgressLine {
    private let enabled: Bool
    /// Whether the line is shown (a terminal, neither --quiet nor --json).
    var isEnabled: Bool { enabled }
    private let started = Date()
    private var lastDraw = Date.distantPast
    private var drew = false

    init(enabled: Bool) { self.enabled = enabled }

    func update(_ progress: RecordingProgress) {
        guard enabled else { return }
        let now = Date()
        guard now.timeIntervalSince(lastDraw) >= 0.1 else { return }
        lastDraw = now
        let elapsed = max(now.timeIntervalSince(started), 1e-6)
        let fps = Double(progress.framesWritten) / elapsed
        // Seconds recorded: exact decimals of the rational session time (DecimalSeconds).
        let recorded = DecimalSeconds.text(progress.timeRecorded, digits: 2)
        let line = String(
            format: "\r  %6d frames  %@ s recorded  %3d segment%@  %6.1f fps encoded ", progress.framesReceived,
            String(repeating: " ", count: max(0, 8 - recorded.count)) + recorded, progress.segments, progress.segments == 1 ? " " : "s", fps)
        Terminal.writeStandardError(line)
        drew = true
    }

    /// Clears the line.
    func finish() { if drew { Terminal.writeStandardError("\r\u{1B}[2K") } }
}
