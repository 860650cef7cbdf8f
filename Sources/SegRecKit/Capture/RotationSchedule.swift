/// The capture angle of every frame, as orientation changes take effect: which angle a
/// segment's display matrix carries (the angle at its first frame; a later change applies
/// from the next segment, as a movie file output fixes it at the start), and, with
/// `--split-on-rotation`, at which frames a segment must start (``changeFrames``).
///
/// A `Sendable` value, filled in frame order by whoever applies orientation events.
package struct RotationSchedule: Sendable, Hashable {
    /// The angle of frame 0.
    package let initial: VideoRotationAngle
    /// `(first frame, angle)` of each change, frames strictly increasing, each angle
    /// different from the one before it.
    package private(set) var changes: [Change] = []

    /// One change of the capture angle.
    package struct Change: Sendable, Hashable {
        /// The first frame captured with `angle`.
        package let frame: Int64
        /// The new angle.
        package let angle: VideoRotationAngle
    }

    /// A schedule whose frames all have `initial` until a change is recorded.
    package init(initial: VideoRotationAngle) { self.initial = initial }

    /// The angle frames will have from now on.
    package var latest: VideoRotationAngle { changes.last?.angle ?? initial }

    /// Records that frames from `frame` on are captured with `angle`. Changes made later
    /// apply at or after earlier ones: a change at an earlier or equal frame replaces the
    /// later entries; a change to the angle already in effect records nothing.
    /// - Returns: whether the angle of any frame changed.
    @discardableResult package mutating func record(_ angle: VideoRotationAngle, fromFrame frame: Int64) -> Bool {
        let before = changes
        while let last = changes.last, last.frame >= frame { changes.removeLast() }
        if angle != latest { changes.append(Change(frame: frame, angle: angle)) }
        return changes != before
    }

    /// The angle frame `index` is captured with (binary search).
    package func angle(atFrame index: Int64) -> VideoRotationAngle {
        var low = 0
        var high = changes.count
        while low < high {
            let middle = (low + high) / 2
            if changes[middle].frame <= index { low = middle + 1 } else { high = middle }
        }
        return low == 0 ? initial : changes[low - 1].angle
    }

    /// The frames at which the angle changes (the `rotationChanged` segment starts with
    /// `--split-on-rotation`).
    package var changeFrames: [Int64] { changes.map(\.frame) }
}
