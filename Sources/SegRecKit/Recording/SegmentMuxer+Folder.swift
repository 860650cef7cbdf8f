import Foundation

/// The folder the muxer writes through its descriptor (``OutputDirectory/workingURL``): what
/// it says shows the folder's own path, and a folder moved during the recording is named.
extension SegmentMuxer {
    /// `event` with the folder's descriptor path (``OutputDirectory/workingURL``) in its
    /// words written as the folder's own path, for the manifest and the app.
    func shownWithTheFolderPath(_ event: SegmentMuxerEvent) -> SegmentMuxerEvent {
        let output = configuration.output
        switch event {
        case .warning(let text): return .warning(output.displayText(text))
        case .segmentFailed(let file, let frames, let reason): return .segmentFailed(file: file, frames: frames, reason: output.displayText(reason))
        case .segmentSalvaged(let file, let frames, let end, let bytes, let reason):
            return .segmentSalvaged(file: file, frames: frames, end: end, bytes: bytes, reason: output.displayText(reason))
        case .finished(let reason, let error): return .finished(reason, error: error.map(output.displayText))
        default: return event
        }
    }

    /// Says so when the output folder's name no longer leads to the folder being written.
    func warnIfTheFolderMoved() { if let moved = configuration.output.movedWarning() { announce(.warning(moved)) } }
}
