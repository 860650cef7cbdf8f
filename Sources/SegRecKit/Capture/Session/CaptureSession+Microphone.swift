/// The microphone's feed (an audio data output beside the video one): its buffers ride the
/// same stream, placed by their timestamps before the frames captured after them.
extension CaptureSession {
    /// Queues the microphone's buffers whose timestamp is before `time` (nil: all that are left).
    func deliverAudio(before time: MediaTime?) throws(CaptureError) {
        guard let microphone else { return }
        while let next = try microphone.nextBufferSessionTime(), time.map({ next < $0 }) ?? true {
            guard let buffer = try microphone.captureBuffer() else { return }
            outbox.append(.audioSampleBuffer(buffer))
        }
    }
}
