import Dispatch
import Foundation
import SegRecKit

/// Turns SIGINT (Ctrl-C) and SIGTERM into a ``RecordingStopRequest``: the first signal
/// ends the recording cleanly (open segment finalized, manifest `stopReason: requested`);
/// after it the default action is back, so a second Ctrl-C kills as usual.
final class InterruptHandler {
    private var sources: [any DispatchSourceSignal] = []

    init(stopRequest: RecordingStopRequest) {
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)  // let the dispatch source see it instead
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                stopRequest.request()
                signal(number, SIG_DFL)
            }
            source.resume()
            sources.append(source)
        }
    }

    deinit {
        for source in sources { source.cancel() }
    }
}
