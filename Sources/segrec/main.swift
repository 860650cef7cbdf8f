import Foundation
import SegRecCommandLine
import SegRecKit

// First, before any other work: an early Ctrl-C must find segrec's handler, not the default.
SignalHandling.install()
AllocatorTuning.fixMmapThreshold()
AllocatorTuning.useOneArena()
exit(await SegRecCommand.main(Array(CommandLine.arguments.dropFirst()), stopRequest: .process))
