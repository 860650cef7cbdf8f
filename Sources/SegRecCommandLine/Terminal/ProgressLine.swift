import Foundation
import SegRecKit

/// The live progress line `record` (and `export --mp4`) shows on a terminal: frames, seconds
/// recorded, segments and encode speed, redrawn in place at most ten times a second.
final class ProgressLine {
    private let enabled: Bool
    /// Whether the line is shown (a terminal, neither --quiet nor --json).
    var isEnabled: Bool { enabled }
    private let started = Date()
    private var lastDraw = Date.distantPast
    private var drew = false

    init(enabled: Bool) { self.enabled = enabled }

    func update(_ progress: RecordingProgress) {
        guard let elapsed = dueForDrawing() else { return }
        let fps = Double(progress.framesWritten) / elapsed
        // Seconds recorded: exact decimals of the rational session time (DecimalSeconds).
        let recorded = DecimalSeconds.text(progress.timeRecorded, digits: 2)
        let line = String(
            format: "\r  %6d frames  %@ s recorded  %3d segment%@  %6.1f fps encoded ", progress.framesReceived,
            String(repeating: " ", count: max(0, 8 - recorded.count)) + recorded, progress.segments, progress.segments == 1 ? " " : "s", fps)
        Terminal.writeStandardError(line)
        drew = true
    }

    /// `export --mp4`: frames re-encoded of all, the share done and the speed.
    func update(exported done: Int, of total: Int) {
        guard let elapsed = dueForDrawing() else { return }
        let percent = total > 0 ? 100 * Double(done) / Double(total) : 100
        Terminal.writeStandardError(String(format: "\r  mp4: %6d of %d frames  %5.1f %%  %6.1f fps encoded ", done, total, percent, Double(done) / elapsed))
        drew = true
    }

    /// The seconds since the start when the line is shown and its last draw is at least
    /// 0.1 s old (marked drawn now); nil otherwise.
    private func dueForDrawing() -> Double? {
        guard enabled else { return nil }
        let now = Date()
        guard now.timeIntervalSince(lastDraw) >= 0.1 else { return nil }
        lastDraw = now
        return max(now.timeIntervalSince(started), 1e-6)
    }

    /// Clears the line.
    func finish() {
        if drew { Terminal.writeStandardError("\r\u{1B}[2K") }
        drew = false
    }
}
