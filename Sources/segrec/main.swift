import Foundation
import SegRecCommandLine
import SegRecKit

AllocatorTuning.fixMmapThreshold()
exit(SegRecCommand.main(Array(CommandLine.arguments.dropFirst())))
