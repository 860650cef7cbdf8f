import SegRecMedia
import SegRecTime

/// Appends the muxer holds back and hands to a segment's writer together, so that a stream
/// copied as sent (`--copy`: each packet costs the writer microseconds) wakes the writer's
/// thread a few times a second instead of once per packet. Without it a live copy spent
/// more CPU on those wake-ups and hand-overs than on writing its packets (see
/// Docs/performance.md, "Live streams copied as sent").
///
/// A batch is handed over when it holds ``maximumPictures`` pictures, when its commands span
/// ``maximumSpan`` of file time, before any command that is not an append (finish, cancel,
/// chapters, sound to encode, a question to the writer) and, so that the writer opens its
/// file at once, with a segment's first command. The pictures in a batch hold their slots
/// (``FrameSlots``), so ``maximumPictures`` must not exceed the slots' capacity.
///
/// Used on the muxer's executor only (not `Sendable`): what it hands over is detached
/// (``SegmentWriterActor/Command/detached()``), a new reference to each packet.
final class WriterCommandBatch {
    /// Pictures held at most.
    let maximumPictures: Int
    /// File time between the first and the last command held, at most.
    let maximumSpan: MediaTime

    private var commands: [SegmentWriterActor.Command] = []
    private var pictures = 0
    private var firstTime: MediaTime?
    private var handedOver = false

    /// - Parameters:
    ///   - maximumPictures: pictures held at most (≥ 1, ≤ the slots' capacity).
    ///   - maximumSpan: file time a batch spans at most.
    init(maximumPictures: Int, maximumSpan: MediaTime) {
        precondition(maximumPictures >= 1)
        self.maximumPictures = maximumPictures
        self.maximumSpan = maximumSpan
    }

    /// Holds `command` (an append at file time `time`); returns true when the batch is due
    /// to be handed over (``take()``).
    func add(_ command: sending SegmentWriterActor.Command, at time: MediaTime) -> Bool {
        if command.isPicture { pictures += 1 }
        commands.append(command)
        let first = firstTime ?? time
        firstTime = first
        let span = (try? time.subtracting(first)) ?? .zero
        return !handedOver || pictures >= maximumPictures || span >= maximumSpan
    }

    /// The commands held, in order, each detached; the batch is then empty.
    func take() -> sending [SegmentWriterActor.Command] {
        var taken: [SegmentWriterActor.Command] = []
        taken.reserveCapacity(commands.count)
        for command in commands { taken.append(command.detached()) }
        commands = []
        pictures = 0
        firstTime = nil
        handedOver = true
        return taken
    }
}

extension SegmentWriterActor.Command {
    /// The same append as a value that shares nothing with this one (hence `sending`): its
    /// pixels or packet ``FramePixels/detached()`` (a new reference, no data copied).
    /// Only appends are batched; any other command is not expected here.
    func detached() -> sending SegmentWriterActor.Command {
        switch self {
        case .append(let pixels, let presentationTime, let frameIndex, let delivered, let queued):
            return .append(pixels.detached(), presentationTime: presentationTime, frameIndex: frameIndex, delivered: delivered, queued: queued)
        case .appendCopiedAudio(let packet, let fileTime):
            guard let reference = packet.referenced() else { preconditionFailure("out of memory referencing a copied audio packet") }
            return .appendCopiedAudio(reference, fileTime: fileTime)
        case .appendSilence(let count): return .appendSilence(count)
        default: preconditionFailure("only appends are held in a WriterCommandBatch")
        }
    }
}
