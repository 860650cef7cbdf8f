extension VideoFrame {
    /// The same frame as a value that shares nothing with this one (hence `sending`): its
    /// pixels `FramePixels/detached()` (a new reference to a decoder's planes, no pixel
    /// copied), everything else copied. What a source hands on of a frame it kept in
    /// storage (a queue, the frame held until the next one gives its duration).
    package func detached() -> sending VideoFrame {
        var frame = VideoFrame(pixels: pixels.detached(), index: index, deviceTime: deviceTime, sessionTime: sessionTime, duration: duration)
        frame.deliveredAt = deliveredAt
        frame.pictureDescription = pictureDescription
        return frame
    }
}

extension CaptureOutputEvent {
    /// The same event as a value that shares nothing with this one (hence `sending`): a
    /// frame ``VideoFrame/detached()``, every other payload copied (they are `Sendable`).
    /// What a source returns from ``CaptureOutputEventSource/next()`` when the event comes
    /// out of its own storage.
    package func detached() -> sending CaptureOutputEvent {
        switch self {
        case .formatChanged(let format): .formatChanged(format)
        case .frame(let frame): .frame(frame.detached())
        case .audioSampleBuffer(let buffer): .audioSampleBuffer(buffer)
        case .dynamicAspectRatioChangeCompleted(let change): .dynamicAspectRatioChangeCompleted(change)
        case .dynamicAspectRatioChangeSuperseded(let supersession): .dynamicAspectRatioChangeSuperseded(supersession)
        case .frameDropped(let dropped): .frameDropped(dropped)
        case .note(let note): .note(note)
        case .warning(let warning): .warning(warning)
        case .inputDamaged(let packets): .inputDamaged(packets: packets)
        case .sessionEvent(let change): .sessionEvent(change)
        case .copiedAudio(let audio): audio.detached().map { .copiedAudio($0) } ?? .warning("out of memory: a copied audio packet was lost")
        }
    }
}
